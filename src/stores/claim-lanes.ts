/**
 * How many sweep rounds a store takes in flight at once. A store whose large claims are written
 * beside the event loop (the SQLite store's worker) marks itself with `WRITES_CLAIMS_BESIDE`:
 * its claim then mostly waits for that writer, and a second round is read and settled while the
 * first is written. Internal to the package: the symbol is not part of its API.
 */
import type { AskStore } from './ask-store.js';

export const WRITES_CLAIMS_BESIDE: unique symbol = Symbol('ask-engine.writesClaimsBeside');

/** 2 for a store marked `WRITES_CLAIMS_BESIDE` (true at the time of asking), else 1. */
export function claimLanes(store: AskStore): number {
  return (store as { [WRITES_CLAIMS_BESIDE]?: boolean })[WRITES_CLAIMS_BESIDE] === true ? 2 : 1;
}
