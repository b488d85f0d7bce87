/**
 * One description of a table's columns, from which a store builds its statements and its row
 * readers: each column names its SQL type, how a row's value is written to it and how it is read
 * back. A store checks only that each column parses into its field (the engine checks what the
 * fields mean); a column that does not is refused with an error naming the ask and the column.
 */
import {
  type AskAuditEventType,
  type AskState,
  isAskState,
  isAuditEventType,
} from '../engine/audit.js';
import { describe } from '../rules/describe.js';
import {
  type AskListResult,
  QUERY_NAMES,
  type QueryName,
  type UnreadableAsk,
} from './ask-query.js';
import { FIXED_AT_CREATE, UNLISTED_FIELDS } from './ask-row.js';
import type { ListedAsk, StoredAsk } from './ask-store.js';

/** A column of a table holding rows of type `TRow` (an ask, or an audit event). */
export interface Column<TRow> {
  /** Its name in SQL (quoted where the dialect needs it: `"key"`). */
  readonly column: string;
  /** Its SQL type, as the table declares it. */
  readonly type: string;
  /** The row's field it holds; absent for a column that only helps read the others. */
  readonly field?: keyof TRow & string;
  /** What `list` reads from it, if anything (a filter, or the creation time it orders by). */
  readonly query?: QueryName;
  /** The SQL expression a written value is bound in (default `?`). */
  readonly placeholder?: string;
  /** The SQL expression that reads it back, named as the column (default the column). */
  readonly select?: string;
  /** The value bound for `row`. */
  write(row: TRow): unknown;
  /**
   * The field's value from what the database returned (`undefined` leaves the field absent);
   * `other(column)` reads another column of the same row. Throws `ColumnFault` when the value
   * does not parse.
   */
  read(value: unknown, other: (column: string) => unknown): unknown;
}

/** Why a column's value does not parse, without the ask or the column (the reader adds them). */
export class ColumnFault extends Error {
  constructor(expected: string, value: unknown) {
    super(`${expected}, got ${describeStored(value)}`);
  }
}

/** A column of an ask that does not parse: the row is not used. */
export class CorruptAskRowError extends Error {
  override name = 'CorruptAskRowError';
  constructor(
    readonly askId: string,
    readonly column: string,
    detail: string,
    readonly store = 'PostgreSQL',
  ) {
    super(
      `Ask ${askId} in the ${store} store has a corrupt "${column}" column (${detail}); it was not used. Repair or delete the row.`,
    );
  }
}

/**
 * Reads one row through its columns. `value(column)` is the database's value of a column;
 * `table` prefixes the column in errors (`ask_events.at`), `askId` and `store` name the row.
 */
export function readRow<TRow>(
  columns: readonly Column<TRow>[],
  value: (column: string) => unknown,
  askId: string,
  where: { store: string; table?: string },
): TRow {
  const row: Record<string, unknown> = {};
  for (const column of columns) {
    if (column.field === undefined) continue;
    let parsed: unknown;
    try {
      parsed = column.read(value(column.column), value);
    } catch (error) {
      if (!(error instanceof ColumnFault)) throw error;
      const name = unquoted(column.column);
      throw new CorruptAskRowError(
        askId,
        where.table === undefined ? name : `${where.table}.${name}`,
        error.message,
        where.store,
      );
    }
    if (parsed !== undefined) row[column.field] = parsed;
  }
  return row as TRow;
}

/** The columns' names, comma-separated, for a statement. */
export function columnList<TRow>(columns: readonly Column<TRow>[], prefix = ''): string {
  return columns.map((column) => `${prefix}${column.column}`).join(', ');
}

/** The column of each thing a `list` query reads (every one must have its column). */
export function queryColumns<TRow>(columns: readonly Column<TRow>[]): Record<QueryName, string> {
  const found = {} as Record<QueryName, string>;
  for (const name of QUERY_NAMES) {
    const column = columns.find((each) => each.query === name);
    if (column === undefined) throw new Error(`No column answers the list query's ${name}.`);
    found[name] = column.column;
  }
  return found;
}

/**
 * The columns an update writes, from a store's ask columns: all but those fixed at create
 * (`FIXED_AT_CREATE`, from the row's description), so an update neither sends nor rewrites them
 * (nor their indexes). Throws when a column fixed at create is missing from `columns`: a renamed
 * column would otherwise be rewritten by every update without a word.
 */
export function updatedColumns(
  columns: readonly Column<StoredAsk>[],
): readonly Column<StoredAsk>[] {
  const names = new Set(columns.map((column) => unquoted(column.column)));
  const missing = [...FIXED_AT_CREATE].filter((name) => !names.has(name));
  if (missing.length > 0) {
    throw new Error(`No column ${missing.join(', ')} among the ask columns fixed at create.`);
  }
  return columns.filter((column) => !FIXED_AT_CREATE.has(unquoted(column.column)));
}

