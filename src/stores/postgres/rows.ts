/**
 * The PostgreSQL store's rows: its column tables, built from the stored ask's description
 * (ask-row.ts) in PostgreSQL's dialect, from which the statements (insert, the update's
 * recordset, selects) and the readers are built. A row someone edited
 * by hand or a column that does not parse is refused with an error naming the ask and the
 * column, never handed to a service.
 */
import type { AskAuditEvent } from '../../engine/audit.js';
import { ASK_COPIES, ASK_ROW, EVENT_COPIES, EVENT_ROW } from '../ask-row.js';
import type { ClaimedOutboxAsk, ListedAsk, StoredAsk } from '../ask-store.js';
import { describedColumns, type SqlDialect } from '../described-columns.js';
import { claimedAskColumns } from '../outbox.js';
import {
  type Column,
  ColumnFault,
  CorruptAskRowError,
  listedColumns,
  readRow,
  updatedColumns,
} from '../row-columns.js';

export { CorruptAskRowError } from '../row-columns.js';

const STORE = 'PostgreSQL';

/** How PostgreSQL keeps each kind of value: native booleans and jsonb. */
export const POSTGRES_DIALECT: SqlDialect = {
  store: STORE,
  types: {
    text: 'text',
    state: 'text',
    version: 'integer',
    time: 'double precision',
    flag: 'boolean',
    object: 'jsonb',
    array: 'jsonb',
    'event-type': 'text',
    'from-state': 'text',
  },
  jsonAsText: false,
  quote: (column) => column,
  writeFlag: (flag) => flag,
  readFlag: (value) => {
    if (typeof value !== 'boolean') throw new ColumnFault('not a boolean', value);
    return value;
  },
};

/** The `asks` columns the store writes and reads (the sweeper's `claim` columns are its own). */
export const ASK_COLUMNS: readonly Column<StoredAsk>[] = describedColumns(
  POSTGRES_DIALECT,
  ASK_ROW,
  ASK_COPIES,
);

/** The columns an update writes (`updatedColumns`: all but those fixed at create). */
export const UPDATED_COLUMNS = updatedColumns(ASK_COLUMNS);

/** The `ask_events` columns (the `id` that orders them is the database's). */
export const EVENT_COLUMNS: readonly Column<AskAuditEvent>[] = describedColumns(
  POSTGRES_DIALECT,
  EVENT_ROW,
  EVENT_COPIES,
);

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
