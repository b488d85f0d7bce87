/**
 * Times as people read them, on every page and in every mail: `2026-12-04 20:15 UTC`, one
 * format (`formatTime`); on pages in a `<time>` element that keeps the exact instant, with
 * "in 2 hours" where the distance helps. A stored time that is no date (a damaged or
 * hand-edited row) shows as a marked note and never stops a page from rendering.
 */
import { describe } from '../rules/describe.js';
import { type Html, html } from './html.js';

/**
 * The one way a time is written for people: UTC to the minute, e.g. `2026-12-04 20:15 UTC`
 * (the same on every page, mail and webhook text; the reader's zone is unknown to a server).
 */
export function formatTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/**
 * How far `at` is from `now`, in the largest unit that reads well: "in 2 hours", "5 minutes
 * ago", "in 3 days"; "in less than a minute" (or "less than a minute ago") below one.
 */
export function relativeTime(at: number, now: number): string {
  const distance = Math.abs(at - now);
  const future = at >= now;
  if (distance < MINUTE_MS) return future ? 'in less than a minute' : 'less than a minute ago';
  const [unit, size] =
    distance < 90 * MINUTE_MS
      ? (['minute', MINUTE_MS] as const)
      : distance < 36 * HOUR_MS
        ? (['hour', HOUR_MS] as const)
        : (['day', DAY_MS] as const);
  const count = Math.round(distance / size);
  const amount = `${count} ${unit}${count === 1 ? '' : 's'}`;
  return future ? `in ${amount}` : `${amount} ago`;
}

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** An audit or row time as a date, or `undefined` when it is not one. */
function dateOf(at: unknown): Date | undefined {
  if (typeof at !== 'number') return undefined;
  const date = new Date(at);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** A stored time as text: `formatTime`, or a note saying it is no valid time. */
export function shownTime(at: unknown): string {
  return dateOf(at) === undefined ? `not a valid time (${describe(at)})` : formatTime(at as number);
}

/**
 * A stored time as HTML: `<time datetime="<ISO 8601>">` around `formatTime` (the exact instant
 * stays in the element and its tooltip), with `relativeTime` to `now` when given.
 */
export function timeHtml(at: unknown, now?: number): Html {
  const date = dateOf(at);
  if (date === undefined) return html`${shownTime(at)}`;
  const iso = date.toISOString();
  const relative =
    now === undefined
      ? ''
      : html` <span class="relative">(${relativeTime(date.getTime(), now)})</span>`;
  return html`<time datetime="${iso}" title="${iso}">${formatTime(date.getTime())}</time>${relative}`;
}

/** A table cell with the time; `bad-time` marks one that is no date. */
export function timeCell(at: unknown, className?: string): Html {
  const classes = [className, dateOf(at) === undefined ? 'bad-time' : undefined].filter(
    (name) => name !== undefined,
  );
  return classes.length === 0
    ? html`<td>${timeHtml(at)}</td>`
    : html`<td class="${classes.join(' ')}">${timeHtml(at)}</td>`;
}
