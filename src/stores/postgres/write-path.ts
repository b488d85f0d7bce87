/**
 * The PostgreSQL store's single writes: `create`, `update` (each one statement of typed
 * parameters, see `PostgresWrites`) and `append`, and what each reports when it did not apply.
 */
import type { Sql } from 'postgres';
import type { AskAuditEvent } from '../../engine/audit.js';
import { notInsertedAnswer } from '../ask-create.js';
import type { AskCreateResult, AskUpdateResult, AskWrite, StoredAsk } from '../ask-store.js';
import type { PostgresChangeFeed } from './change-feed.js';
import { isUniqueViolation, json, type PostgresConnection, refuseNul } from './connection.js';
import { quoteIdentifier } from './migrations.js';
import type { OwnWrites } from './own-writes.js';
import type { PostgresReads } from './reads.js';
import { EVENT_COLUMNS, recordOf } from './rows.js';
import { outboxRecords, PostgresWrites } from './writes.js';

export class PostgresWritePath {
  readonly #db: PostgresConnection;
  readonly #reads: PostgresReads;
  readonly #changes: PostgresChangeFeed;
  readonly #own: OwnWrites;
  readonly #writes: PostgresWrites;

  constructor(
    db: PostgresConnection,
    reads: PostgresReads,
    changes: PostgresChangeFeed,
    own: OwnWrites,
  ) {
    this.#db = db;
    this.#reads = reads;
    this.#changes = changes;
    this.#own = own;
    const s = quoteIdentifier(db.schema.name);
    this.#writes = new PostgresWrites({
      asks: `${s}.asks`,
      events: `${s}.ask_events`,
      outbox: `${s}.ask_outbox`,
      purged: `${s}.ask_purged`,
      channel: db.schema.channel,
    });
  }

  create(write: AskWrite): Promise<AskCreateResult> {
    return this.#own.track(write.ask.askId, this.#create(write));
  }

  update(write: AskWrite, expectedVersion: number): Promise<AskUpdateResult> {
    return this.#own.track(write.ask.askId, this.#update(write, expectedVersion));
  }

  async append(event: AskAuditEvent): Promise<void> {
    const sql = await this.#db.open();
    const { asks, events, eventColumns, eventTypes } = this.#db.schema;
    // Only this store writes events: an existence check in the statement does what a foreign
    // key would, without a key lookup per event in every sweep. Its key-share lock keeps a
    // concurrent `purge` off the ask until the event is in (purge skips locked asks), and an
    // ask purged first is not found: no event is left without its ask.
    const [[appended] = []] = await refuseNul(
      event.askId,
      sql`
        insert into ${events} (${eventColumns})
        select ${eventColumns}
        from jsonb_to_recordset(${sql.json(json([recordOf(EVENT_COLUMNS, event)]))}::jsonb)
          as w(${eventTypes})
        where exists (select from ${asks} where id = ${event.askId} for key share)
        returning 1
      `.values(),
    );
    if (appended === undefined) {
      throw new Error(`Cannot append an audit event to unknown ask ${event.askId}.`);
    }
  }

  async #create(write: AskWrite): Promise<AskCreateResult> {
    const { ask } = write;
    const sql = await this.#db.open();
    const { text, params } = this.#writes.create(write, outboxRecords([write]));
    const inserted = await refuseNul(
      ask.askId,
      sql.unsafe(text, params as never[], { prepare: true }).values(),
    );
    if (inserted.length === 1) {
      this.#changes.wrote(ask.askId, ask.version, write.writer);
      return { created: true };
    }
    const existing = await this.#reads.select(
      ask.key === undefined
        ? sql`where id = ${ask.askId}`
        : sql`where id = ${ask.askId} or key = ${ask.key} order by id = ${ask.askId} desc limit 1`,
    );
    // Each fact is read only while the ones before it leave the answer open.
    const retired =
      existing === undefined &&
      (await sql`select from ${this.#db.schema.purged} where id = ${ask.askId}`.values()).length >
        0;
    // `on conflict do nothing` also yields to the open-interaction index, which the contract
    // does not let `create` report: a new ask is never created deferred by the service.
    const holder =
      existing === undefined && !retired ? await this.#openHolder(sql, ask) : undefined;
    return notInsertedAnswer(ask, { existing, retired, holder });
  }

  /** The open ask, other than `ask`, that holds `ask`'s interaction id, if any. */
  async #openHolder(sql: Sql, ask: StoredAsk): Promise<string | undefined> {
    const [holder] = await sql`
      select id from ${this.#db.schema.asks}
      where interaction_id = ${ask.interactionId ?? null} and not final and id <> ${ask.askId}
    `.values();
    return holder === undefined ? undefined : String(holder[0]);
  }

  async #update(write: AskWrite, expectedVersion: number): Promise<AskUpdateResult> {
    const sql = await this.#db.open();
    const { ask } = write;
    for (;;) {
      try {
        if (await refuseNul(ask.askId, this.#applyOne(sql, write, expectedVersion))) {
          return { ok: true };
        }
        return { ok: false, reason: 'version', current: await this.#reads.get(ask.askId) };
      } catch (error) {
        if (!isUniqueViolation(error, 'asks_open_interaction_id')) throw error;
        const holder = await this.#openHolder(sql, ask);
        if (holder !== undefined) return { ok: false, reason: 'interaction-id', holder };
        // The holder settled between our write and this read: the interaction id is free now.
      }
    }
  }

  /** Applies one write as a statement of typed parameters; true when it applied. */
  async #applyOne(sql: Sql, write: AskWrite, expectedVersion: number): Promise<boolean> {
    const { text, params } = this.#writes.update(write, expectedVersion, outboxRecords([write]));
    const applied = await sql.unsafe(text, params as never[], { prepare: true }).values();
    if (applied.length === 0) return false;
    this.#changes.wrote(write.ask.askId, write.ask.version, write.writer);
    return true;
  }
}
