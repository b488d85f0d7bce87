/**
 * How a part built on a service (the notify provider, given the web answer server) finds the
 * store that service writes to, without a public name for it. Internal: a symbol, not public
 * API; a service without it (a stand-in of a caller's own) has no store to lend.
 */
import type { AskLog } from '../stores/ask-store.js';

export const STORE_OF: unique symbol = Symbol('ask-engine.storeOf');

/** The store `service` writes its asks to, when it is an interaction service of this engine. */
export function storeOf(service: unknown): AskLog | undefined {
  if (typeof service !== 'object' || service === null) return undefined;
  return (service as { [STORE_OF]?: AskLog })[STORE_OF];
}
