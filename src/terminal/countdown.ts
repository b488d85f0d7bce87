/** Formats the time left until an ask's deadline. */

/**
 * `m:ss left`, or `Ns left` under a minute; `time is up` at or past the deadline.
 *
 * @example
 * formatCountdown(65_000) // => '1:05 left'
 */
export function formatCountdown(remainingMs: number): string {
  if (remainingMs <= 0) return 'time is up';
  const seconds = Math.ceil(remainingMs / 1000);
  if (seconds < 60) return `${seconds}s left`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes}:${String(seconds % 60).padStart(2, '0')} left`;
}
