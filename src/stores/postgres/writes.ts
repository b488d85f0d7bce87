/**
 * The PostgreSQL store's single writes (`create`, `update`) as statements with one typed
 * parameter per column: the server parses each value once, by its column's type, instead of
 * unpacking a JSON recordset (whose setup alone costs more than the row's write). Each text is
 * built once per store and shape, and prepared once per connection.
 */
import { droppedAtSettle, waitsForSettle } from '../ask-rules-sql.js';
import type { AskWrite } from '../ask-store.js';
import { outboxRowStart, outboxRowsOf } from '../outbox.js';
import type { Column } from '../row-columns.js';
import { ASK_COLUMNS, UPDATED_COLUMNS, WRITTEN_EVENT_COLUMNS } from './rows.js';
import { POSTGRES_TEXT_RULES } from './rule-dialect.js';

/** A statement's text and its parameters, for `sql.unsafe(text, params, { prepare: true })`. */
export interface WriteStatement {
  text: string;
  params: unknown[];
}

/** Where the writes go: the quoted tables and the NOTIFY channel. */
export interface WriteTables {
  asks: string;
  events: string;
  outbox: string;
  /** The ids of purged asks, never given to a new ask. */
  purged: string;
  channel: string;
}

export const OUTBOX_COLUMNS =
  'delivery_id, ask_id, channel, due_at, while_open, payload, attempts, claimed_until, claimed_by';
export const OUTBOX_TYPES =
  'delivery_id text, ask_id text, channel text, due_at double precision, while_open boolean, payload jsonb, attempts integer, claimed_until double precision, claimed_by text';

/** The outbox rows of `writes`, as `jsonb_to_recordset` reads them (`OUTBOX_TYPES`). */
export function outboxRecords(writes: readonly AskWrite[]): Record<string, unknown>[] {
  return writes.flatMap((write) =>
    outboxRowsOf(write).map((row) => {
      const start = outboxRowStart(row);
      return {
        delivery_id: row.deliveryId,
        ask_id: row.askId,
        channel: row.channel,
        due_at: row.dueAt ?? null,
        while_open: row.whileOpen,
        payload: row.payload ?? null,
        attempts: start.attempts,
        claimed_until: start.claimedUntil,
        claimed_by: start.claimedBy ?? null,
      };
    }),
  );
}

export class PostgresWrites {
  readonly #tables: WriteTables;
  /** Statement texts by shape (with outbox rows, settling the ask). */
  readonly #updates = new Map<string, string>();
  readonly #creates = new Map<string, string>();

  constructor(tables: WriteTables) {
    this.#tables = tables;
  }

