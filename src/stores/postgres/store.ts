/** The PostgreSQL ask store: many hosts share asks, answers and deadlines through one database. */
import postgres, { type Sql } from 'postgres';
import type { AskAuditEvent } from '../../engine/audit.js';
import {
  type AskListFilter,
  type AskListPage,
  type AskListResult,
  checkPurge,
} from '../ask-query.js';
import type {
  AskCreateResult,
  AskStore,
  AskStoreChange,
  AskSubscribeOptions,
  AskUpdateResult,
  AskWrite,
  ClaimedOutboxEntry,
  ListedAsk,
  StoredAsk,
} from '../ask-store.js';
import { subscriberWriter } from '../change-fanout.js';
import { checkOutboxClaim, checkOutboxRenew, checkOutboxTake } from '../outbox.js';
import { checkOwnerLease } from '../owner-lease.js';
import {
  CorruptAskRowError,
  EVENT_COLUMNS,
  parseAskRow,
  parseClaimedAskRow,
  recordOf,
} from '../postgres-rows.js';
import {
  checkClaimKey,
  checkWorkClaim,
  type WorkClaim,
  type WorkClaimRequest,
} from '../work-claims.js';
import { PostgresBatch } from './batch.js';
import { PostgresChangeFeed } from './change-feed.js';
import type { PostgresConnection } from './connection.js';
import { isConnectionLost, json, retryRead } from './connection.js';
import { migratePostgresSchema } from './migrations.js';
import { OwnWrites } from './own-writes.js';
import { PostgresReads } from './reads.js';
import { postgresSchema } from './schema.js';
import { claimWorkIn, finishWorkIn, releaseWorkIn, renewWorkIn } from './work-claims.js';
import { PostgresWritePath } from './write-path.js';

/** How the PostgreSQL store reaches the database: a connection string, or your own client. */
export type PostgresAskStoreConnection =
  /** The store opens its own connections (and closes them on `close()`). */
  | { connectionString: string }
  /**
   * A `postgres` (porsager) client of yours; `close()` stops the store's listener, not your
   * client. Create it with `fetch_types: false` (as the store does for its own): otherwise the
   * client looks up array types after every connect, and a connection cut during that lookup
   * rejects a promise the client holds itself, which the store cannot catch.
   */
  | { sql: Sql };

/** Options of `createPostgresAskStore`: schema, connection pool size and an error hook. */
export interface PostgresAskStoreOptions {
  /** The schema holding the store's tables, created and migrated on first use. Default `ask_engine`. */
  schema?: string;
  /** Most connections the store opens from a `connectionString` (one more listens). Default 10. */
  max?: number;
  /**
   * Called with what the store could not hand to anyone: a change listener that threw, a due
   * ask whose row is corrupt (the sweeper leaves it and goes on), a history event that does
   * not parse (left out of the history, which is read on), a notification it could not read,
   * a listener connection that failed. Default `console.error`.
   */
  onError?: (error: unknown) => void;
}

const DEFAULT_SCHEMA = 'ask_engine';
const DEFAULT_MAX_CONNECTIONS = 10;
const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,57}$/;
/** How long a due ask a sweeper could not read, or declined, is left for the asks after it. */
const CLAIM_LEASE_MS = 5_000;

/**
 * Creates the store for many hosts: every write is one statement (conditional update, its
 * audit event and a NOTIFY, atomically), due asks are claimed with `FOR UPDATE SKIP LOCKED`
 * and an advisory lock held until their timeouts are written (so the store needs session
 * connections, as its LISTEN does, not a pooler's transaction mode), and every store
 * listening on the schema's channel hears every write within milliseconds.
 *
 * @example
 * import { createPostgresAskStore } from 'ask-engine/postgres';
 * const store = createPostgresAskStore({ connectionString: process.env.DATABASE_URL! });
 * const service = createInteractionService({ store });
 */
