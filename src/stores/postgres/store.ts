/** The PostgreSQL ask store: many hosts share asks, answers and deadlines through one database. */
import postgres, { type Sql } from 'postgres';
import type { AskAuditEvent } from '../../engine/audit.js';
import type { AskListFilter, AskListPage, AskListResult } from '../ask-query.js';
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
import type { WorkClaim, WorkClaimRequest } from '../work-claims.js';
import { PostgresBatch } from './batch.js';
import { PostgresChangeFeed } from './change-feed.js';
import type { PostgresConnection } from './connection.js';
import { PostgresDueClaims } from './due-claims.js';
import { migratePostgresSchema } from './migrations.js';
import { PostgresOutbox } from './outbox-claims.js';
import { OwnWrites } from './own-writes.js';
import { PostgresOwnerLeases } from './owner-leases.js';
import { PostgresPurge } from './purge.js';
import { PostgresReads } from './reads.js';
import { postgresRules } from './rule-dialect.js';
import { type PostgresSchema, postgresSchema } from './schema.js';
import { PostgresWorkClaims } from './work-claims.js';
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
const _CLAIM_LEASE_MS = 5_000;

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
  readonly #schema: PostgresSchema;
  readonly #changes: PostgresChangeFeed;
  readonly #reads: PostgresReads;
  readonly #writes: PostgresWritePath;
  readonly #due: PostgresDueClaims;
  readonly #outbox: PostgresOutbox;
  readonly #leases: PostgresOwnerLeases;
  readonly #purge: PostgresPurge;
  readonly #work: PostgresWorkClaims;
  #ready: Promise<void> | undefined;
  #closed = false;

  constructor(sql: Sql, ownsClient: boolean, schema: string, onError: (error: unknown) => void) {
    this.#sql = sql;
    this.#ownsClient = ownsClient;
    this.#schema = postgresSchema(sql, schema);
    const db: PostgresConnection = {
      sql,
      schema: this.#schema,
      rules: postgresRules(sql),
      onError,
      open: () => this.#open(),
    };
    const own = new OwnWrites();
    this.#changes = new PostgresChangeFeed(sql, this.#schema.channel, onError, (askId) =>
      own.writing(askId),
    );
    this.#reads = new PostgresReads(db);
    this.#writes = new PostgresWritePath(db, this.#reads, this.#changes, own);
    this.#leases = new PostgresOwnerLeases(db);
    const batch = new PostgresBatch(db, this.#changes);
    this.#due = new PostgresDueClaims(db, batch, own);
    this.#outbox = new PostgresOutbox(db);
    this.#purge = new PostgresPurge(db);
    this.#work = new PostgresWorkClaims(db);
  }

  create(write: AskWrite): Promise<AskCreateResult> {
    return this.#writes.create(write);
  }

  update(write: AskWrite, expectedVersion: number): Promise<AskUpdateResult> {
    return this.#writes.update(write, expectedVersion);
  }

  append(event: AskAuditEvent): Promise<void> {
    return this.#writes.append(event);
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

  purge(finalBefore: number, limit: number, now: number): Promise<number> {
    return this.#purge.purge(finalBefore, limit, now);
  }

  acknowledgeSettled(askId: string, owner: string): Promise<void> {
    return this.#leases.acknowledgeSettled(askId, owner);
  }

  claimDue(
    now: number,
    limit: number,
    settle: (ask: StoredAsk) => AskWrite | undefined,
  ): Promise<AskWrite[]> {
    return this.#due.claimDue(now, limit, settle);
  }

  claimOutbox(
    now: number,
    limit: number,
    leaseMs: number,
    channels: readonly string[],
  ): Promise<ClaimedOutboxEntry[]> {
    return this.#outbox.claim(now, limit, leaseMs, channels);
  }

  takeOutbox(
    sender: string,
    deliveryIds: readonly string[],
    now: number,
  ): Promise<ClaimedOutboxEntry[]> {
    return this.#outbox.take(sender, deliveryIds, now);
  }

  completeOutbox(deliveryId: string, at: number, event?: AskAuditEvent): Promise<boolean> {
    return this.#outbox.complete(deliveryId, at, event);
  }

  retryOutbox(deliveryId: string, retryAt: number): Promise<void> {
    return this.#outbox.retry(deliveryId, retryAt);
  }

  renewOutbox(deliveryId: string, attempts: number, until: number): Promise<boolean> {
    return this.#outbox.renew(deliveryId, attempts, until);
  }

  renewOwnerLease(owner: string, until: number): Promise<void> {
    return this.#leases.renew(owner, until);
  }

  releaseOwnerLease(owner: string): Promise<void> {
    return this.#leases.release(owner);
  }

  ownerLeaseUntil(owner: string): Promise<number | undefined> {
    return this.#leases.until(owner);
  }

  claimWork(request: WorkClaimRequest, now: number): Promise<WorkClaim> {
    return this.#work.claim(request, now);
  }

  renewWork(key: string, holder: string, until: number, now: number): Promise<boolean> {
    return this.#work.renew(key, holder, until, now);
  }

  finishWork(key: string, holder: string, at: number): Promise<boolean> {
    return this.#work.finish(key, holder, at);
  }

  releaseWork(key: string, holder: string): Promise<boolean> {
    return this.#work.release(key, holder);
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
    this.#ready ??= migratePostgresSchema(this.#sql, this.#schema.name).catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    await this.#ready;
    return this.#sql;
  }
}