  /**
   * Inserts the ask unless its id or key is taken or its id was purged, with its event and
   * outbox rows, and notifies; returns one row (its id) when it was created.
   */
  create(write: AskWrite, outbox: readonly Record<string, unknown>[]): WriteStatement {
    const shape = outbox.length === 0 ? 'plain' : 'outbox';
    let text = this.#creates.get(shape);
    if (text === undefined) {
      const { asks, events, purged } = this.#tables;
      const askValues = placeholders(ASK_COLUMNS, 1);
      const idValue = `$${ASK_COLUMNS.findIndex((column) => column.field === 'askId') + 1}::text`;
      const eventValues = placeholders(WRITTEN_EVENT_COLUMNS, ASK_COLUMNS.length + 1);
      let next = ASK_COLUMNS.length + WRITTEN_EVENT_COLUMNS.length + 1;
      text = `
        with inserted as (
          insert into ${asks} (${names(ASK_COLUMNS)}) select ${askValues}
          where not exists (select from ${purged} where id = ${idValue})
          on conflict do nothing
          returning id, version
        ), event as (
          insert into ${events} (ask_id, ${names(WRITTEN_EVENT_COLUMNS)})
          select id, ${eventValues} from inserted
        )${outbox.length === 0 ? '' : this.#outboxInsert(next++, 'where exists (select from inserted)')}
        select id, pg_notify($${next}, id || ':' || version) from inserted`;
      this.#creates.set(shape, text);
    }
    const params = [
      ...values(ASK_COLUMNS, write.ask),
      ...values(WRITTEN_EVENT_COLUMNS, write.event),
    ];
    if (outbox.length > 0) params.push(outbox);
    params.push(this.#tables.channel);
    return { text, params };
  }

  /**
   * Replaces the ask's row if it is still at `expectedVersion`, appends the event and outbox
   * rows, settles or drops the ask's outbox entries when it becomes final, and notifies;
   * returns one row when it applied.
   */
  update(
    write: AskWrite,
    expectedVersion: number,
    outbox: readonly Record<string, unknown>[],
  ): WriteStatement {
    const { final } = write.ask;
    const shape = `${outbox.length === 0 ? 'plain' : 'outbox'}:${final ? 'final' : 'open'}`;
    let text = this.#updates.get(shape);
    if (text === undefined) {
      const { asks, events } = this.#tables;
      const assignments = UPDATED_COLUMNS.map(
        (column, index) => `${column.column} = $${index + 3}::${column.type}`,
      ).join(', ');
      const eventValues = placeholders(WRITTEN_EVENT_COLUMNS, UPDATED_COLUMNS.length + 3);
      let next = UPDATED_COLUMNS.length + WRITTEN_EVENT_COLUMNS.length + 3;
      text = `
        with updated as (
          update ${asks} a set ${assignments}, claim = null, claimed_until = null
          where a.id = $1 and a.version = $2
          returning a.id, a.version, a.updated_at
        ), event as (
          insert into ${events} (ask_id, ${names(WRITTEN_EVENT_COLUMNS)})
          select id, ${eventValues} from updated
        )${outbox.length === 0 ? '' : this.#outboxInsert(next++, 'where exists (select from updated)')}${final ? this.#outboxSettled() : ''}
        select id, pg_notify($${next}, id || ':' || version) from updated`;
      this.#updates.set(shape, text);
    }
    const params = [
      write.ask.askId,
      expectedVersion,
      ...values(UPDATED_COLUMNS, write.ask),
      ...values(WRITTEN_EVENT_COLUMNS, write.event),
    ];
    if (outbox.length > 0) params.push(outbox);
    params.push(this.#tables.channel);
    return { text, params };
  }

  #outboxInsert(parameter: number, where: string): string {
    return `, outbox as (
          insert into ${this.#tables.outbox} (${OUTBOX_COLUMNS})
          select ${OUTBOX_COLUMNS}
          from jsonb_to_recordset($${parameter}::jsonb) as o(${OUTBOX_TYPES})
          ${where}
          on conflict do nothing
        )`;
  }

  /**
   * An ask that settled: its entries waiting for that are due now, those only for an open ask go
   * (but those being sent, leased at the settle: their sender marks them done).
   */
  #outboxSettled(): string {
    const { outbox } = this.#tables;
    return `, outbox_settled as (
          update ${outbox} o set due_at = u.updated_at
          from updated u
          where o.ask_id = u.id and ${waitsForSettle(POSTGRES_TEXT_RULES, 'o')}
        ), outbox_dropped as (
          delete from ${outbox} o using updated u
          where o.ask_id = u.id and ${droppedAtSettle(POSTGRES_TEXT_RULES, 'o', 'u.updated_at')}
        )`;
  }
}

function names<TRow>(columns: readonly Column<TRow>[]): string {
  return columns.map((column) => column.column).join(', ');
}

/** `$first::type, …`: each parameter typed as its column, so every call binds the same types. */
function placeholders<TRow>(columns: readonly Column<TRow>[], first: number): string {
  return columns.map((column, index) => `$${first + index}::${column.type}`).join(', ');
}

/**
 * The parameters of `row` for `columns`, as they are: the client learns each parameter's type
 * from the prepared statement, and encodes the JSON ones itself.
 */
function values<TRow>(columns: readonly Column<TRow>[], row: TRow): unknown[] {
  return columns.map((column) => column.write(row));
}
