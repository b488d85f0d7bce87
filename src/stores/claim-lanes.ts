/**
 * Marks a store whose large claims are written beside the event loop (the SQLite store's
 * worker): such a claim mostly waits for that writer, and spreads its own reading over slices
 * of the event loop (see `AskLog.claimDue`'s `enough`). The sweeper then keeps two rounds in
 * flight, so one is read while the other is written, and lets each claim more asks. Internal to
 * the package: the symbol is not part of its API. `roundSpent` says when a round heeds `enough`.
 */
import type { AskLog } from './ask-store.js';

export const WRITES_CLAIMS_BESIDE: unique symbol = Symbol('ask-engine.writesClaimsBeside');

/** True for a store marked `WRITES_CLAIMS_BESIDE` (at the time of asking). */
export function writesClaimsBeside(store: AskLog): boolean {
  return (store as { [WRITES_CLAIMS_BESIDE]?: boolean })[WRITES_CLAIMS_BESIDE] === true;
}

/**
 * Whether a `claimDue` round stops before its next due ask: its `enough` says the slice is spent,
 * asked only once the round has something to write (`written` writes so far), so every round
 * makes progress.
 */
export function roundSpent(written: number, enough: (() => boolean) | undefined): boolean {
  return written > 0 && enough?.() === true;
}
