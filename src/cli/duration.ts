/** Parses a CLI duration: milliseconds as a bare number, or with a unit (`1500`, `30s`, `2m`). */
import { isTimeoutMs, MIN_TIMEOUT_MS } from '../rules/timeout.js';
import { UsageError } from './usage-error.js';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * The longest duration a flag takes: 100 years (876000h). Far past any wait or look-back a
 * person means, and far inside what a date can hold, so `now ± duration` is always a time.
 */
export const MAX_DURATION_MS = 876_000 * UNITS.h!;

const DURATION = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/i;

/** True when `text` is written as a duration (a number, with or without a unit), in range or not. */
export function looksLikeDuration(text: string): boolean {
  return DURATION.test(text);
}

/**
 * The milliseconds `flag` was given as `text`: from `MIN_TIMEOUT_MS` (the timeout rule every
 * entry point shares) to `MAX_DURATION_MS`. Throws a `UsageError` (a flag the person can fix:
 * exit code 2) naming the flag, the value received and the range with the accepted forms.
 *
 * @example
 * parseDuration('--timeout', '30s')  // => 30000
 * parseDuration('--timeout', '1500') // => 1500
 */
export function parseDuration(flag: string, text: string): number {
  const match = DURATION.exec(text);
  const value =
    match === null
      ? Number.NaN
      : Math.round(Number(match[1]) * UNITS[(match[2] ?? 'ms').toLowerCase()]!);
  if (isTimeoutMs(value) && value <= MAX_DURATION_MS) return value;
  const range = `from ${MIN_TIMEOUT_MS / 1000}s to ${MAX_DURATION_MS / UNITS.h!}h (100 years)`;
  if (value > MAX_DURATION_MS) {
    throw new UsageError(
      `${flag} ${JSON.stringify(text)} is out of range: give a duration ${range}.`,
    );
  }
  const seconds =
    match !== null && match[2] === undefined && value > 0
      ? ` (for ${value} seconds write ${value}s)`
      : '';
  throw new UsageError(
    `${flag} ${JSON.stringify(text)} is not a duration ${range} like 1500, 30s, 2m or 1h (a bare number is milliseconds${seconds}).`,
  );
}
