/** Telling a store's subscribers of a change: every one of them hears it, whatever another does. */
import type { AskStoreChange } from './ask-store.js';

/**
 * Calls each listener with `change`. A listener's exception is its own: it goes to `report`
 * (by default rethrown on a fresh microtask, as an uncaught error of that listener) and the
 * other listeners still hear of the change.
 */
export function notifyListeners(
  listeners: Iterable<(change: AskStoreChange) => void>,
  change: AskStoreChange,
  report: (error: unknown) => void = rethrowLater,
): void {
  for (const listener of listeners) {
    try {
      listener(change);
    } catch (error) {
      report(error);
    }
  }
}

function rethrowLater(error: unknown): void {
  queueMicrotask(() => {
    throw error;
  });
}
