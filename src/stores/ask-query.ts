/**
 * Asking a store which asks it has: the filter and page of `list`, checked once here for every
 * store (a bad field is refused with an error naming it, never dropped), the values a filter
 * reads from a row, and the opaque cursor. Newest first: by creation time, then by a tie-break
 * the store chooses (its row number or the ask id), so a cursor is a position in a total order
 * that writes made while paging never move: each ask is listed at most once.
 */
import { ASK_STATES, type AskAuditEvent, type AskState, isAskState } from '../engine/audit.js';
import { describe } from '../rules/describe.js';
import { UserInteractionError } from '../rules/errors.js';
import { canonicalPersonId, personKey } from '../rules/person-id.js';
import { checkStoreText } from '../rules/store-text.js';
import type { ListedAsk, StoredAsk } from './ask-store.js';

/** A time range in ms since the epoch (the service clock's), `from` included, `to` excluded. */
export interface AskTimeRange {
  from?: number;
  to?: number;
}

/** Which asks `list` returns; every field given must match (absent = any). */
export interface AskListFilter {
  /** One state or several (any of them). */
  state?: AskState | readonly AskState[];
  sessionId?: string;
  /** The request's `agent`. */
  agent?: string;
  /** The idempotency key. */
  key?: string;
  created?: AskTimeRange;
  /** When the row was last written (for a final ask: when it settled). */
  updated?: AskTimeRange;
  /** Who answered: the answered outcome's `answeredBy.recipient`, in any spelling of the id (`samePerson`). */
  answeredBy?: string;
  /**
   * A recipient the ask's audit trail says was told of it: a `notified`, `reminded` or
   * `escalated` event naming them (a notification `ask-engine/notify` sent). With
   * `state: ['pending', 'deferred']`, the asks waiting for that person. Any spelling of the id
   * finds them (`samePerson`).
   */
  notified?: string;
}

/** Which page of the list. */
export interface AskListPage {
  /** The `cursor` of the previous page; absent (or undefined) for the first page. */
  cursor?: string | undefined;
  /** Asks per page, 1 to 1,000. Default 50. */
  limit?: number | undefined;
}

/** One page: the asks, newest first, and the cursor of the next page when there may be more. */
export interface AskListResult<TItem> {
  items: TItem[];
  cursor?: string;
  /**
   * Rows of this page that could not be read (a corrupt column, a row that fails its check),
   * in list order, left out of `items`; absent when every row was read.
   */
  unreadable?: UnreadableAsk[];
}

/** A stored row a list left out, and why. */
export interface UnreadableAsk {
  askId: string;
  problem: string;
}

export const ASK_LIST_DEFAULT_LIMIT = 50;
export const ASK_LIST_MAX_LIMIT = 1_000;

/** Filters that match one text value of the row. */
export const EQUAL_FILTERS = ['sessionId', 'agent', 'key', 'answeredBy'] as const;
export type EqualFilter = (typeof EQUAL_FILTERS)[number];

/** Filters on a time of the row, and the row's field each reads. */
const RANGE_FILTERS = { created: 'createdAt', updated: 'updatedAt' } as const;
export type RangeField = (typeof RANGE_FILTERS)[keyof typeof RANGE_FILTERS];

const KNOWN_FILTERS: readonly string[] = [
  'state',
  ...EQUAL_FILTERS,
  ...Object.keys(RANGE_FILTERS),
  'notified',
];

/** Everything a list query reads from a row: each needs a column in a durable store. */
export type QueryName = 'state' | EqualFilter | RangeField;
export const QUERY_NAMES: readonly QueryName[] = [
  'state',
  ...EQUAL_FILTERS,
  ...Object.values(RANGE_FILTERS),
];

/**
 * The values a filter reads from a row: the one place each is read. The session and the agent
 * live in the machine's context; the durable stores copy them into columns of their own (their
 * column's `write` is this function), so a query finds them through an index.
 */
export const QUERY_VALUES: {
  readonly [F in EqualFilter]: (ask: StoredAsk) => string | undefined;
} = {
  sessionId: (ask) => contextText(ask, 'sessionId'),
  agent: (ask) => contextText(ask, 'agent'),
  key: (ask) => ask.key,
  // The key of who answered (`personKey`): the id is recorded as given, found in any spelling.
  answeredBy: (ask) => {
    const recipient =
      ask.outcome?.status === 'answered' ? ask.outcome.answeredBy?.recipient : undefined;
    return recipient === undefined ? undefined : personKey(recipient);
  },
};

/** The audit events that record a notification reaching a recipient (`notified` filters on them). */
const NOTIFICATION_EVENT_TYPES: ReadonlySet<AskAuditEvent['type']> = new Set([
  'notified',
  'reminded',
  'escalated',
]);

/**
 * The recipient an audit event says was told of the ask, or `undefined` for any other event:
 * the one place that decides what the `notified` filter finds. The durable stores copy it into
 * a column of the event's row (its column's `write` is this function), indexed by recipient.
 */
