/** The one timeout rule: a finite number of milliseconds, at least `MIN_TIMEOUT_MS`. */
import { describe } from './describe.js';
import { UserInteractionError } from './errors.js';

/**
 * The shortest wait: below a second no person can answer, and a model that meant seconds
 * (`timeout: 30`) is told instead of timing out before anyone is asked.
 */
export const MIN_TIMEOUT_MS = 1000;

/** True for a finite number of milliseconds >= `MIN_TIMEOUT_MS`. */
export function isTimeoutMs(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= MIN_TIMEOUT_MS;
}

/**
 * Returns `value` when it is a valid timeout; otherwise throws `UserInteractionError`
 * (`INVALID_REQUEST`) naming `name`, the value and what to send.
 *
 * @example
 * checkTimeoutMs(30, '"timeout"');
 * // throws: "timeout" must be a number of milliseconds, at least 1000 (1 second), got 30.
 * //         Timeouts are in milliseconds: for 30 seconds send 30000.
 */
export function checkTimeoutMs(value: unknown, name: string): number {
  if (isTimeoutMs(value)) return value;
  throw new UserInteractionError('INVALID_REQUEST', timeoutProblem(value, name), {
    field: name,
    minimum: MIN_TIMEOUT_MS,
  });
}

/** The absolute deadline for a timeout from `now`, or `undefined` (no deadline) without one. */
export function deadlineFrom(now: number, timeoutMs: number | undefined): number | undefined {
  return timeoutMs === undefined ? undefined : now + timeoutMs;
}

function timeoutProblem(value: unknown, name: string): string {
  const rule = `${name} must be a number of milliseconds, at least ${MIN_TIMEOUT_MS} (1 second), got ${describe(value)}.`;
  if (typeof value === 'number' && value >= 1 && value < MIN_TIMEOUT_MS) {
    // Most likely seconds: say what that many seconds is in milliseconds.
    return `${rule} Timeouts are in milliseconds: for ${value} seconds send ${value * 1000}.`;
  }
  if (typeof value === 'number' && Number.isFinite(value)) {
    return `${rule} Send a positive number of milliseconds, such as 60000 for one minute.`;
  }
  return `${rule} Send a finite number of milliseconds, such as 60000 for one minute, or leave it out to wait without a deadline.`;
}
