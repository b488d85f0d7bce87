/** Parses a CLI duration: milliseconds as a bare number, or with a unit (`1500`, `30s`, `2m`). */
import { isTimeoutMs, MIN_TIMEOUT_MS } from '../rules/timeout.js';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * Milliseconds, at least `MIN_TIMEOUT_MS` (the timeout rule every entry point shares). Throws a
 * `TypeError` showing the value received and the accepted forms.
 *
 * @example
 * parseDuration('30s')  // => 30000
 * parseDuration('1500') // => 1500
 */
export function parseDuration(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/i.exec(text);
  const value =
    match === null
      ? Number.NaN
      : Math.round(Number(match[1]) * UNITS[(match[2] ?? 'ms').toLowerCase()]!);
  if (!isTimeoutMs(value)) {
    const seconds =
      match !== null && match[2] === undefined && value > 0
        ? ` (for ${value} seconds write ${value}s)`
        : '';
    throw new TypeError(
      `Expected a duration of at least ${MIN_TIMEOUT_MS / 1000}s like 1500, 30s, 2m or 1h (a bare number is milliseconds${seconds}), got ${JSON.stringify(text)}.`,
    );
  }
  return value;
}
