/**
 * The PostgreSQL store's batched write: a sweep's round of writes, each replacing a row at its
 * expected version with its event and outbox rows, in one statement of JSON parameters.
 */
import type { Sql } from 'postgres';
import { droppedAtSettle, waitsForSettle } from '../ask-rules-sql.js';
import type { AskWrite } from '../ask-store.js';
import type { Column } from '../row-columns.js';
import type { PostgresChangeFeed } from './change-feed.js';
import { json, type PostgresConnection } from './connection.js';
import { UPDATED_COLUMNS, WRITTEN_EVENT_COLUMNS } from './rows.js';
import type { Fragment } from './schema.js';
import { OUTBOX_COLUMNS, OUTBOX_TYPES, outboxRecords } from './writes.js';

/** A write and the version its ask must still be at. */
export interface VersionedWrite {
  write: AskWrite;
  expectedVersion: number;
}

export class PostgresBatch {
  readonly #db: PostgresConnection;
  readonly #changes: PostgresChangeFeed;
  /** The columns of a batch's writes, read from each write's JSON array `r`. */
  readonly #writeFields: Fragment;
  /** The event's values of a batch's writes: the row's id, then `w.e_<column>`. */
  readonly #eventValues: Fragment;
  readonly #askAssignments: Fragment;

  constructor(db: PostgresConnection, changes: PostgresChangeFeed) {
    const { sql } = db;
    this.#db = db;
    this.#changes = changes;
    // A write is a JSON array: the ask's id, the expected version, what an update writes, and
    // the event's columns but its ask id (the row's), read back under names of their own
    // (`e_at`). An array, not an object: no column name is sent once per write.
    this.#writeFields = sql.unsafe(
      [
        'r->>0 as id',
        '(r->>1)::integer as expected',
        ...UPDATED_COLUMNS.map((column, index) => elementOf(column, index + 2, column.column)),
        ...WRITTEN_EVENT_COLUMNS.map((column, index) =>
          elementOf(column, index + 2 + UPDATED_COLUMNS.length, `e_${column.column}`),
        ),
      ].join(', '),
    );
    this.#eventValues = sql.unsafe(
      `w.id, ${WRITTEN_EVENT_COLUMNS.map((column) => `w.e_${column.column}`).join(', ')}`,
    );
    this.#askAssignments = sql.unsafe(
      UPDATED_COLUMNS.map((column) => `${column.column} = w.${column.column}`).join(', '),
    );
  }

  /**
   * Applies writes that each replace a row at its expected version and append the write's
   * event, and notifies every listening store, in one statement; returns the writes applied.
   * The sweepers' locks on the asks `unlock` go in the same statement, once the rows are
   * written (and row-locked until the statement commits: a claim skips them meanwhile).
   */
  async apply(
    sql: Sql,
    writes: readonly VersionedWrite[],
    unlock: readonly string[],
  ): Promise<AskWrite[]> {
    const { asks, events, outbox: outboxTable, eventColumns, channel, lockSpace } = this.#db.schema;
    const { rules } = this.#db;
    const settledAt = rules.raw('u.updated_at');
    const outbox = outboxRecords(writes.map(({ write }) => write));
    const rows = writes.map(({ write: { ask, event }, expectedVersion }) => {
      const row: unknown[] = [ask.askId, expectedVersion];
      for (const column of UPDATED_COLUMNS) row.push(column.write(ask));
      for (const column of WRITTEN_EVENT_COLUMNS) row.push(column.write(event));
      return row;
    });
    // The limit tells the planner how many rows the array holds (it assumes 100; a plan
    // kept for a prepared statement assumes 10 for a limit it cannot see, so a single write's
    // is written out): a write then finds its ask by the key, never by a scan of every ask.
    const applied = await sql`
      with w as (
        select ${this.#writeFields} from jsonb_array_elements(${sql.json(json(rows))}::jsonb) r
        ${rows.length === 1 ? sql`limit 1` : sql`limit ${rows.length}`}
      ), updated as (
        update ${asks} a set ${this.#askAssignments}, claim = null, claimed_until = null
        from w
        where a.id = w.id and a.version = w.expected
        returning a.id, a.version, a.final, a.updated_at
      ), event as (
        insert into ${events} (${eventColumns})
        select ${this.#eventValues}
        from w join updated on updated.id = w.id
      )${
        outbox.length === 0
          ? sql``
          : sql`, outbox as (
        insert into ${outboxTable} (${sql.unsafe(OUTBOX_COLUMNS)})
        select ${sql.unsafe(OUTBOX_COLUMNS)}
        from jsonb_to_recordset(${sql.json(json(outbox))}::jsonb) as o(${sql.unsafe(OUTBOX_TYPES)})
        where o.ask_id in (select id from updated)
        on conflict do nothing
      )`
      }, outbox_settled as (
        update ${outboxTable} o set due_at = u.updated_at
        from updated u
        where u.final and o.ask_id = u.id and ${waitsForSettle(rules, 'o')}
      ), outbox_dropped as (
        delete from ${outboxTable} o using updated u
        where u.final and o.ask_id = u.id and ${droppedAtSettle(rules, 'o', settledAt)}
      )
      select id, pg_notify(${channel}, id || ':' || version) from updated
      ${
        unlock.length === 0
          ? sql``
          : sql`union all
      select null, null from (
        select count(pg_advisory_unlock(${lockSpace}, hashtext(id))) as n
        from jsonb_array_elements_text(${sql.json(json(unlock))}::jsonb) id
      ) unlocked where n < 0`
      }
    `.values();
    let done: AskWrite[];
    if (applied.length === writes.length) {
      done = writes.map(({ write }) => write);
    } else {
      const ids = new Set(applied.map((row) => row[0]));
      done = writes.filter(({ write }) => ids.has(write.ask.askId)).map(({ write }) => write);
    }
    for (const { ask, writer } of done) this.#changes.wrote(ask.askId, ask.version, writer);
    return done;
  }
}

/** Element `index` of a write's JSON array `r`, as `column`'s type, named `name`. */
function elementOf<TRow>(column: Column<TRow>, index: number, name: string): string {
  if (column.type === 'jsonb') return `nullif(r->${index}, 'null') as ${name}`;
  if (column.type === 'text') return `r->>${index} as ${name}`;
  return `(r->>${index})::${column.type} as ${name}`;
}