export function notifiedRecipientOf(event: AskAuditEvent): string | undefined {
  if (!NOTIFICATION_EVENT_TYPES.has(event.type)) return undefined;
  const recipient = (event.data as { recipient?: unknown } | undefined)?.recipient;
  // Its key (`personKey`), as the `notified` filter is: found in any spelling of the id.
  return typeof recipient === 'string' && recipient !== '' ? personKey(recipient) : undefined;
}

/** Where the list resumes: after this creation time and tie-break. */
export interface AskPosition<TTie extends string | number> {
  createdAt: number;
  tie: TTie;
}

/** A checked list query. */
export interface AskQuery<TTie extends string | number> {
  /** Absent: any state. Several: one ordered read per state, merged. */
  states?: readonly AskState[];
  equal: readonly { filter: EqualFilter; value: string }[];
  ranges: readonly { field: RangeField; from?: number; to?: number }[];
  /** Only asks whose audit trail records a notification to this recipient. */
  notified?: string;
  after?: AskPosition<TTie>;
  limit: number;
}

/**
 * Checks a filter and a page, as any store's `list` receives them. `tie` is the type of the
 * store's tie-break, so a cursor of another store is refused rather than misread.
 */
export function readAskQuery<TTie extends string | number>(
  filter: AskListFilter | undefined,
  page: AskListPage | undefined,
  tie: TTie extends string ? 'string' : 'number',
): AskQuery<TTie> {
  const query: {
    states?: readonly AskState[];
    equal: { filter: EqualFilter; value: string }[];
    ranges: { field: RangeField; from?: number; to?: number }[];
    notified?: string;
    after?: AskPosition<TTie>;
    limit: number;
  } = { equal: [], ranges: [], limit: ASK_LIST_DEFAULT_LIMIT };
  if (filter !== undefined) {
    if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) {
      throw invalid(
        'filter',
        filter,
        `an object { ${KNOWN_FILTERS.map((name) => `${name}?`).join(', ')} }`,
        'list',
      );
    }
    for (const name of Object.keys(filter)) {
      if (!KNOWN_FILTERS.includes(name)) {
        throw new UserInteractionError(
          'INVALID_REQUEST',
          `Unknown list filter \`${name}\`: filter by ${KNOWN_FILTERS.join(', ')}.`,
          { field: name },
        );
      }
    }
    const { state } = filter;
    if (state !== undefined) {
      const states = typeof state === 'string' ? [state] : state;
      if (
        !Array.isArray(states) ||
        states.length === 0 ||
        !states.every((each: unknown) => isAskState(each))
      ) {
        throw invalid(
          'state',
          state,
          `a state of the ask machine (${ASK_STATES.join(', ')}) or a non-empty array of them`,
        );
      }
      query.states = [...new Set(states as readonly AskState[])];
    }
    for (const name of EQUAL_FILTERS) {
      const value = filter[name];
      if (value === undefined) continue;
      if (typeof value !== 'string' || value === '')
        throw invalid(name, value, 'a non-empty string');
      checkStoreText(value, name, 'list filter');
      // A person is found by the key of their id, in whatever spelling it was recorded or asked.
      const key = name === 'answeredBy' ? canonicalPersonId(value, name) : value;
      query.equal.push({ filter: name, value: key });
    }
    for (const [name, field] of Object.entries(RANGE_FILTERS)) {
      const range = filter[name as keyof typeof RANGE_FILTERS];
      if (range === undefined) continue;
      query.ranges.push({ field, ...readRange(name, range) });
    }
    const { notified } = filter;
    if (notified !== undefined) {
      if (typeof notified !== 'string' || notified === '') {
        throw invalid('notified', notified, 'a non-empty string (a recipient id)');
      }
      checkStoreText(notified, 'notified', 'list filter');
      query.notified = canonicalPersonId(notified, 'notified');
    }
  }
  if (page !== undefined) {
    if (typeof page !== 'object' || page === null || Array.isArray(page)) {
      throw invalid('page', page, 'an object { cursor?, limit? }', 'list');
    }
    const { cursor, limit } = page;
    if (limit !== undefined) {
      if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1) {
        throw invalid('limit', limit, 'an integer from 1 and up', 'list page');
      }
      if (limit > ASK_LIST_MAX_LIMIT) {
        throw invalid(
          'limit',
          limit,
          `at most ${ASK_LIST_MAX_LIMIT} (take the next page with the cursor)`,
          'list page',
        );
      }
      query.limit = limit;
    }
    if (cursor !== undefined) query.after = decodeCursor<TTie>(cursor, tie);
  }
  return query;
}