export function createPostgresAskStore(
  connection: PostgresAskStoreConnection,
  options: PostgresAskStoreOptions = {},
): AskStore {
  const schema = options.schema ?? DEFAULT_SCHEMA;
  if (typeof schema !== 'string' || !SCHEMA_NAME.test(schema)) {
    throw new TypeError(
      `Expected \`schema\` to be a PostgreSQL name of letters, digits and underscores (at most 58, not starting with a digit), got ${JSON.stringify(schema)}.`,
    );
  }
  const max = options.max ?? DEFAULT_MAX_CONNECTIONS;
  if (!Number.isInteger(max) || max < 1) {
    throw new TypeError(`Expected \`max\` to be an integer from 1 and up, got ${String(max)}.`);
  }
  const onError = options.onError ?? ((error: unknown) => console.error(error));
  if (typeof onError !== 'function') {
    throw new TypeError(`Expected \`onError\` to be a function, got ${typeof onError}.`);
  }
  if (typeof connection !== 'object' || connection === null) {
    throw new TypeError(
      `Expected { connectionString } or { sql } for the PostgreSQL ask store, got ${String(connection)}.`,
    );
  }
  if ('sql' in connection) {
    const { sql } = connection;
    if (
      typeof sql !== 'function' ||
      typeof sql.begin !== 'function' ||
      typeof sql.listen !== 'function'
    ) {
      throw new TypeError(
        'Expected `sql` to be a client created by `postgres()` (porsager/postgres).',
      );
    }
    return new PostgresAskStore(sql, false, schema, onError);
  }
  const { connectionString } = connection as { connectionString?: unknown };
  if (typeof connectionString !== 'string' || connectionString === '') {
    throw new TypeError(
      `Expected \`connectionString\` to be a PostgreSQL URL such as postgres://user@host:5432/db, got ${JSON.stringify(connectionString)}.`,
    );
  }
  // No array type lookup on connect: the client runs it unasked after every (re)connect, and a
  // connection cut during it rejects a promise nobody holds (an unhandled rejection, which
  // ends a process). The store binds no array parameters.
  const sql = postgres(connectionString, { max, onnotice: () => {}, fetch_types: false });
  return new PostgresAskStore(sql, true, schema, onError);
}

class PostgresAskStore implements AskStore {
  /** A sweep waits on the database server: the sweeper sizes its rounds by CPU time. */
  readonly remote = true;
  readonly #sql: Sql;
  readonly #ownsClient: boolean;
  readonly #schema: string;
  readonly #onError: (error: unknown) => void;
  /** The NOTIFY channel: one per schema, so stores on other schemas do not hear each other. */
  readonly #channel: string;
  readonly #asks: ReturnType<Sql['unsafe']>;
  readonly #events: ReturnType<Sql['unsafe']>;
  readonly #askColumns: ReturnType<Sql['unsafe']>;
  /** What a claimed outbox entry carries of its ask. */
  readonly #claimedAskColumns: ReturnType<Sql['unsafe']>;
  readonly #eventColumns: ReturnType<Sql['unsafe']>;
  readonly #eventTypes: ReturnType<Sql['unsafe']>;
  readonly #outbox: ReturnType<Sql['unsafe']>;
  /** The ids of purged asks (tombstones): never given to a new ask. */
  readonly #purged: ReturnType<Sql['unsafe']>;
  readonly #leases: ReturnType<Sql['unsafe']>;
  readonly #claims: ReturnType<Sql['unsafe']>;
  readonly #changes: PostgresChangeFeed;
  readonly #reads: PostgresReads;
  readonly #own: OwnWrites;
  readonly #batch: PostgresBatch;
  readonly #writePath: PostgresWritePath;
  /** The first key of the sweepers' advisory locks on this schema's asks (the second: the ask's). */
  readonly #lockSpace: ReturnType<Sql['unsafe']>;
  #ready: Promise<void> | undefined;
  /** Corrupt due asks already reported (id:version), so a sweep every second does not repeat them. */
  readonly #reported = new Set<string>();
  #closed = false;

