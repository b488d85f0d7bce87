/**
 * A table's columns in one database, from the stored ask's description (ask-row.ts) and the
 * database's dialect: what SQL type each kind of value is, how it is bound and how it is read
 * back. A store adds only what it keeps otherwise than its kind says (`ColumnEncoding`).
 */
import { type CopiedField, EVENT_ROW, type RowField, type RowKind } from './ask-row.js';
import {
  type Column,
  ColumnFault,
  readEventType,
  readJson,
  readOptionalText,
  readOptionalTime,
  readPositiveInteger,
  readState,
  readText,
  readTime,
} from './row-columns.js';

/** How a database spells the kinds of value a stored ask holds (`RowKind`). */
export interface SqlDialect {
  /** The store's name in errors ("SQLite"). */
  readonly store: string;
  /** The SQL type of each kind, as a table declares it. */
  readonly types: Readonly<Record<RowKind, string>>;
  /** JSON is stored as text, parsed when read (else the driver hands over parsed values). */
  readonly jsonAsText: boolean;
  /** A column's name as statements spell it (quoted where it is a keyword: `"key"`). */
  quote(column: string): string;
  /** A flag as written to its column, and read back (throws `ColumnFault`). */
  writeFlag(flag: boolean): unknown;
  readFlag(value: unknown): boolean;
}

/** How a store keeps one field otherwise than its kind says (SQLite's lean snapshot). */
export interface ColumnEncoding<TRow> {
  readonly type?: string;
  readonly placeholder?: string;
  readonly select?: string;
  readonly write?: (row: TRow) => unknown;
  readonly read?: Column<TRow>['read'];
  /** Columns that only help keep this one, right after it (never a field of their own). */
  readonly helpers?: readonly Column<TRow>[];
}

/**
 * A table's columns from its description (ask-row.ts) in `dialect`: each field in order, as its
 * kind is written and read there, then the copies `list` reads. `encodings` keep a field
 * otherwise; `omit` leaves out the fields the dialect's table keeps elsewhere.
 */
export function describedColumns<TRow>(
  dialect: SqlDialect,
  row: { readonly [F in keyof TRow]-?: RowField },
  copies: readonly CopiedField<TRow>[],
  encodings: { readonly [F in keyof TRow]?: ColumnEncoding<TRow> } = {},
  omit: readonly (keyof TRow)[] = [],
): Column<TRow>[] {
  const columns: Column<TRow>[] = [];
  for (const field of Object.keys(row) as (keyof TRow & string)[]) {
    if (omit.includes(field)) continue;
    const described: RowField = row[field];
    const own: ColumnEncoding<TRow> = encodings[field] ?? {};
    const { helpers, ...encoding } = own;
    const column: Column<TRow> = {
      column: dialect.quote(described.column),
      type: dialect.types[described.kind],
      field,
      write: writerOf(dialect, described, (each: TRow) => each[field]),
      read: readerOf(dialect, described),
      ...encoding,
    };
    columns.push(described.query === undefined ? column : { ...column, query: described.query });
    if (helpers !== undefined) columns.push(...helpers);
  }
  for (const copy of copies) {
    const column: Column<TRow> = {
      column: dialect.quote(copy.column),
      type: dialect.types[copy.kind],
      write: (each) => copy.copy(each) ?? null,
      read: () => undefined,
    };
    columns.push(copy.query === undefined ? column : { ...column, query: copy.query });
  }
  return columns;
}

/** How a field of `kind` is bound in `dialect`: absent as NULL, JSON as text where it is text. */
function writerOf<TRow>(
  dialect: SqlDialect,
  described: RowField,
  value: (row: TRow) => unknown,
): (row: TRow) => unknown {
  switch (described.kind) {
    case 'flag':
      return (row) => dialect.writeFlag(value(row) as boolean);
    case 'object':
    case 'array':
      if (dialect.jsonAsText) {
        return (row) => {
          const json = value(row);
          return json === undefined ? null : JSON.stringify(json);
        };
      }
      return (row) => value(row) ?? null;
    default:
      return (row) => value(row) ?? null;
  }
}

/** What "parses" means for a field of `kind` in `dialect` (throws `ColumnFault`). */
function readerOf<TRow>(dialect: SqlDialect, described: RowField): Column<TRow>['read'] {
  const optional = described.optional === true;
  switch (described.kind) {
    case 'text':
      return optional ? readOptionalText : readText;
    case 'time':
      return optional ? readOptionalTime : readTime;
    case 'version':
      return readPositiveInteger;
    case 'state':
      return readState;
    case 'flag':
      return (value) => dialect.readFlag(value);
    case 'event-type':
      return readEventType;
    case 'from-state': {
      const type = dialect.quote(EVENT_ROW.type.column);
      return (value, other) => {
        if (other(type) !== 'start') return readState(value);
        if (value !== null) throw new ColumnFault('a start event has no previous state', value);
        return null;
      };
    }
    case 'object':
    case 'array': {
      const shape = described.kind;
      return (value) =>
        optional && value === null ? undefined : readJson(value, shape, dialect.jsonAsText);
    }
  }
}
