/**
 * The stored ask's description (stores/ask-row.ts) against the tables each SQL store migrates
 * to: every column of a store's tables as built from the description exists with its dialect's
 * type, NOT NULL exactly where the field may not be absent, and a table's other columns are the
 * driver's own, named here. A field described without its migration, or a migration the
 * description does not know, fails here.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPostgresAskStore } from 'ask-engine/postgres';
import { createSqliteAskStore } from 'ask-engine/sqlite';
import Database from 'better-sqlite3';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ASK_COPIES,
  ASK_ROW,
  EVENT_COPIES,
  EVENT_ROW,
  type RowField,
} from '../../src/stores/ask-row.js';
import * as pg from '../../src/stores/postgres/rows.js';
import type { Column } from '../../src/stores/row-columns.js';
import * as lite from '../../src/stores/sqlite/rows.js';
import {
  type PostgresCluster,
  postgresMissing,
  startPostgresCluster,
} from '../support/postgres-cluster.js';

/** A column as the database reports it. */
interface TableColumn {
  name: string;
  type: string;
  nullable: boolean;
}

/** What a store keeps in a table besides the described columns, and why. */
interface DriverColumns {
  /** Columns of the driver's own (a row number, a claim), by name. */
  own: readonly string[];
  /** Described fields the table keeps NULL for a reason of its own, by column. */
  nullable?: readonly string[];
}

const unquoted = (name: string) => name.replace(/^"(.*)"$/, '$1');

/** The described fields and copies of a table, by column name. */
function describedFields(
  row: Readonly<Record<string, RowField>>,
  copies: readonly RowField[],
): Map<string, RowField> {
  return new Map([...Object.values(row), ...copies].map((field) => [field.column, field]));
}

/** Where `table` differs from the columns built from the description, one line each. */
function tableDrift(
  table: string,
  columns: readonly Column<never>[],
  described: Map<string, RowField>,
  found: readonly TableColumn[],
  driver: DriverColumns,
): string[] {
  const drift: string[] = [];
  const byName = new Map(found.map((column) => [column.name, column]));
  for (const column of columns) {
    const name = unquoted(column.column);
    const actual = byName.get(name);
    if (actual === undefined) {
      drift.push(`${table}.${name} is described but the table has no such column`);
      continue;
    }
    if (actual.type.toLowerCase() !== column.type.toLowerCase()) {
      drift.push(`${table}.${name} is ${actual.type}, described as ${column.type}`);
    }
    const field = described.get(name);
    if (field === undefined) continue;
    const mayBeNull =
      field.optional === true ||
      field.kind === 'from-state' ||
      (driver.nullable ?? []).includes(name);
    if (actual.nullable !== mayBeNull) {
      drift.push(
        `${table}.${name} is ${actual.nullable ? 'nullable' : 'NOT NULL'}, described as ${mayBeNull ? 'nullable' : 'required'}`,
      );
    }
  }
  const built = new Set(columns.map((column) => unquoted(column.column)));
  for (const column of found) {
    if (!built.has(column.name) && !driver.own.includes(column.name)) {
      drift.push(`${table}.${column.name} is in the table but not described`);
    }
  }
  return drift;
}

const ASK_FIELDS = describedFields(ASK_ROW, ASK_COPIES);
const EVENT_FIELDS = describedFields(EVENT_ROW, EVENT_COPIES);

