/**
 * Stored times as the operator pages show them: ISO 8601, or a marked note for a stored time
 * that is no date (a damaged or hand-edited row), which never stops a page from rendering.
 */
import { describe } from '../rules/describe.js';
import { type Html, html } from './html.js';

/** An audit or row time as ISO 8601, or `undefined` when it is not a date. */
export function isoTime(at: unknown): string | undefined {
  if (typeof at !== 'number') return undefined;
  const date = new Date(at);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

export function shownTime(at: unknown): string {
  return isoTime(at) ?? `not a valid time (${describe(at)})`;
}

/** A table cell with the time; `bad-time` marks one that is no date. */
export function timeCell(at: unknown, className?: string): Html {
  const classes = [className, isoTime(at) === undefined ? 'bad-time' : undefined].filter(
    (name) => name !== undefined,
  );
  return classes.length === 0
    ? html`<td>${shownTime(at)}</td>`
    : html`<td class="${classes.join(' ')}">${shownTime(at)}</td>`;
}