  constructor(sql: Sql, ownsClient: boolean, schema: string, onError: (error: unknown) => void) {
    this.#sql = sql;
    this.#ownsClient = ownsClient;
    this.#schema = schema;
    this.#onError = onError;
    const names = postgresSchema(sql, schema);
    this.#channel = names.channel;
    this.#asks = names.asks;
    this.#events = names.events;
    this.#outbox = names.outbox;
    this.#purged = names.purged;
    this.#leases = names.leases;
    this.#claims = names.claims;
    this.#askColumns = names.askColumns;
    this.#claimedAskColumns = names.claimedAskColumns;
    this.#eventColumns = names.eventColumns;
    this.#eventTypes = names.eventTypes;
    this.#lockSpace = names.lockSpace;
    const db: PostgresConnection = { sql, schema: names, onError, open: () => this.#open() };
    const own = new OwnWrites();
    this.#own = own;
    this.#changes = new PostgresChangeFeed(sql, names.channel, onError, (askId) =>
      own.writing(askId),
    );
    this.#reads = new PostgresReads(db);
    this.#batch = new PostgresBatch(sql, names, this.#changes);
    this.#writePath = new PostgresWritePath(db, this.#reads, this.#changes, own);
  }

  create(write: AskWrite): Promise<AskCreateResult> {
    return this.#writePath.create(write);
  }

  update(write: AskWrite, expectedVersion: number): Promise<AskUpdateResult> {
    return this.#writePath.update(write, expectedVersion);
  }

  append(event: AskAuditEvent): Promise<void> {
    return this.#writePath.append(event);
  }

  get(askId: string): Promise<StoredAsk | undefined> {
    return this.#reads.get(askId);
  }

  findByInteractionId(interactionId: string): Promise<StoredAsk | undefined> {
    return this.#reads.findByInteractionId(interactionId);
  }

  findByKey(key: string): Promise<StoredAsk | undefined> {
    return this.#reads.findByKey(key);
  }

  history(askId: string): AsyncIterable<AskAuditEvent> {
    return this.#reads.history(askId);
  }

  list(filter?: AskListFilter, page?: AskListPage): Promise<AskListResult<ListedAsk>> {
    return this.#reads.list(filter, page);
  }

  async purge(finalBefore: number, limit: number, now: number): Promise<number> {
    checkPurge(finalBefore, limit, now);
    const sql = await this.#open();
    // One statement per batch: rows another transaction holds (an `append` of a late answer
    // takes a key-share lock on its ask) are skipped, and left for the next purge, as are asks
    // whose live owner has not heard of their settle (the row still names it).
    const purged = await sql`
      with doomed as (
        select id from ${this.#asks} a
        where final and updated_at < ${finalBefore} and ${this.#noLiveOwner(now)}
        order by updated_at limit ${limit}
        for update skip locked
      ), events as (
        delete from ${this.#events} where ask_id in (select id from doomed)
      ), outbox as (
        delete from ${this.#outbox} where ask_id in (select id from doomed)
      ), claims as (
        delete from ${this.#claims} where ask_id in (select id from doomed)
      ), retired as (
        insert into ${this.#purged} (id) select id from doomed on conflict do nothing
      )
      delete from ${this.#asks} where id in (select id from doomed) returning id
    `.values();
    return purged.length;
  }

  async acknowledgeSettled(askId: string, owner: string): Promise<void> {
    checkOwnerLease(owner);
    const sql = await this.#open();
    // Not a transition: the version stays and no NOTIFY is sent.
    await sql`
      update ${this.#asks} set owner = null where id = ${askId} and final and owner = ${owner}
    `;
  }

  /**
   * True for an ask (alias `a`) that names no owner, or one whose lease does not run past
   * `now`: the one rule by which `claimDue` leaves a pending ask to its live owner and `purge`
   * a final one its live owner has not heard settle.
   */
  #noLiveOwner(now: number) {
    return this.#sql`(a.owner is null or not exists (
      select from ${this.#leases} l where l.owner = a.owner and l.lease_until > ${now}))`;
  }

  claimDue(
    now: number,
    limit: number,
    settle: (ask: StoredAsk) => AskWrite | undefined,
  ): Promise<AskWrite[]> {
    // The asks claimed are known once each round's claim returns: news of their writes waits
    // for the whole sweep's promise (one for the sweep, not one per ask).
    return this.#own.sweep((claimed) => this.#claimDue(now, limit, settle, claimed));
  }

