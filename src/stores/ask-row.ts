/**
 * The stored ask described once, whatever the database: each field of a row (`StoredAsk`) and
 * of its audit events (`AskAuditEvent`) names its column, the kind of value it holds, whether it
 * may be absent, whether it is fixed when the ask is created and what `list` reads from it. The
 * SQL stores build their columns, statements and readers from it (`askColumns`, `eventColumns`
 * with a dialect, row-columns.ts), and the engine builds the stored-row check from it
 * (`StoredAskSchema` in engine/stored-ask-check.ts). A field added to `StoredAsk` fails the
 * type check here until it is described; a new column is then this one edit plus a migration
 * per dialect, which test/stores/row-description.test.ts checks against the description.
 */
import type { AskAuditEvent } from '../engine/audit.js';
import { notifiedRecipientOf, QUERY_VALUES, type QueryName } from './ask-query.js';
import type { StoredAsk } from './ask-store.js';

/** What a column holds, whatever type a dialect stores it as (`SqlDialect.types`). */
export type RowKind =
  /** A non-empty text. */
  | 'text'
  /** One of the machine's states (`ASK_STATES`). */
  | 'state'
  /** A positive integer, 1 when created. */
  | 'version'
  /** A time in milliseconds since the epoch. */
  | 'time'
  /** True or false. */
  | 'flag'
  /** A JSON object. */
  | 'object'
  /** A JSON array. */
  | 'array'
  /** An audit event type (`AUDIT_EVENT_TYPES`). */
  | 'event-type'
  /** The state an event left: none for the ask's start event, a state for any other. */
  | 'from-state';

/** One stored field: its column (unquoted), its kind and how it is written. */
export interface RowField {
  readonly column: string;
  readonly kind: RowKind;
  /** NULL in the column: the field is absent. */
  readonly optional?: true;
  /** Written when the ask is created and never again (an update neither sends nor rewrites it). */
  readonly fixed?: true;
  /** What `list` reads from it (a filter, or the creation time it orders by). */
  readonly query?: QueryName;
  /** Left out of what `list` returns (`ListedAsk`): too large to list, read with `get`. */
  readonly unlisted?: true;
}

/**
 * A column that copies what the row holds elsewhere (the snapshot, the outcome, an event's
 * data), for `list` to find through an index: written from the row, never read back.
 */
export interface CopiedField<TRow> extends RowField {
  readonly optional: true;
  copy(row: TRow): string | undefined;
}

/** A description of every field of `TRow`: `optional` exactly where the field is. */
type Described<TRow> = {
  readonly [F in keyof TRow]-?: RowField &
    ({} extends Pick<TRow, F> ? { readonly optional: true } : { readonly optional?: never });
};

/** The `asks` row, field by field, in column order. */
export const ASK_ROW = {
  askId: { column: 'id', kind: 'text', fixed: true },
  state: { column: 'state', kind: 'state', query: 'state' },
  version: { column: 'version', kind: 'version' },
  snapshot: { column: 'snapshot', kind: 'object', unlisted: true },
  questions: { column: 'questions', kind: 'array', fixed: true },
  outcome: { column: 'outcome', kind: 'object', optional: true },
  interactionId: { column: 'interaction_id', kind: 'text', optional: true },
  key: { column: 'key', kind: 'text', optional: true, fixed: true, query: 'key' },
  deadlineAt: { column: 'deadline_at', kind: 'time', optional: true },
  owner: { column: 'owner', kind: 'text', optional: true },
  final: { column: 'final', kind: 'flag' },
  createdAt: { column: 'created_at', kind: 'time', fixed: true, query: 'createdAt' },
  updatedAt: { column: 'updated_at', kind: 'time', query: 'updatedAt' },
  // What the caller kept with the ask (`start`'s `attachment`).
  attachment: { column: 'attachment', kind: 'object', optional: true, fixed: true, unlisted: true },
} as const satisfies Described<StoredAsk>;

/** The fields of a row `list` leaves out (`unlisted`). */
export type UnlistedField = {
  [F in keyof typeof ASK_ROW]: (typeof ASK_ROW)[F] extends { unlisted: true } ? F : never;
}[keyof typeof ASK_ROW];

export const UNLISTED_FIELDS: readonly UnlistedField[] = (
  Object.keys(ASK_ROW) as (keyof typeof ASK_ROW)[]
).filter((field): field is UnlistedField => 'unlisted' in ASK_ROW[field]);

/** The `asks` columns that copy what the row holds, for `list`'s filters. */
export const ASK_COPIES: readonly CopiedField<StoredAsk>[] = [
  // The session and agent the snapshot's context holds, which no transition changes.
  {
    column: 'session_id',
    kind: 'text',
    optional: true,
    fixed: true,
    query: 'sessionId',
    copy: QUERY_VALUES.sessionId,
  },
  {
    column: 'agent',
    kind: 'text',
    optional: true,
    fixed: true,
    query: 'agent',
    copy: QUERY_VALUES.agent,
  },
  // Who answered, which the outcome holds (as a person's key).
  {
    column: 'answered_by',
    kind: 'text',
    optional: true,
    query: 'answeredBy',
    copy: QUERY_VALUES.answeredBy,
  },
];

/** An `ask_events` row, field by field, in column order (the event's own id is the table's). */
export const EVENT_ROW = {
  askId: { column: 'ask_id', kind: 'text' },
  at: { column: 'at', kind: 'time' },
  type: { column: 'type', kind: 'event-type' },
  from: { column: 'from_state', kind: 'from-state' },
  to: { column: 'to_state', kind: 'state' },
  data: { column: 'data', kind: 'object' },
} as const satisfies Described<AskAuditEvent>;

/** The `ask_events` columns that copy what an event holds, for `list`'s `notified` filter. */
export const EVENT_COPIES: readonly CopiedField<AskAuditEvent>[] = [
  // The recipient a notification event names (as a person's key).
  { column: 'recipient', kind: 'text', optional: true, copy: notifiedRecipientOf },
];

/** The `asks` columns fixed at create, by name: an update neither sends nor rewrites them. */
export const FIXED_AT_CREATE: ReadonlySet<string> = new Set(
  [...Object.values(ASK_ROW), ...ASK_COPIES]
    .filter((field: RowField) => field.fixed === true)
    .map((field) => field.column),
);
