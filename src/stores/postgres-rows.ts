/**
 * The PostgreSQL store's rows, described once per table: the statements (insert, the update's
 * recordset, selects) and the readers are built from these column tables. A row someone edited
 * by hand or a column that does not parse is refused with an error naming the ask and the
 * column, never handed to a service.
 */
import { type AskAuditEvent, isAskState, isAuditEventType } from '../engine/audit.js';
import { notifiedRecipientOf, QUERY_VALUES } from './ask-query.js';
import type { ClaimedOutboxAsk, ListedAsk, StoredAsk } from './ask-store.js';
import { claimedAskColumns } from './outbox.js';
import {
  type Column,
  ColumnFault,
  CorruptAskRowError,
  listedColumns,
  readJson,
  readOptionalText,
  readOptionalTime,
  readPositiveInteger,
  readRow,
  readText,
  readTime,
  updatedColumns,
} from './row-columns.js';

export { CorruptAskRowError } from './row-columns.js';

const STORE = 'PostgreSQL';

/** The `asks` columns the store writes and reads (the sweeper's `claim` columns are its own). */
export const ASK_COLUMNS: readonly Column<StoredAsk>[] = [
  { column: 'id', type: 'text', field: 'askId', write: (ask) => ask.askId, read: readText },
  {
    column: 'state',
    type: 'text',
    field: 'state',
    query: 'state',
    write: (ask) => ask.state,
    read: readState,
  },
  {
    column: 'version',
    type: 'integer',
    field: 'version',
    write: (ask) => ask.version,
    read: readPositiveInteger,
  },
  {
    column: 'snapshot',
    type: 'jsonb',
    field: 'snapshot',
    write: (ask) => ask.snapshot,
    read: (value) => readJson(value, 'object', false),
  },
  {
    column: 'questions',
    type: 'jsonb',
    field: 'questions',
    write: (ask) => ask.questions,
    read: (value) => readJson(value, 'array', false),
  },
  {
    column: 'outcome',
    type: 'jsonb',
    field: 'outcome',
    write: (ask) => ask.outcome ?? null,
    read: (value) => (value === null ? undefined : readJson(value, 'object', false)),
  },
  {
    column: 'interaction_id',
    type: 'text',
    field: 'interactionId',
    write: (ask) => ask.interactionId ?? null,
    read: readOptionalText,
  },
  {
    column: 'key',
    type: 'text',
    field: 'key',
    query: 'key',
    write: (ask) => ask.key ?? null,
    read: readOptionalText,
  },
  {
    column: 'deadline_at',
    type: 'double precision',
    field: 'deadlineAt',
    write: (ask) => ask.deadlineAt ?? null,
    read: readOptionalTime,
  },
  {
    column: 'owner',
    type: 'text',
    field: 'owner',
    write: (ask) => ask.owner ?? null,
    read: readOptionalText,
  },
  {
    column: 'final',
    type: 'boolean',
    field: 'final',
    write: (ask) => ask.final,
    read: (value) => {
      if (typeof value !== 'boolean') throw new ColumnFault('not a boolean', value);
      return value;
    },
  },
  {
    column: 'created_at',
    type: 'double precision',
    field: 'createdAt',
    query: 'createdAt',
    write: (ask) => ask.createdAt,
    read: readTime,
  },
  {
    column: 'updated_at',
    type: 'double precision',
    field: 'updatedAt',
    query: 'updatedAt',
    write: (ask) => ask.updatedAt,
    read: readTime,
  },
  {
    // What the caller kept with the ask (\`start\`'s \`attachment\`); written at create only.
    column: 'attachment',
    type: 'jsonb',
    field: 'attachment',
    write: (ask) => ask.attachment ?? null,
    read: (value) => (value === null ? undefined : readJson(value, 'object', false)),
  },
  // Copies of what the snapshot holds, for `list` to find through an index; read from the
  // snapshot, never from here.
  {
    column: 'session_id',
    type: 'text',
    query: 'sessionId',
    write: (ask) => QUERY_VALUES.sessionId(ask) ?? null,
    read: () => undefined,
  },
  {
    column: 'agent',
    type: 'text',
    query: 'agent',
    write: (ask) => QUERY_VALUES.agent(ask) ?? null,
    read: () => undefined,
  },
  // Who answered, which the outcome holds: read from the outcome, never from here.
  {
    column: 'answered_by',
    type: 'text',
    query: 'answeredBy',
    write: (ask) => QUERY_VALUES.answeredBy(ask) ?? null,
    read: () => undefined,
  },
];

/** The columns an update writes (`updatedColumns`: all but those fixed at create). */
export const UPDATED_COLUMNS = updatedColumns(ASK_COLUMNS);