/** The cursor that resumes the list after `position`. */
export function encodeCursor(position: AskPosition<string | number>): string {
  const bytes = new TextEncoder().encode(JSON.stringify([position.createdAt, position.tie]));
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function decodeCursor<TTie extends string | number>(
  cursor: unknown,
  tie: 'string' | 'number',
): AskPosition<TTie> {
  const refuse = () =>
    invalid(
      'cursor',
      cursor,
      'the `cursor` of a page this store listed, passed back unchanged',
      'list page',
    );
  if (typeof cursor !== 'string' || !/^[A-Za-z0-9_-]{1,2048}$/.test(cursor)) throw refuse();
  let position: unknown;
  try {
    const binary = atob(cursor.replace(/-/g, '+').replace(/_/g, '/'));
    const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
    position = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw refuse();
  }
  if (
    !Array.isArray(position) ||
    position.length !== 2 ||
    typeof position[0] !== 'number' ||
    !Number.isFinite(position[0]) ||
    typeof position[1] !== tie ||
    (tie === 'number' ? !Number.isInteger(position[1]) : position[1] === '')
  ) {
    throw refuse();
  }
  // Base64 hides it: a cursor not made by a store may still carry a NUL to the database.
  if (typeof position[1] === 'string') checkStoreText(position[1], 'cursor', 'list page');
  return { createdAt: position[0], tie: position[1] as TTie };
}

/**
 * The page from rows read in list order, one more than `limit` when there are more: the items,
 * and the cursor after the last item when the extra row says there are more.
 */
export function pageOf<TRow, TTie extends string | number>(
  rows: readonly TRow[],
  limit: number,
  position: (row: TRow) => AskPosition<TTie>,
): { rows: TRow[]; cursor?: string } {
  if (rows.length <= limit) return { rows: [...rows] };
  const kept = rows.slice(0, limit);
  return { rows: kept, cursor: encodeCursor(position(kept[limit - 1] as TRow)) };
}

/**
 * True when `ask` matches the query's filters (the memory store's reading of them); `history`
 * gives the ask's audit events, read only for the `notified` filter.
 */
export function matchesQuery(
  ask: StoredAsk,
  query: AskQuery<string | number>,
  history: () => Iterable<AskAuditEvent>,
): boolean {
  if (query.states !== undefined && !query.states.includes(ask.state)) return false;
  for (const { filter, value } of query.equal) {
    if (QUERY_VALUES[filter](ask) !== value) return false;
  }
  for (const { field, from, to } of query.ranges) {
    const time = ask[field];
    if ((from !== undefined && time < from) || (to !== undefined && time >= to)) return false;
  }
  if (query.notified !== undefined) {
    for (const event of history()) {
      if (notifiedRecipientOf(event) === query.notified) return true;
    }
    return false;
  }
  return true;
}

/** A row as `list` returns it: without its snapshot, with the session and agent it holds. */
export function listedAsk(row: StoredAsk): ListedAsk {
  const { snapshot: _snapshot, attachment: _attachment, ...listed } = row as StoredAsk & ListedAsk;
  const sessionId = QUERY_VALUES.sessionId(row);
  const agent = QUERY_VALUES.agent(row);
  if (sessionId !== undefined) listed.sessionId = sessionId;
  if (agent !== undefined) listed.agent = agent;
  return listed;
}

/** Checks `purge`'s `finalBefore`, batch `limit` and `now`, as every store receives them. */
export function checkPurge(finalBefore: unknown, limit: unknown, now: unknown): void {
  checkPurgeTime('finalBefore', finalBefore);
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1) {
    throw invalid('limit', limit, 'an integer from 1 and up', 'purge');
  }
  checkPurgeTime('now', now);
}

/** Checks one of `purge`'s times (`finalBefore`, `now`): ms since the epoch. */
export function checkPurgeTime(field: 'finalBefore' | 'now', value: unknown): void {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw invalid(field, value, 'a time in ms since the epoch', 'purge');
  }
}

function readRange(name: string, range: unknown): { from?: number; to?: number } {
  if (typeof range !== 'object' || range === null || Array.isArray(range)) {
    throw invalid(name, range, 'an object { from?, to? } of times in ms since the epoch');
  }
  const checked: { from?: number; to?: number } = {};
  for (const [bound, value] of Object.entries(range)) {
    if (bound !== 'from' && bound !== 'to') {
      throw invalid(`${name}.${bound}`, value, 'absent: a range has only `from` and `to`');
    }
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      throw invalid(`${name}.${bound}`, value, 'a time in ms since the epoch');
    }
    checked[bound] = value;
  }
  if (checked.from !== undefined && checked.to !== undefined && checked.from > checked.to) {
    throw new UserInteractionError(
      'INVALID_REQUEST',
      `Expected list filter \`${name}\` to have \`from\` (${checked.from}) at or before \`to\` (${checked.to}).`,
      { field: name },
    );
  }
  return checked;
}

function contextText(ask: StoredAsk, name: 'sessionId' | 'agent'): string | undefined {
  const context = ask.snapshot.context as Record<string, unknown> | undefined;
  const value = context?.[name];
  return typeof value === 'string' ? value : undefined;
}

/** `where`: `list filter`, `list page` or `purge`, named in the message with the field. */
function invalid(
  field: string,
  value: unknown,
  expected: string,
  where = 'list filter',
): UserInteractionError {
  return new UserInteractionError(
    'INVALID_REQUEST',
    `Expected ${where} \`${field}\` to be ${expected}, got ${describe(value)}.`,
    { field },
  );
}
