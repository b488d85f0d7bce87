/**
 * When a store call for an ask this service holds fails (a connection cut, a database away),
 * the ask is still open in the store: failing its `outcome` would drop an answer or a timeout
 * that can still be written. Such calls are reported and tried again, waiting longer each time,
 * for as long as the service holds the ask. Only errors the store call threw count: the engine's
 * own (a row that fails its check, an ask gone from the store, a write that lost every race, a
 * closed service) fail the ask at once.
 */

/** The first wait before trying again, and the longest: 100 ms, doubling up to 5 s. */
const RETRY_MS = [100, 5_000] as const;

/** How long to wait before attempt `attempt + 1` (attempt 0 is the first failure). */
export function storeRetryDelayMs(attempt: number): number {
  return Math.min(RETRY_MS[0] * 2 ** attempt, RETRY_MS[1]);
}

/** Errors a store call threw (as opposed to the engine's own), by identity. */
const storeFailures = new WeakSet<object>();

/** Marks `error` as thrown by a store call, and returns it (to rethrow). */
export function storeFailed(error: unknown): unknown {
  if (typeof error === 'object' && error !== null) storeFailures.add(error);
  return error;
}

/** True for an error a store call threw (see `storeFailed`), worth trying again. */
export function isStoreFailure(error: unknown): boolean {
  return typeof error === 'object' && error !== null && storeFailures.has(error);
}

/** A pause that never keeps the process alive. */
export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref?.());
}
