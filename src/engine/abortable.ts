/** Waiting that stops when a signal aborts: one place that releases the timer and the listener. */
import type { Clock } from './clock.js';

/**
 * True for what an option `signal` must be: an AbortSignal of this realm or another (checked by
 * shape, as a bundled copy's or a polyfill's signal is no instance of this realm's class).
 */
export function isAbortSignalLike(value: unknown): value is AbortSignal {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as AbortSignal).aborted === 'boolean' &&
    typeof (value as AbortSignal).addEventListener === 'function'
  );
}

/**
 * Settles like `promise`, or rejects with `signal.reason` as soon as `signal` aborts. The work
 * behind `promise` is not stopped (some APIs take no signal); its late failure is ignored.
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      promise.catch(() => {});
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** Resolves after `ms` on `clock`, or rejects with `signal.reason` once `signal` aborts. */
export function sleep(clock: Clock, ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    let handle: unknown;
    const onAbort = () => {
      clock.clearTimeout(handle);
      reject(signal.reason);
    };
    // Listen first: a test clock may run the callback inside setTimeout.
    signal.addEventListener('abort', onAbort, { once: true });
    handle = clock.setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
  });
}