/**
 * The columns `list` reads, from a store's ask columns: all but the fields the description
 * leaves unlisted (`UNLISTED_FIELDS`: the snapshot, and what only helps read it, and the
 * attachment), with the session and agent columns read into fields of their own.
 */
export function listedColumns(columns: readonly Column<StoredAsk>[]): readonly Column<ListedAsk>[] {
  const listed: Column<ListedAsk>[] = [];
  for (const column of columns) {
    if (column.query === 'sessionId' || column.query === 'agent') {
      listed.push({ ...column, field: column.query, read: readOptionalText } as Column<ListedAsk>);
    } else if (
      column.field !== undefined &&
      !(UNLISTED_FIELDS as readonly string[]).includes(column.field)
    ) {
      listed.push(column as unknown as Column<ListedAsk>);
    }
  }
  return listed;
}

/** What a SELECT lists to read the columns (a column's own `select` where it has one). */
export function selectList<TRow>(columns: readonly Column<TRow>[]): string {
  return columns.map((column) => column.select ?? column.column).join(', ');
}

/** Where the written values go, in column order (a column's own `placeholder` where it has one). */
export function placeholderList<TRow>(columns: readonly Column<TRow>[]): string {
  return columns.map((column) => column.placeholder ?? '?').join(', ');
}

// ── readers shared by the dialects: what "parses" means for each kind of field ──

export function readText(value: unknown): string {
  if (typeof value !== 'string' || value === '')
    throw new ColumnFault('not a non-empty text', value);
  return value;
}

export function readOptionalText(value: unknown): string | undefined {
  return value === null ? undefined : readText(value);
}

export function readState(value: unknown): AskState {
  if (!isAskState(value)) throw new ColumnFault('not an ask state', value);
  return value;
}

export function readEventType(value: unknown): AskAuditEventType {
  if (!isAuditEventType(value)) throw new ColumnFault('not an audit event type', value);
  return value;
}

export function readPositiveInteger(value: unknown): number {
  const number = toNumber(value);
  if (!Number.isInteger(number) || number < 1) {
    throw new ColumnFault('not a positive integer', value);
  }
  return number;
}

export function readTime(value: unknown): number {
  const number = toNumber(value);
  if (!Number.isFinite(number)) throw new ColumnFault('not a time', value);
  return number;
}

export function readOptionalTime(value: unknown): number | undefined {
  return value === null ? undefined : readTime(value);
}

/** A JSON object or array: parsed from text (`json` true) or as the driver gave it (jsonb). */
export function readJson(value: unknown, shape: 'object' | 'array', json: boolean): unknown {
  let parsed = value;
  if (json) {
    if (typeof value !== 'string') throw new ColumnFault('not JSON text', value);
    try {
      parsed = JSON.parse(value);
    } catch (error) {
      throw new ColumnFault(`not JSON (${(error as Error).message})`, value);
    }
  }
  const isArray = Array.isArray(parsed);
  if (shape === 'array' ? !isArray : isArray || typeof parsed !== 'object' || parsed === null) {
    throw new ColumnFault(`not a JSON ${shape}`, parsed);
  }
  return parsed;
}

function toNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  return Number.NaN;
}

function unquoted(column: string): string {
  return column.replace(/^"(.*)"$/, '$1');
}

/** A stored value in an error: short, and as JSON where it is JSON. */
function describeStored(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') {
    return String(value);
  }
  if (typeof value === 'object' && value !== null) {
    const text = JSON.stringify(value) ?? String(value);
    return text.length > 80 ? `${text.slice(0, 77)}...` : text;
  }
  return describe(value);
}

/**
 * The page of a durable store's rows read in list order (`pageOf`'s rows): each read with
 * `read`; a row with a corrupt column (`CorruptAskRowError`) is left out and named in
 * `unreadable`, so one bad row does not hide the others.
 */
export function readListedPage<TRow>(
  page: { rows: TRow[]; cursor?: string },
  read: (row: TRow) => ListedAsk,
): AskListResult<ListedAsk> {
  const items: ListedAsk[] = [];
  const unreadable: UnreadableAsk[] = [];
  for (const row of page.rows) {
    try {
      items.push(read(row));
    } catch (error) {
      if (!(error instanceof CorruptAskRowError)) throw error;
      unreadable.push({ askId: error.askId, problem: error.message });
    }
  }
  const result: AskListResult<ListedAsk> = { items };
  if (page.cursor !== undefined) result.cursor = page.cursor;
  if (unreadable.length > 0) result.unreadable = unreadable;
  return result;
}
