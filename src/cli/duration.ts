/** Parses a CLI duration: milliseconds as a bare number, or with a unit (`500ms`, `30s`, `2m`). */

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * Milliseconds, > 0. Throws a `TypeError` showing the value received and the accepted forms.
 *
 * @example
 * parseDuration('30s')  // => 30000
 * parseDuration('1500') // => 1500
 */
export function parseDuration(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/i.exec(text);
  const value =
    match === null ? Number.NaN : Number(match[1]) * UNITS[(match[2] ?? 'ms').toLowerCase()]!;
  if (!Number.isFinite(value) || value <= 0) {
    throw new TypeError(
      `Expected a duration > 0 like 1500, 500ms, 30s, 2m or 1h, got ${JSON.stringify(text)}.`,
    );
  }
  return Math.round(value);
}