  async #claimDue(
    now: number,
    limit: number,
    settle: (ask: StoredAsk) => AskWrite | undefined,
    claimed: (askId: string) => void,
  ): Promise<AskWrite[]> {
    // Declined asks keep their lease (see below), so each round reaches further: the loop
    // ends when `limit` writes are applied or no due ask is left unclaimed.
    const applied: AskWrite[] = [];
    for (;;) {
      const round = await this.#claimRound(now, limit - applied.length, settle, claimed);
      applied.push(...round.applied);
      if (round.claimed === 0 || applied.length >= limit) return applied;
    }
  }

  async #claimRound(
    now: number,
    limit: number,
    settle: (ask: StoredAsk) => AskWrite | undefined,
    claimed: (askId: string) => void,
  ): Promise<{ claimed: number; applied: AskWrite[] }> {
    const sql = await this.#open();
    // Not an interactive transaction (postgres 3.4.9 crashes the process when a transaction's
    // connection is cut: it writes ROLLBACK to a closed socket, porsager/postgres#1208): the
    // claim is one statement that takes a session advisory lock on each due ask it returns,
    // on a connection reserved for the round, so concurrent sweepers take disjoint asks; the
    // locks go once the round's writes are in, or with the connection if it is cut. Each
    // write is still applied only at the version read, so a sweeper that read an ask just
    // before another one's write committed can never time it out twice. A lock writes
    // nothing, where a lease written into each row cost a second row version per ask.
    // Due asks are taken in deadline order, skipping rows being written right now (SKIP
    // LOCKED), and locked one by one until `limit` are held: `offset 0` keeps the lock out of
    // the scan (no condition is pushed into a subquery with an offset), so every ask locked
    // is one the claim returns, and is unlocked after the round.
    const session = await sql.reserve();
    // A reserved connection that was cut is back in the client's pool already, to be
    // connected again: it is not used, nor released, once a query on it met the cut.
    let cut = false;
    const noting = (error: unknown) => {
      cut ||= isConnectionLost(error);
      throw error;
    };
    let locked: unknown[][] = [];
    try {
      locked = await session`
        select ${this.#askColumns} from (
          select ${this.#askColumns} from ${this.#asks} a
          where not final and deadline_at <= ${now}
            and (claimed_until is null or claimed_until < clock_timestamp())
            and ${this.#noLiveOwner(now)}
          order by deadline_at
          offset 0
          for update skip locked
        ) due
        where pg_try_advisory_lock(${this.#lockSpace}, hashtext(id))
        limit ${limit}
      `
        .values()
        .catch(noting);
      const round = await this.#settleClaimed(session, locked, settle, claimed).catch(noting);
      // The round's write released the locks; a round with nothing to write did not.
      if (round.applying) locked = [];
      return round;
    } finally {
      if (locked.length > 0 && !cut) {
        await session`
          select pg_advisory_unlock(${this.#lockSpace}, hashtext(id))
          from jsonb_array_elements_text(${sql.json(json(locked.map((row) => row[0])))}::jsonb) id
        `.catch((error: unknown) => {
          cut ||= isConnectionLost(error);
          if (!cut) this.#onError(error);
        });
      }
      if (!cut) session.release();
    }
  }

  /**
   * Settles the claimed rows and applies their writes; a row that cannot be read, or that
   * `settle` declines, is leased for a few seconds, so this and the next sweeps reach the asks
   * after it instead of meeting it again first.
   */
  async #settleClaimed(
    sql: Sql,
    rows: readonly unknown[][],
    settle: (ask: StoredAsk) => AskWrite | undefined,
    claimed: (askId: string) => void,
  ): Promise<{ claimed: number; applied: AskWrite[]; applying: boolean }> {
    if (rows.length === 0) return { claimed: 0, applied: [], applying: false };
    for (const row of rows) claimed(String(row[0]));
    const asks: StoredAsk[] = [];
    const declined: string[] = [];
    for (const row of rows) {
      try {
        asks.push(parseAskRow(row));
      } catch (error) {
        this.#reportCorrupt(row, error);
        declined.push(String(row[0]));
      }
    }
    asks.sort((a, b) => (a.deadlineAt as number) - (b.deadlineAt as number));
    const writes: { write: AskWrite; expectedVersion: number }[] = [];
    for (const ask of asks) {
      const write = settle(ask);
      if (write !== undefined) writes.push({ write, expectedVersion: ask.version });
      else declined.push(ask.askId);
    }
    if (declined.length > 0) {
      await sql`
        update ${this.#asks}
        set claim = ${globalThis.crypto.randomUUID()},
          claimed_until = clock_timestamp() + ${`${CLAIM_LEASE_MS} milliseconds`}::interval
        where id in (select jsonb_array_elements_text(${sql.json(declined)}::jsonb))
      `;
    }
    if (writes.length === 0) return { claimed: rows.length, applied: [], applying: false };
    const unlock = rows.map((row) => String(row[0]));
    const applied = await this.#batch.apply(sql, writes, unlock);
    return { claimed: rows.length, applied, applying: true };
  }

  async claimOutbox(
    now: number,
    limit: number,
    leaseMs: number,
    channels: readonly string[],
  ): Promise<ClaimedOutboxEntry[]> {
    checkOutboxClaim(now, limit, leaseMs, channels);
    const sql = await this.#open();
    // One statement: due rows are locked with SKIP LOCKED and leased, so senders claiming at
    // the same moment take disjoint rows, and a row leased by one is not due for the other.
    // How an ask ended waits while a message about the open ask is being sent (leased).
    // Each comes with what the sender needs of its ask, so it reads nothing more.
    const rows = await sql`
      update ${this.#outbox} o
      set attempts = o.attempts + 1, claimed_until = ${now + leaseMs}, claimed_by = null
      from ${this.#asks} a
      where a.id = o.ask_id and o.delivery_id = any(array(
        select delivery_id from ${this.#outbox} c
        where done_at is null and due_at <= ${now} and claimed_until <= ${now}
          and channel in (select jsonb_array_elements_text(${sql.json(json(channels))}::jsonb))
          and (while_open or not exists (
            select from ${this.#outbox} w
            where w.ask_id = c.ask_id and w.while_open and w.done_at is null
              and w.claimed_until > ${now}
          ))
        order by due_at limit ${limit}
        for update skip locked
      ))
      returning o.delivery_id, o.ask_id, o.channel, o.due_at, o.while_open, o.payload, o.attempts,
        ${this.#claimedAskColumns}
    `.values();
    return this.#claimedEntries(rows);
  }

  async takeOutbox(
    sender: string,
    deliveryIds: readonly string[],
    now: number,
  ): Promise<ClaimedOutboxEntry[]> {
    checkOutboxTake(sender, deliveryIds, now);
    if (deliveryIds.length === 0) return [];
    const sql = await this.#open();
    const rows = await sql`
      select o.delivery_id, o.ask_id, o.channel, o.due_at, o.while_open, o.payload, o.attempts,
        ${this.#claimedAskColumns}
      from ${this.#outbox} o join ${this.#asks} a on a.id = o.ask_id
      where o.delivery_id in (select jsonb_array_elements_text(${sql.json(json(deliveryIds))}::jsonb))
        and o.claimed_by = ${sender} and o.done_at is null and o.claimed_until > ${now}
    `.values();
    return this.#claimedEntries(rows);
  }

  /** Claimed or taken rows as their senders get them, earliest first; a corrupt ask is reported. */
  #claimedEntries(rows: readonly unknown[][]): ClaimedOutboxEntry[] {
    const claimed: ClaimedOutboxEntry[] = [];
    for (const [deliveryId, askId, channel, dueAt, whileOpen, payload, attempts, ...ask] of rows) {
      try {
        claimed.push({
          deliveryId: String(deliveryId),
          askId: String(askId),
          channel: String(channel),
          dueAt: Number(dueAt),
          ...(whileOpen === true ? { whileOpen: true } : {}),
          payload: payload as unknown,
          attempts: Number(attempts),
          ask: parseClaimedAskRow(ask),
        });
      } catch (error) {
        // An ask row that cannot be read is reported; its entry waits out its lease.
        if (!(error instanceof CorruptAskRowError)) throw error;
        this.#onError(error);
      }
    }
    return claimed.sort((a, b) => a.dueAt - b.dueAt);
  }

  async completeOutbox(deliveryId: string, at: number, event?: AskAuditEvent): Promise<boolean> {
    const sql = await this.#open();
    const events = event === undefined ? [] : [recordOf(EVENT_COLUMNS, event)];
    // The entry and its audit event in one statement: done once, audited once.
    const [[done] = []] = await sql`
      with done as (
        update ${this.#outbox} set done_at = ${at}, claimed_until = 0
        where delivery_id = ${deliveryId} and done_at is null
        returning ask_id
      ), event as (
        insert into ${this.#events} (${this.#eventColumns})
        select ${this.#eventColumns}
        from jsonb_to_recordset(${sql.json(json(events))}::jsonb) as w(${this.#eventTypes})
        where exists (select from done)
          and exists (select from ${this.#asks} where id = w.ask_id for key share)
      )
      select count(*)::int from done
    `.values();
    return done === 1;
  }

  async retryOutbox(deliveryId: string, retryAt: number): Promise<void> {
    const sql = await this.#open();
    await sql`
      update ${this.#outbox} set due_at = ${retryAt}, claimed_until = 0, claimed_by = null
      where delivery_id = ${deliveryId} and done_at is null
    `;
  }

  async renewOutbox(deliveryId: string, attempts: number, until: number): Promise<boolean> {
    checkOutboxRenew(deliveryId, attempts, until);
    const sql = await this.#open();
    // A claim at the same moment locks the row first (and counts a new try) or finds it leased.
    const { count } = await sql`
      update ${this.#outbox} set claimed_until = greatest(claimed_until, ${until})
      where delivery_id = ${deliveryId} and attempts = ${attempts} and done_at is null
        and claimed_until > 0
    `;
    return count > 0;
  }

  async renewOwnerLease(owner: string, until: number): Promise<void> {
    checkOwnerLease(owner, until);
    const sql = await this.#open();
    await sql`
      insert into ${this.#leases} (owner, lease_until) values (${owner}, ${until})
      on conflict (owner) do update set lease_until = excluded.lease_until
    `;
  }

  async releaseOwnerLease(owner: string): Promise<void> {
    checkOwnerLease(owner);
    const sql = await this.#open();
    await sql`delete from ${this.#leases} where owner = ${owner}`;
  }

  async ownerLeaseUntil(owner: string): Promise<number | undefined> {
    checkOwnerLease(owner);
    const sql = await this.#open();
    const [row] = await retryRead(() =>
      sql`select lease_until from ${this.#leases} where owner = ${owner}`.values(),
    );
    return row === undefined ? undefined : Number(row[0]);
  }

  async claimWork(request: WorkClaimRequest, now: number): Promise<WorkClaim> {
    checkWorkClaim(request, now);
    return claimWorkIn(await this.#open(), this.#claims, request, now);
  }

  async renewWork(key: string, holder: string, until: number, now: number): Promise<boolean> {
    checkClaimKey(key, holder, ['until', until], ['now', now]);
    return renewWorkIn(await this.#open(), this.#claims, key, holder, until, now);
  }

  async finishWork(key: string, holder: string, at: number): Promise<boolean> {
    checkClaimKey(key, holder, ['at', at]);
    return finishWorkIn(await this.#open(), this.#claims, key, holder, at);
  }

  async releaseWork(key: string, holder: string): Promise<boolean> {
    checkClaimKey(key, holder);
    return releaseWorkIn(await this.#open(), this.#claims, key, holder);
  }

  subscribe(listener: (change: AskStoreChange) => void, options?: AskSubscribeOptions): () => void {
    if (this.#closed) throw new Error('The PostgreSQL ask store is closed.');
    return this.#changes.subscribe(listener, subscriberWriter(options));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // Our own client's `end()` closes its listener too; a client we were given stays open.
    await this.#changes.close(!this.#ownsClient);
    if (this.#ownsClient) await this.#sql.end({ timeout: 5 });
  }

  /** The client, once the schema is migrated; a failed migration is tried again by the next call. */
  async #open(): Promise<Sql> {
    if (this.#closed) throw new Error('The PostgreSQL ask store is closed.');
    this.#ready ??= migratePostgresSchema(this.#sql, this.#schema).catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    await this.#ready;
    return this.#sql;
  }

  #reportCorrupt(row: readonly unknown[], error: unknown): void {
    const key = `${String(row[0])}:${String(row[2])}`;
    if (this.#reported.has(key)) return;
    this.#reported.add(key);
    this.#onError(error);
  }
}