/** The `ask_events` columns (the `id` that orders them is the database's). */
export const EVENT_COLUMNS: readonly Column<AskAuditEvent>[] = [
  {
    column: 'ask_id',
    type: 'text',
    field: 'askId',
    write: (event) => event.askId,
    read: readText,
  },
  {
    column: 'at',
    type: 'double precision',
    field: 'at',
    write: (event) => event.at,
    read: readTime,
  },
  {
    column: 'type',
    type: 'text',
    field: 'type',
    write: (event) => event.type,
    read: (value) => {
      if (!isAuditEventType(value)) throw new ColumnFault('not an audit event type', value);
      return value;
    },
  },
  {
    column: 'from_state',
    type: 'text',
    field: 'from',
    write: (event) => event.from,
    read: (value, other) => {
      if (other('type') !== 'start') return readState(value);
      if (value !== null) throw new ColumnFault('a start event has no previous state', value);
      return null;
    },
  },
  {
    column: 'to_state',
    type: 'text',
    field: 'to',
    write: (event) => event.to,
    read: readState,
  },
  {
    column: 'data',
    type: 'jsonb',
    field: 'data',
    write: (event) => event.data,
    read: (value) => readJson(value, 'object', false),
  },
  // The recipient a notification event names, for `list`'s `notified` filter to find through
  // an index; the event's data holds it, so it is read from there, never from here.
  {
    column: 'recipient',
    type: 'text',
    write: (event) => notifiedRecipientOf(event) ?? null,
    read: () => undefined,
  },
];

/** The event's columns but its ask id, which a write takes from the ask row it wrote. */
export const WRITTEN_EVENT_COLUMNS: readonly Column<AskAuditEvent>[] = EVENT_COLUMNS.filter(
  (column) => column.column !== 'ask_id',
);

/** Reads an `asks` row selected as values in `ASK_COLUMNS` order. */
export function parseAskRow(values: readonly unknown[]): StoredAsk {
  const id = values[0];
  if (typeof id !== 'string' || id === '') throw new CorruptAskRowError(String(id), 'id', 'empty');
  return readRow(ASK_COLUMNS, valuesOf(ASK_COLUMNS, values), id, { store: STORE });
}

/** What `list` selects: every column of a row but its snapshot, and the session and agent. */
export const LISTED_COLUMNS = listedColumns(ASK_COLUMNS);

/** Reads an `asks` row selected as values in `LISTED_COLUMNS` order. */
export function parseListedRow(values: readonly unknown[]): ListedAsk {
  const id = values[0];
  if (typeof id !== 'string' || id === '') throw new CorruptAskRowError(String(id), 'id', 'empty');
  return readRow(LISTED_COLUMNS, valuesOf(LISTED_COLUMNS, values), id, { store: STORE });
}

/** What a claim reads of an outbox entry's ask (`ClaimedOutboxEntry.ask`). */
export const CLAIMED_ASK_COLUMNS = claimedAskColumns(ASK_COLUMNS);

/** Reads an `asks` row selected as values in `CLAIMED_ASK_COLUMNS` order. */
export function parseClaimedAskRow(values: readonly unknown[]): ClaimedOutboxAsk {
  const id = values[0];
  if (typeof id !== 'string' || id === '') throw new CorruptAskRowError(String(id), 'id', 'empty');
  return readRow(CLAIMED_ASK_COLUMNS, valuesOf(CLAIMED_ASK_COLUMNS, values), id, { store: STORE });
}

/** Reads an `ask_events` row selected as values in `EVENT_COLUMNS` order. */
export function parseEventRow(values: readonly unknown[]): AskAuditEvent {
  return readRow(EVENT_COLUMNS, valuesOf(EVENT_COLUMNS, values), String(values[0]), {
    store: STORE,
    table: 'ask_events',
  });
}

/** One object per write for `jsonb_to_recordset`, keyed by column; `extra` adds columns. */
export function recordOf<TRow>(
  columns: readonly Column<TRow>[],
  row: TRow,
  into: Record<string, unknown> = {},
): Record<string, unknown> {
  for (const column of columns) into[column.column] = column.write(row);
  return into;
}

/** `name type, …` for a recordset's column definition list. */
export function recordsetTypes<TRow>(columns: readonly Column<TRow>[]): string {
  return columns.map((column) => `${column.column} ${column.type}`).join(', ');
}

function readState(value: unknown) {
  if (!isAskState(value)) throw new ColumnFault('not an ask state', value);
  return value;
}

const positions = new WeakMap<readonly Column<never>[], Map<string, number>>();

/** A row selected as values, read by column name (positions computed once per table). */
function valuesOf<TRow>(columns: readonly Column<TRow>[], values: readonly unknown[]) {
  let index = positions.get(columns as readonly Column<never>[]);
  if (index === undefined) {
    index = new Map(columns.map((column, position) => [column.column, position]));
    positions.set(columns as readonly Column<never>[], index);
  }
  const found = index;
  return (column: string) => values[found.get(column) as number];
}