describe('the stored ask described once', () => {
  it('is every field of a row and of an event, in both dialects', () => {
    for (const columns of [lite.ASK_COLUMNS, pg.ASK_COLUMNS]) {
      const fields = columns.flatMap((column) =>
        column.field === undefined ? [] : [column.field],
      );
      expect(fields).toEqual(Object.keys(ASK_ROW));
    }
    expect(pg.EVENT_COLUMNS.map((column) => column.field).filter(Boolean)).toEqual(
      Object.keys(EVENT_ROW),
    );
  });

  it('reports a described column no migration made, and a column nobody described', () => {
    const extra = { column: 'reviewed_at', kind: 'time', optional: true } as const;
    const columns = [
      ...pg.ASK_COLUMNS,
      { column: 'reviewed_at', type: 'double precision', write: () => null, read: () => undefined },
    ] as readonly Column<never>[];
    const found: TableColumn[] = [
      ...pg.ASK_COLUMNS.map((column) => ({
        name: column.column,
        type: column.type,
        nullable: ASK_FIELDS.get(column.column)?.optional === true,
      })),
      { name: 'legacy', type: 'text', nullable: true },
    ];
    expect(
      tableDrift('asks', columns, new Map([...ASK_FIELDS, ['reviewed_at', extra]]), found, {
        own: [],
      }),
    ).toEqual([
      'asks.reviewed_at is described but the table has no such column',
      'asks.legacy is in the table but not described',
    ]);
  });
});

describe('the SQLite tables', () => {
  let folder: string;
  let db: Database.Database;
  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'ask-row-'));
    const path = join(folder, 'asks.db');
    const store = createSqliteAskStore({ path });
    await store.get('none');
    await store.close();
    db = new Database(path, { readonly: true });
  });
  afterAll(() => {
    db?.close();
    rmSync(folder, { recursive: true, force: true });
  });
  const columnsOf = (table: string): TableColumn[] =>
    (
      db.prepare(`PRAGMA table_info(${table})`).all() as {
        name: string;
        type: string;
        notnull: number;
        pk: number;
      }[]
    ).map((column) => ({ name: column.name, type: column.type, nullable: column.notnull === 0 }));

  it('asks: the described columns, and the row number of its own', () => {
    expect(
      tableDrift(
        'asks',
        lite.ASK_COLUMNS as readonly Column<never>[],
        ASK_FIELDS,
        columnsOf('asks'),
        {
          own: ['seq'],
        },
      ),
    ).toEqual([]);
  });

  it("ask_events: the described columns but the ask's id, which its ask's row number stands for", () => {
    expect(
      tableDrift(
        'ask_events',
        lite.EVENT_COLUMNS as readonly Column<never>[],
        EVENT_FIELDS,
        columnsOf('ask_events'),
        // data: NULL where the ask's row holds it (a start, a deadline, an answer).
        { own: ['id', 'ask'], nullable: ['data'] },
      ),
    ).toEqual([]);
  });
});

describe.skipIf(postgresMissing !== undefined)(
  `the PostgreSQL tables${postgresMissing ? ` (skipped: ${postgresMissing})` : ''}`,
  () => {
    let cluster: PostgresCluster;
    let sql: postgres.Sql;
    beforeAll(async () => {
      cluster = await startPostgresCluster();
      const store = createPostgresAskStore(
        { connectionString: cluster.url },
        { schema: 'described' },
      );
      await store.get('none');
      await store.close();
      sql = postgres(cluster.url, { max: 1, onnotice: () => {} });
    });
    afterAll(async () => {
      await sql?.end();
      await cluster?.destroy();
    });
    const columnsOf = async (table: string): Promise<TableColumn[]> => {
      const rows = await sql<{ column_name: string; data_type: string; is_nullable: string }[]>`
        SELECT column_name, data_type, is_nullable FROM information_schema.columns
        WHERE table_schema = 'described' AND table_name = ${table}`;
      return rows.map((row) => ({
        name: row.column_name,
        type: row.data_type,
        nullable: row.is_nullable === 'YES',
      }));
    };

    it('asks: the described columns, and the sweep claim of its own', async () => {
      expect(
        tableDrift(
          'asks',
          pg.ASK_COLUMNS as readonly Column<never>[],
          ASK_FIELDS,
          await columnsOf('asks'),
          {
            // The sweep's claim on a due ask: who holds it, until when.
            own: ['claim', 'claimed_until'],
          },
        ),
      ).toEqual([]);
    });

    it('ask_events: the described columns, and the id that orders them', async () => {
      expect(
        tableDrift(
          'ask_events',
          pg.EVENT_COLUMNS as readonly Column<never>[],
          EVENT_FIELDS,
          await columnsOf('ask_events'),
          { own: ['id'] },
        ),
      ).toEqual([]);
    });
  },
);
