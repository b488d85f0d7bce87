/** The embedded durable store: asks and their histories in one SQLite file, shared by processes. */
import { type AskAuditEvent, startDataOf } from '../../engine/audit.js';
import { afterEventLoopTurn, eventLoopTurn } from '../../engine/event-loop.js';
import { checkStoreText } from '../../rules/store-text.js';
import {
  type AskListFilter,
  type AskListPage,
  type AskListResult,
  checkPurge,
  pageOf,
  readAskQuery,
} from '../ask-query.js';
import type {
  AskCreateResult,
  AskStore,
  AskStoreChange,
  AskSubscribeOptions,
  AskUpdateResult,
  AskWrite,
  ClaimedOutboxAsk,
  ClaimedOutboxEntry,
  ListedAsk,
  StoredAsk,
} from '../ask-store.js';
import { subscriberWriter } from '../change-fanout.js';
import { WRITES_CLAIMS_BESIDE } from '../claim-lanes.js';
import { type ListDialect, listStatement } from '../list-sql.js';
import { checkOutboxClaim, checkOutboxRenew, checkOutboxTake, outboxRowsOf } from '../outbox.js';
import { checkOwnerLease } from '../owner-lease.js';
import {
  CorruptAskRowError,
  columnList,
  placeholderList,
  queryColumns,
  readListedPage,
  selectList,
} from '../row-columns.js';
import {
  ASK_COLUMNS,
  type AskRow,
  askParams,
  CLAIMED_ASK_COLUMNS,
  EVENT_COLUMNS,
  eventParams,
  impliedStartRow,
  LISTED_COLUMNS,
  readAsk,
  readClaimedAsk,
  readEvent,
  readListed,
  startStandsFor,
  UPDATED_COLUMNS,
  updateParams,
} from '../sqlite-rows.js';
import {
  checkClaimKey,
  checkWorkClaim,
  type WorkClaim,
  type WorkClaimRequest,
} from '../work-claims.js';
import {
  applyBatchPlan,
  type BatchPlan,
  type BatchResult,
  type BatchStatements,
  batchSql,
  outboxParams,
  planBatch,
  type SettledRow,
} from './batch.js';
import { SqliteChangeFeed } from './change-feed.js';
import {
  configureConnection,
  keyedHere,
  type OpenedDatabase,
  openSqliteFile,
  readTransaction,
  type SqliteDatabase,
  type SqliteStatement,
  type SqliteValue,
  unsyncedWriteTransaction,
  writeTransaction,
} from './database.js';
import {
  describe,
  readOptions,
  type Settings,
  type SqliteAskStoreOptions,
  type SqliteAskStoreSource,
} from './options.js';
import {
  EVENT_ID_HOLDER,
  LAST_EVENT_ID,
  LAST_EVENT_ID_SQL,
  migrate,
  NEXT_ASK_SEQ,
} from './schema.js';
import { claimWorkHere, type WorkClaimStatements, workClaimSql } from './work-claims.js';
import { SqliteWorker } from './worker.js';

/**
 * A claim of this many due asks or more is written by the store's worker thread (a storm of due
 * asks); a smaller one, on the store's own connection, costs less than starting a thread.
 */
const WORKER_BATCH = 16;
/** Rows a claim reads, settles and sends to the worker at a time. */
const WORKER_PART = 64;

/**
 * Asks written on the store's connection between two checkpoints it asks its worker for (a
 * write counts the asks it touched: one for a transition, each ask of a purge or a claim): about
 * 500 pages for a durable ask's commits, half of SQLite's own threshold of 1,000.
 */
const CHECKPOINT_EVERY_ASKS = 64;

/**
 * The store's connection's own checkpoint threshold while its worker checkpoints. A worker's
 * checkpoint copies the frames committed before it began; while commits go on meanwhile the WAL
 * cannot start over, so under a steady stream of writes the connection still checkpoints here,
 * copying only the little the worker has not.
 */
const BACKSTOP_CHECKPOINT_PAGES = 4_000;

interface WriteOptions<T> {
  /** Commits without waiting for the disk (`unsyncedWriteTransaction`). */
  unsynced?: boolean;
  /** How many asks the write touched; 1 when not given. */
  asks?: (result: T) => number;
}

/**
 * Where a claim's reading of due rows stands: past the last row read (deadline, deadline, row
 * number), so rows that cannot be read or that `settle` declines never block the ones after
 * them; `done` once the rows ran out or the round ran long enough.
 */
interface DueCursor {
  after: SqliteValue[];
  /** Writes collected so far, over every part. */
  settled: number;
  /** Set once the rows ran out. */
  done: boolean;
  /** Set when `enough` said the slice is spent (rows may remain). */
  sliced: boolean;
}

/** One `claimDue`: its time, its settle and enough callbacks, the rows found corrupt. */
interface DueClaim {
  now: number;
  settle: (ask: StoredAsk) => AskWrite | undefined;
  enough: (() => boolean) | undefined;
  corrupt: unknown[];
}

/** A cursor from the start of the due rows, or from where a claim in flight stopped. */
function dueCursor(from?: SqliteValue[]): DueCursor {
  return {
    after: from ?? [-Number.MAX_VALUE, -Number.MAX_VALUE, 0],
    settled: 0,
    done: false,
    sliced: false,
  };
}

/** The later of two cursor positions (deadline, deadline, row number) in the rows' order. */
function fartherPosition(a: SqliteValue[], b: SqliteValue[] | undefined): SqliteValue[] {
  if (b === undefined) return a;
  const [deadlineA, , seqA] = a as [number, number, number];
  const [deadlineB, , seqB] = b as [number, number, number];
  return deadlineB > deadlineA || (deadlineB === deadlineA && seqB > seqA) ? b : a;
}

export type { SqliteAskStoreOptions, SqliteAskStoreSource } from './options.js';

/**
 * An `AskStore` in SQLite, safe for several processes on one file: WAL journal, writes and
 * claims in `BEGIN IMMEDIATE` transactions, numbered schema migrations, and a change feed that
 * polls `PRAGMA data_version` every `pollIntervalMs` for other processes' writes.
 *
 * @example
 * import { createInteractionService } from 'ask-engine';
 * import { createSqliteAskStore } from 'ask-engine/sqlite';
 *
 * const store = createSqliteAskStore({ path: 'asks.db' });
 * const service = createInteractionService({ store });
 */
export function createSqliteAskStore(
  source: SqliteAskStoreSource,
  options: SqliteAskStoreOptions = {},
): AskStore {
  const settings = readOptions(options);
  if (typeof source !== 'object' || source === null) {
    throw new TypeError(
      `createSqliteAskStore expects { path } or { database }, got ${describe(source)}.`,
    );
  }
  if ('database' in source) {
    const { database } = source;
    if (
      typeof database?.prepare !== 'function' ||
      typeof (database as { exec?: unknown }).exec !== 'function'
    ) {
      throw new TypeError(
        `Expected \`database\` to be an open SQLite handle with prepare() and exec() (better-sqlite3, node:sqlite DatabaseSync, libsql), got ${describe(database)}.`,
      );
    }
    return new SqliteAskStore(
      Promise.resolve({ db: database, close: () => undefined }),
      'given as { database }',
      settings,
    );
  }
  if (typeof (source as { path?: unknown }).path !== 'string' || source.path === '') {
    throw new TypeError(
      `Expected \`path\` to be a non-empty file path, got ${describe((source as { path?: unknown }).path)}.`,
    );
  }
  return new SqliteAskStore(openSqliteFile(source.path), `at ${source.path}`, settings);
}

/** What `create`'s transaction returns for an id a purge retired. */
const RETIRED = Symbol('retired');

/** The statements the store runs; those a sweep's batch runs are `BatchStatements`. */
interface Statements extends BatchStatements, WorkClaimStatements {
  byId: SqliteStatement;
  byKey: SqliteStatement;
  byInteraction: SqliteStatement;
  openHolder: SqliteStatement;
  insertAsk: SqliteStatement;
  /** Whether an id belongs to a purged ask; `retire` keeps a purged ask's id. */
  retired: SqliteStatement;
  retire: SqliteStatement;
  updateAsk: SqliteStatement;
  insertEvent: SqliteStatement;
  history: SqliteStatement;
  due: SqliteStatement;
  settled: SqliteStatement;
  acknowledgeSettled: SqliteStatement;
  deleteEvents: SqliteStatement;
  lastEventId: SqliteStatement;
  holdAskSeq: SqliteStatement;
  holdEventId: SqliteStatement;
  dropEventIdHolders: SqliteStatement;
  deleteAsk: SqliteStatement;
  outboxSettled: SqliteStatement;
  outboxDropOpen: SqliteStatement;
  outboxAnyDue: SqliteStatement;
  outboxDue: SqliteStatement;
  outboxLeased: SqliteStatement;
  outboxLease: SqliteStatement;
  outboxComplete: SqliteStatement;
  outboxRetry: SqliteStatement;
  outboxRenew: SqliteStatement;
  deleteOutbox: SqliteStatement;
  renewLease: SqliteStatement;
  releaseLease: SqliteStatement;
  leaseUntil: SqliteStatement;
  /** `list` statements by their text, prepared on first use (one per filter shape). */
  lists: Map<string, SqliteStatement>;
}

const LIST_DIALECT: ListDialect = {
  table: 'asks',
  select: `seq, ${selectList(LISTED_COLUMNS)}`,
  tie: 'seq',
  columns: queryColumns(ASK_COLUMNS),
  notified: (recipient) => `seq IN (SELECT ask FROM ask_events WHERE recipient = ${recipient})`,
  placeholder: () => '?',
  rewrittenOnly: true,
};

interface Connection {
  opened: OpenedDatabase;
  statements: Statements;
}

class SqliteAskStore implements AskStore {
  readonly #where: string;
  readonly #busyTimeoutMs: number;
  readonly #onError: (error: unknown) => void;
  readonly #feed: SqliteChangeFeed;
  readonly #ready: Promise<Connection>;
  #connection: Connection | undefined;
  readonly #synchronous: Settings['synchronous'];
  /** Owner names in `ask_owners` (a service writes under one name). */
  readonly #owners = new Set<string>();
  /** Writes large sweep batches and checkpoints beside the event loop (`#liveWorker`). */
  #worker: SqliteWorker | undefined;
  /** Row numbers read by a claim and not yet written by the worker: other claims skip them. */
  readonly #inFlight = new Set<number>();
  /**
   * Where the latest claim still in flight stopped reading: a claim made meanwhile reads on
   * from there instead of reading (and skipping) the rows in flight again.
   */
  #frontier: SqliteValue[] | undefined;
  /** Claims the worker writes that are still reading their parts: `close` waits for them. */
  readonly #claims = new Set<Promise<void>>();
  /** Claims whose transaction the worker is writing (sent, not yet answered). */
  #workerWrites = 0;
  /** Writes on this store's connection waiting for those to end: they go first. */
  #ownWaiting = 0;
  #wakers: (() => void)[] = [];
  #workerFailed = false;
  /** Asks written on this store's connection since it last asked its worker for a checkpoint. */
  #asksSinceCheckpoint = 0;
  /** The connection's own checkpoint threshold, put back if the worker stops checkpointing. */
  #autocheckpointPages: number | undefined;
  #closed = false;

  constructor(opening: Promise<OpenedDatabase>, where: string, settings: Settings) {
    this.#where = where;
    this.#busyTimeoutMs = settings.busyTimeoutMs;
    this.#synchronous = settings.synchronous;
    this.#onError = settings.onError;
    this.#feed = new SqliteChangeFeed(settings.pollIntervalMs, settings.onError);
    this.#ready = opening.then((opened) => {
      try {
        configureConnection(opened.db, settings);
        migrate(opened.db, where);
        const connection = { opened, statements: prepare(opened.db) };
        if (this.#closed) {
          opened.close();
        } else {
          this.#connection = connection;
          this.#feed.attach(opened.db);
        }
        return connection;
      } catch (error) {
        opened.close();
        throw error;
      }
    });
    // Failing to open is reported by the first call that needs the database.
    this.#ready.catch(() => undefined);
  }

  /** Large claims go to the worker thread: a file this store opened, while its worker can run. */
  get [WRITES_CLAIMS_BESIDE](): boolean {
    return this.#connection?.opened.path !== undefined && !this.#workerFailed;
  }

  async create(write: AskWrite): Promise<AskCreateResult> {
    const { opened, statements } = await this.#openToWrite();
    const { ask, event } = write;
    let eventId: number | undefined;
    let seq: number | undefined;
    const named: string[] = [];
    const existing = this.#write(opened, () => {
      this.#owner(statements, ask, named);
      const inserted = statements.insertAsk.run(...askParams(ask), ask.askId);
      if (Number(inserted.changes) === 0) {
        const found = (statements.byId.get(ask.askId) ??
          (ask.key === undefined ? undefined : statements.byKey.get(ask.key))) as
          | AskRow
          | undefined;
        if (found !== undefined) return readAsk(found);
        if (statements.retired.get(ask.askId) !== undefined) return RETIRED;
        throw new Error(
          `Cannot create ask ${ask.askId}: interaction id ${ask.interactionId} belongs to ask ${this.#holder(statements, ask)}, which is not final.`,
        );
      }
      seq = rowId(inserted);
      // Most starts are the row's own (schema version 10): the history reads them from it.
      if (!startStandsFor(event, ask)) {
        eventId = rowId(statements.insertEvent.run(...eventParams(event, ask), ask.askId));
      }
      queue(statements, write);
      return undefined;
    });
    this.#named(named);
    if (existing === RETIRED) return { created: false, retired: true };
    if (existing !== undefined) return { created: false, existing };
    this.#feed.written(ask.askId, ask.version, eventId, write.writer, seq);
    return { created: true };
  }

  async update(write: AskWrite, expectedVersion: number): Promise<AskUpdateResult> {
    const { opened, statements } = await this.#openToWrite();
    const { ask, event } = write;
    let eventId: number | undefined;
    const named: string[] = [];
    const result = this.#write(opened, (): AskUpdateResult => {
      let changes: number;
      try {
        this.#owner(statements, ask, named);
        changes = Number(
          statements.updateAsk.run(...updateParams(ask), ask.askId, expectedVersion).changes,
        );
      } catch (error) {
        if (!isOpenInteractionConflict(error)) throw error;
        return { ok: false, reason: 'interaction-id', holder: this.#holder(statements, ask) };
      }
      if (changes === 0) {
        const current = statements.byId.get(ask.askId) as AskRow | undefined;
        return { ok: false, reason: 'version', current: current && readAsk(current) };
      }
      eventId = rowId(statements.insertEvent.run(...eventParams(event, ask), ask.askId));
      queue(statements, write);
      return { ok: true };
    });
    this.#named(named);
    if (result.ok) this.#feed.written(ask.askId, ask.version, eventId, write.writer);
    return result;
  }

  async append(event: AskAuditEvent): Promise<void> {
    const { statements } = await this.#openToWrite();
    const { changes } = statements.insertEvent.run(...eventParams(event), event.askId);
    if (Number(changes) === 0) {
      throw new Error(`Cannot append an audit event to unknown ask ${event.askId}.`);
    }
  }

  async get(askId: string): Promise<StoredAsk | undefined> {
    checkStoreText(askId, 'askId');
    const { statements } = await this.#open();
    return readOptional(statements.byId.get(askId));
  }

  async findByInteractionId(interactionId: string): Promise<StoredAsk | undefined> {
    checkStoreText(interactionId, 'interactionId');
    const { statements } = await this.#open();
    return readOptional(statements.byInteraction.get(interactionId));
  }

  async findByKey(key: string): Promise<StoredAsk | undefined> {
    checkStoreText(key, 'key');
    const { statements } = await this.#open();
    return readOptional(statements.byKey.get(key));
  }

  async *history(askId: string): AsyncIterable<AskAuditEvent> {
    checkStoreText(askId, 'askId');
    const { opened, statements } = await this.#open();
    // One read transaction: events appended while the caller iterates belong to a later read,
    // and the ask's row read for its start is the one these events belong to.
    const rows = readTransaction(opened.db, () => {
      const events = statements.history.all(askId) as Record<string, unknown>[];
      const first = events[0];
      if (first?.type === 'start') {
        // A start event whose data its ask's row stands for (see `eventParams`).
        if (first.data === null) first.start_data = this.#startOf(statements, askId)?.start_data;
        return events;
      }
      // No start row: the ask's row stands for all of it (`startStandsFor`), if there is an ask.
      const start = this.#startOf(statements, askId);
      return start === undefined ? events : [start, ...events];
    });
    for (const row of rows) {
      const event = this.#readEvent(row, askId);
      if (event !== undefined) yield event;
    }
  }

  async claimDue(
    now: number,
    limit: number,
    settle: (ask: StoredAsk) => AskWrite | undefined,
    enough?: () => boolean,
  ): Promise<AskWrite[]> {
    const { opened, statements } = await this.#open();
    const corrupt: unknown[] = [];
    const claim: DueClaim = { now, settle, enough, corrupt };
    try {
      if (limit >= WORKER_BATCH && opened.path !== undefined && !this.#workerFailed) {
        return await this.#claimBeside(opened, statements, claim, limit);
      }
      // The write lock is taken before reading, so another process claiming at the same
      // moment waits and then finds these asks final: each due ask is settled once, and
      // claims at the same time get different asks.
      return this.#write(
        opened,
        () => {
          const batch = this.#collect(statements, claim, limit);
          return batch.length === 0 ? [] : this.#applyHere(statements, batch);
        },
        { asks: (writes) => writes.length },
      );
    } finally {
      // Skipped, not fatal: the row stays as it is, and the error names the ask and the column.
      for (const error of corrupt) this.#onError(error);
    }
  }

  async claimOutbox(
    now: number,
    limit: number,
    leaseMs: number,
    channels: readonly string[],
  ): Promise<ClaimedOutboxEntry[]> {
    checkOutboxClaim(now, limit, leaseMs, channels);
    const { opened, statements } = await this.#openToWrite();
    const wanted = JSON.stringify(channels);
    // Most looks find nothing due: they read, and take the write lock only when there is work.
    if (statements.outboxAnyDue.get(now, now, wanted, now) === undefined) return [];
    // Read and leased under the write lock: a process claiming at the same moment waits, then
    // finds these entries leased.
    const corrupt: unknown[] = [];
    const claimed = this.#write(opened, () => {
      const rows = statements.outboxDue.all(now, now, wanted, now, limit) as ClaimedRow[];
      for (const row of rows) statements.outboxLease.run(now + leaseMs, row.delivery_id);
      // Read in the claim, so `attempts` counts this claim too.
      return claimedEntries(rows, 1, corrupt);
    });
    for (const error of corrupt) this.#onError(error);
    return claimed;
  }

  async takeOutbox(
    sender: string,
    deliveryIds: readonly string[],
    now: number,
  ): Promise<ClaimedOutboxEntry[]> {
    checkOutboxTake(sender, deliveryIds, now);
    if (deliveryIds.length === 0) return [];
    const { statements } = await this.#open();
    const rows = statements.outboxLeased.all(
      JSON.stringify(deliveryIds),
      sender,
      now,
    ) as ClaimedRow[];
    const corrupt: unknown[] = [];
    const taken = claimedEntries(rows, 0, corrupt);
    for (const error of corrupt) this.#onError(error);
    return taken;
  }

  async completeOutbox(deliveryId: string, at: number, event?: AskAuditEvent): Promise<boolean> {
    const { opened, statements } = await this.#openToWrite();
    // Not worth a wait for the disk: a done mark a power loss undoes sends the message again,
    // as a crash before the mark does (the outbox sends at least once).
    return this.#write(
      opened,
      () => {
        const { changes } = statements.outboxComplete.run(at, deliveryId);
        if (Number(changes) === 0) return false;
        if (event !== undefined) statements.insertEvent.run(...eventParams(event), event.askId);
        return true;
      },
      { unsynced: true },
    );
  }

  async retryOutbox(deliveryId: string, retryAt: number): Promise<void> {
    const { statements } = await this.#openToWrite();
    statements.outboxRetry.run(retryAt, deliveryId);
  }

  async renewOutbox(deliveryId: string, attempts: number, until: number): Promise<boolean> {
    checkOutboxRenew(deliveryId, attempts, until);
    const { statements } = await this.#openToWrite();
    const { changes } = statements.outboxRenew.run(until, deliveryId, attempts);
    return Number(changes) > 0;
  }

  async list(filter?: AskListFilter, page?: AskListPage): Promise<AskListResult<ListedAsk>> {
    const query = readAskQuery<number>(filter, page, 'number');
    const { opened, statements } = await this.#open();
    const { text, params } = listStatement(query, LIST_DIALECT, 0);
    let statement = statements.lists.get(text);
    if (statement === undefined) {
      statement = opened.db.prepare(text);
      statements.lists.set(text, statement);
    }
    const rows = statement.all(...params) as (AskRow & { seq: number })[];
    const listed = pageOf(rows, query.limit, (row) => ({
      createdAt: Number(row.created_at),
      tie: Number(row.seq),
    }));
    return readListedPage(listed, readListed);
  }

  async purge(finalBefore: number, limit: number, now: number): Promise<number> {
    checkPurge(finalBefore, limit, now);
    const { opened, statements } = await this.#openToWrite();
    // One short write transaction per call: the caller purges in batches, so writers queued
    // behind it wait for one batch at most.
    return this.#write(
      opened,
      () => {
        const doomed = statements.settled.all(finalBefore, now, limit) as { seq: number }[];
        if (doomed.length === 0) return 0;
        const { id: lastEventId } = statements.lastEventId.get() as { id: number };
        let lastSeq = 0;
        for (const { seq } of doomed) {
          statements.retire.run(seq);
          statements.deleteOutbox.run(seq);
          statements.deleteClaims.run(seq);
          statements.deleteEvents.run(seq);
          statements.deleteAsk.run(seq);
          if (seq > lastSeq) lastSeq = seq;
        }
        // Row numbers never go back: where the newest ask went, `ask_last_seq` keeps its number.
        statements.holdAskSeq.run(lastSeq, lastSeq);
        // Event ids never go back: where the newest events went, a placeholder keeps their id.
        statements.holdEventId.run(lastEventId, lastEventId);
        statements.dropEventIdHolders.run(lastEventId);
        return doomed.length;
      },
      { asks: (purged) => purged },
    );
  }

  async acknowledgeSettled(askId: string, owner: string): Promise<void> {
    checkOwnerLease(owner);
    const { opened, statements } = await this.#openToWrite();
    this.#write(opened, () => statements.acknowledgeSettled.run(askId, owner));
  }

  async renewOwnerLease(owner: string, until: number): Promise<void> {
    checkOwnerLease(owner, until);
    const { opened, statements } = await this.#openToWrite();
    // The owner's name first (a row names it by number), in the same transaction.
    this.#write(opened, () => {
      statements.insertOwner.run(owner);
      statements.renewLease.run(owner, until);
    });
    this.#owners.add(owner);
  }

  async releaseOwnerLease(owner: string): Promise<void> {
    checkOwnerLease(owner);
    const { statements } = await this.#openToWrite();
    statements.releaseLease.run(owner);
  }

  async ownerLeaseUntil(owner: string): Promise<number | undefined> {
    checkOwnerLease(owner);
    const { statements } = await this.#open();
    const row = statements.leaseUntil.get(owner) as { lease_until: number } | undefined;
    return row === undefined ? undefined : Number(row.lease_until);
  }

  async claimWork(request: WorkClaimRequest, now: number): Promise<WorkClaim> {
    checkWorkClaim(request, now);
    const { opened, statements } = await this.#openToWrite();
    return this.#write(opened, () => claimWorkHere(statements, request, now));
  }

  async renewWork(key: string, holder: string, until: number, now: number): Promise<boolean> {
    checkClaimKey(key, holder, ['until', until], ['now', now]);
    const { statements } = await this.#openToWrite();
    return Number(statements.renewClaim.run(until, key, holder, now).changes) > 0;
  }

  async finishWork(key: string, holder: string, at: number): Promise<boolean> {
    checkClaimKey(key, holder, ['at', at]);
    const { statements } = await this.#openToWrite();
    return Number(statements.finishClaim.run(at, key, holder).changes) > 0;
  }

  async releaseWork(key: string, holder: string): Promise<boolean> {
    checkClaimKey(key, holder);
    const { statements } = await this.#openToWrite();
    return Number(statements.releaseClaim.run(key, holder).changes) > 0;
  }

  subscribe(listener: (change: AskStoreChange) => void, options?: AskSubscribeOptions): () => void {
    if (this.#closed) throw new Error(`The SQLite ask store ${this.#where} is closed.`);
    return this.#feed.subscribe(listener, subscriberWriter(options));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#feed.close();
    // Claims still reading stop at their next slice and commit what they read; the worker's
    // batches in flight commit and answer first; its connection closes before ours.
    await Promise.all(this.#claims);
    await this.#worker?.close();
    const connection = this.#connection;
    this.#connection = undefined;
    connection?.opened.close();
  }

  /**
   * The connection, once no claim of this store's is being written by its worker: the worker
   * then holds the write lock, and a write here would wait for it in SQLite's busy handler,
   * which sleeps on the event loop's thread. The caller writes at once (no await between).
   */
  async #openToWrite(): Promise<Connection> {
    const connection = await this.#open();
    if (this.#workerWrites === 0) return connection;
    this.#ownWaiting++;
    await this.#until(() => this.#workerWrites === 0);
    // Claims waiting for this write to go first go on at the next turn, once it was made.
    afterEventLoopTurn(() => {
      this.#ownWaiting--;
      this.#wake();
    });
    if (this.#closed) throw new Error(`The SQLite ask store ${this.#where} is closed.`);
    return connection;
  }

  /** Resolves once `condition` holds, checked whenever a claim's or an own write's turn ends. */
  async #until(condition: () => boolean): Promise<void> {
    while (!condition()) await new Promise<void>((resolve) => this.#wakers.push(resolve));
  }

  #wake(): void {
    const wakers = this.#wakers;
    this.#wakers = [];
    for (const wake of wakers) wake();
  }

  async #open(): Promise<Connection> {
    if (this.#closed) throw new Error(`The SQLite ask store ${this.#where} is closed.`);
    const connection = this.#connection ?? (await this.#ready);
    if (this.#closed) throw new Error(`The SQLite ask store ${this.#where} is closed.`);
    return connection;
  }

  /**
   * `work` in a write transaction whose lock timeout says which store and which setting to look
   * at. Once the asks written since the last checkpoint the worker was asked for reach
   * `CHECKPOINT_EVERY_ASKS`, it is asked for another.
   */
  #write<T>(opened: OpenedDatabase, work: () => T, options: WriteOptions<T> = {}): T {
    let result: T;
    try {
      result = options.unsynced
        ? unsyncedWriteTransaction(opened.db, work)
        : writeTransaction(opened.db, work);
    } catch (error) {
      throw this.#lockProblem(error);
    }
    this.#asksSinceCheckpoint += options.asks?.(result) ?? 1;
    if (this.#asksSinceCheckpoint >= CHECKPOINT_EVERY_ASKS) {
      this.#asksSinceCheckpoint = 0;
      this.#liveWorker(opened)?.checkpoint();
    }
    return result;
  }

  /** A lock timeout, said with which store and which setting to look at; other errors as they are. */
  #lockProblem(error: unknown): unknown {
    if (!(error instanceof Error) || !/database is locked|SQLITE_BUSY/.test(error.message)) {
      return error;
    }
    return new Error(
      `The SQLite ask store ${this.#where} stayed locked by another connection for longer than busyTimeoutMs (${this.#busyTimeoutMs} ms): ${error.message}`,
      { cause: error },
    );
  }

  /**
   * Due rows in deadline order, each settled by `settle`, until `limit` writes, the rows run
   * out, or `enough` says the round has run long enough. Rows that cannot be read go to
   * `corrupt`; rows `settle` declines are skipped without counting towards `limit`.
   */
  #collect(
    statements: Statements,
    { now, settle, enough, corrupt }: DueClaim,
    limit: number,
    cursor: DueCursor = dueCursor(),
  ): SettledRow[] {
    const batch: SettledRow[] = [];
    while (batch.length < limit) {
      const wanted = limit - batch.length;
      const rows = statements.due.all(now, ...cursor.after, now, wanted) as (AskRow & {
        seq: number;
      })[];
      for (const row of rows) {
        // A round ends early only once it has something to write: it always makes progress.
        if (batch.length + cursor.settled > 0 && enough?.() === true) {
          cursor.sliced = true;
          break;
        }
        cursor.after = [row.deadline_at as number, row.deadline_at as number, row.seq];
        if (this.#inFlight.size > 0 && this.#inFlight.has(Number(row.seq))) continue;
        let current: StoredAsk;
        try {
          current = readAsk(row);
        } catch (error) {
          corrupt.push(error);
          continue;
        }
        const write = settle(current);
        if (write !== undefined) {
          batch.push({ seq: Number(row.seq), version: current.version, write });
        }
      }
      if (cursor.sliced) break;
      if (rows.length < wanted) {
        cursor.done = true;
        break;
      }
    }
    cursor.settled += batch.length;
    return batch;
  }

  /**
   * A claim on a file another connection can open: the rows are read and settled here without
   * the lock, a part at a time. A claim of one small part is written here; a larger one (a
   * storm) by the store's worker thread, in one transaction of its own. When `enough` says a
   * slice of the event loop is spent, the loop turns and the claim goes on in the next slice, up
   * to `limit`: the worker keeps the parts and writes them together at the end, so the event
   * loop keeps turning while a transaction covers hundreds of asks (each commit rewrites the
   * pages the commits before it wrote, so fewer and larger ones write far less). Another claim
   * made meanwhile reads on from where this one stopped. Every row is version-checked where it
   * is written, so an ask another process settled meanwhile is left as it is, not settled twice.
   */
  async #claimBeside(
    opened: OpenedDatabase,
    statements: Statements,
    claim: DueClaim,
    limit: number,
  ): Promise<AskWrite[]> {
    const cursor = dueCursor(this.#frontier);
    const first = this.#collect(statements, claim, Math.min(WORKER_PART, limit), cursor);
    if (first.length === 0) return [];
    const worker =
      cursor.done && first.length < WORKER_BATCH ? undefined : this.#liveWorker(opened);
    if (worker === undefined) {
      return this.#write(opened, () => this.#applyHere(statements, first), {
        asks: (writes) => writes.length,
      });
    }
    const transaction = worker.begin();
    // Its commit is this store's own write: the feed waits for it to be told (`written`).
    const release = this.#feed.hold();
    const parts: { batch: SettledRow[]; plan: BatchPlan }[] = [];
    // `close` lets this claim finish and commit first.
    let finished: () => void = () => undefined;
    const claimed = new Promise<void>((resolve) => {
      finished = resolve;
    });
    this.#claims.add(claimed);
    try {
      const owners = new Set<string>();
      try {
        let batch = first;
        for (;;) {
          if (batch.length > 0) {
            const plan = planBatch(batch, this.#newOwners(batch, owners));
            transaction.apply(plan);
            parts.push({ batch, plan });
            for (const { seq } of batch) this.#inFlight.add(seq);
          }
          this.#frontier = cursor.after;
          if (cursor.settled >= limit || cursor.done) break;
          if (cursor.sliced) {
            await eventLoopTurn();
            if (this.#closed) break;
            cursor.sliced = false;
            // Another claim may have read past this one meanwhile: on from the farther point.
            cursor.after = fartherPosition(cursor.after, this.#frontier);
          }
          const wanted = Math.min(WORKER_PART, limit - cursor.settled);
          batch = this.#collect(statements, claim, wanted, cursor);
        }
      } catch (error) {
        // What was settled is not to be written.
        await transaction.end(false).catch(() => undefined);
        throw error;
      }
      // Writes of this store's waiting for the worker go first: they would wait for this too.
      await this.#until(() => this.#ownWaiting === 0);
      this.#workerWrites++;
      let results: BatchResult[];
      try {
        results = await transaction.end(true);
      } finally {
        this.#workerWrites--;
        this.#wake();
      }
      return parts.flatMap(({ batch, plan }, index) =>
        this.#applied(batch, plan, results[index] as BatchResult),
      );
    } catch (error) {
      throw this.#lockProblem(error);
    } finally {
      for (const { batch } of parts) for (const { seq } of batch) this.#inFlight.delete(seq);
      if (this.#inFlight.size === 0) this.#frontier = undefined;
      release();
      this.#claims.delete(claimed);
      finished();
    }
  }

  /** Inside a write transaction: writes `batch` on this connection. */
  #applyHere(statements: Statements, batch: readonly SettledRow[]): AskWrite[] {
    const plan = planBatch(batch, this.#newOwners(batch));
    return this.#applied(batch, plan, applyBatchPlan(statements, plan));
  }

  /** The owner names of `batch` this store does not know are in `ask_owners` yet. */
  #newOwners(batch: readonly SettledRow[], planned = new Set<string>()): string[] {
    const names: string[] = [];
    for (const { write } of batch) {
      const { owner } = write.ask;
      if (owner === undefined || this.#owners.has(owner) || planned.has(owner)) continue;
      planned.add(owner);
      names.push(owner);
    }
    return names;
  }

  /** After a batch committed: the writes that applied, in the batch's order, told to the feed. */
  #applied(batch: readonly SettledRow[], plan: BatchPlan, result: BatchResult): AskWrite[] {
    this.#named(plan.owners);
    const updated = new Set(result.updated);
    const eventIds = new Map(result.eventIds);
    const writes: AskWrite[] = [];
    for (const { seq, write } of batch) {
      if (!updated.has(seq)) continue;
      writes.push(write);
      this.#feed.written(write.ask.askId, write.ask.version, eventIds.get(seq), write.writer);
    }
    return writes;
  }

  /**
   * The worker that writes large sweep batches and checkpoints the WAL, started on first use,
   * for a file this store opened (an in-memory database or a handle given to it has no second
   * connection). While it runs, this store's connection checkpoints only past a backstop, for a
   * WAL that grows faster than the worker copies it back. A worker that died is replaced by
   * claims and checkpoints on the store's own connection, after one report.
   */
  #liveWorker(opened: OpenedDatabase): SqliteWorker | undefined {
    if (opened.path === undefined || this.#closed || this.#workerFailed) return undefined;
    if (this.#worker === undefined) {
      this.#worker = new SqliteWorker({
        path: opened.path,
        busyTimeoutMs: this.#busyTimeoutMs,
        synchronous: this.#synchronous,
        onCheckpointError: (error) =>
          this.#onError(
            new Error(
              `The SQLite ask store ${this.#where} could not checkpoint its WAL on its worker: ${error.message}`,
              { cause: error },
            ),
          ),
      });
      const { wal_autocheckpoint: pages } = opened.db
        .prepare('PRAGMA wal_autocheckpoint')
        .get() as { wal_autocheckpoint: number };
      this.#autocheckpointPages = Number(pages);
      opened.db.exec(`PRAGMA wal_autocheckpoint = ${BACKSTOP_CHECKPOINT_PAGES}`);
    }
    const failure = this.#worker.failure;
    if (failure === undefined) return this.#worker;
    if (!this.#workerFailed) {
      this.#workerFailed = true;
      if (this.#autocheckpointPages !== undefined) {
        opened.db.exec(`PRAGMA wal_autocheckpoint = ${this.#autocheckpointPages}`);
      }
      this.#onError(
        new Error(
          `The SQLite ask store ${this.#where} sweeps and checkpoints on its own connection from now on: its worker failed: ${failure.message}`,
          { cause: failure },
        ),
      );
    }
    return undefined;
  }

  /**
   * The start event row the ask's row stands for (`impliedStartRow`), undefined when there is
   * no such ask. From a row that cannot be read, a start without its data, which fails to read:
   * the history reports it (`#readEvent`) and goes on with the rest.
   */
  #startOf(statements: Statements, askId: string): Record<string, unknown> | undefined {
    const row = statements.byId.get(askId) as AskRow | undefined;
    if (row === undefined) return undefined;
    const ask = readableAsk(row);
    return impliedStartRow(row.created_at, ask && startDataOf(ask));
  }

  /**
   * One event of a history, or undefined for one that does not parse: it is reported to
   * `onError` and left out, so one bad row never hides the rest of the history.
   */
  #readEvent(row: Record<string, unknown>, askId: string): AskAuditEvent | undefined {
    try {
      return readEvent(row, askId);
    } catch (error) {
      if (!(error instanceof CorruptAskRowError)) throw error;
      this.#onError(error);
      return undefined;
    }
  }

  /**
   * Inside a write: adds the row's owner to `ask_owners` unless this store knows it is there.
   * A name is known only once its transaction committed (`#named`), so a rolled-back write
   * never leaves the store believing in a name the file does not have.
   */
  #owner(statements: Statements, ask: StoredAsk, named: string[]): void {
    if (ask.owner === undefined || this.#owners.has(ask.owner)) return;
    statements.insertOwner.run(ask.owner);
    named.push(ask.owner);
  }

  #named(names: readonly string[]): void {
    for (const name of names) this.#owners.add(name);
  }

  #holder(statements: Statements, ask: StoredAsk): string {
    const row = statements.openHolder.get(ask.interactionId ?? null, ask.askId) as
      | { id: string }
      | undefined;
    // The unique index said someone holds it; under the write lock it is still there.
    return row?.id ?? '(unknown)';
  }
}

/**
 * True for a row of `asks` that names no owner, or one whose lease does not run past the
 * parameter (`now`): the one rule by which `claimDue` leaves a pending ask to its live owner
 * and `purge` a final one its live owner has not heard settle (migration 11's leases).
 */
const NO_LIVE_OWNER = `(owner IS NULL OR NOT EXISTS
           (SELECT 1 FROM ask_leases l WHERE l.owner = asks.owner AND l.lease_until > ?))`;

function prepare(db: SqliteDatabase): Statements {
  const columns = columnList(ASK_COLUMNS);
  const selected = selectList(ASK_COLUMNS);
  const placeholders = placeholderList(ASK_COLUMNS);
  const assignments = UPDATED_COLUMNS.map(
    (column) => `${column.column} = ${column.placeholder ?? '?'}`,
  ).join(', ');
  const eventColumns = columnList(EVENT_COLUMNS);
  const eventPlaceholders = EVENT_COLUMNS.map(() => '?').join(', ');
  const claimedColumns = `o.delivery_id, o.ask_id, o.channel, o.due_at, o.while_open, o.payload, o.attempts, ${columnList(CLAIMED_ASK_COLUMNS, 'a.')}`;
  return {
    byId: db.prepare(`SELECT ${selected} FROM asks WHERE id = ?`),
    byKey: db.prepare(`SELECT ${selected} FROM asks WHERE "key" = ?`),
    byInteraction: db.prepare(
      `SELECT ${selected} FROM asks WHERE interaction_id = ? ORDER BY final ASC, updated_at DESC, seq DESC LIMIT 1`,
    ),
    openHolder: db.prepare(
      'SELECT id FROM asks WHERE interaction_id = ? AND final = 0 AND id <> ? LIMIT 1',
    ),
    // A taken id or key writes nothing (and no exception): `create` then reads who has it.
    // Nor does an id a purge retired (`ask_purged`); `create` tells that from a taken one.
    insertAsk: db.prepare(
      `INSERT INTO asks (seq, ${columns}) SELECT ${NEXT_ASK_SEQ}, ${placeholders}
       WHERE NOT EXISTS (SELECT 1 FROM ask_purged WHERE id = ?)
       ON CONFLICT DO NOTHING`,
    ),
    retired: db.prepare('SELECT 1 FROM ask_purged WHERE id = ?'),
    retire: db.prepare('INSERT OR IGNORE INTO ask_purged (id) SELECT id FROM asks WHERE seq = ?'),
    updateAsk: db.prepare(`UPDATE asks SET ${assignments} WHERE id = ? AND version = ?`),
    // The ask's row number by its id, in the same statement: nothing is appended to an unknown ask.
    insertEvent: db.prepare(
      `INSERT INTO ask_events (ask, ${eventColumns}) SELECT seq, ${eventPlaceholders} FROM asks WHERE id = ?`,
    ),
    history: db.prepare(
      `SELECT e.id AS id, ${columnList(EVENT_COLUMNS, 'e.')}, a.outcome AS outcome FROM asks a JOIN ask_events e ON e.ask = a.seq WHERE a.id = ? ORDER BY e.id`,
    ),
    // One range of `asks_due`, from the cursor to `now`, in index order (deadline, then row
    // number): a batch reads only the rows it returns, wherever the cursor stands. An ask whose
    // owner's lease runs past `now` is its owner's to time out (migration 11).
    due: keyedHere(
      db.prepare(
        `SELECT seq, ${selected} FROM asks
       WHERE final = 0 AND deadline_at <= ? AND deadline_at >= ? AND (deadline_at > ? OR seq > ?)
         AND ${NO_LIVE_OWNER}
       ORDER BY deadline_at, seq LIMIT ?`,
      ),
    ),
    // Oldest first along `asks_settled`; an ask whose live owner has not heard of its settle
    // (the row still names it) is read past and left.
    settled: db.prepare(
      `SELECT seq FROM asks WHERE final = 1 AND updated_at < ? AND ${NO_LIVE_OWNER}
       ORDER BY updated_at LIMIT ?`,
    ),
    // The owner heard of the settle: not a transition (same version, no event, so no news).
    acknowledgeSettled: db.prepare(
      `UPDATE asks SET owner = NULL
       WHERE id = ? AND final = 1 AND owner = (SELECT id FROM ask_owners WHERE name = ?)`,
    ),
    deleteEvents: db.prepare('DELETE FROM ask_events WHERE ask = ?'),
    lastEventId: db.prepare(LAST_EVENT_ID_SQL),
    holdEventId: db.prepare(
      `INSERT INTO ask_events (id, ask, at, type, to_state) SELECT ?, ${EVENT_ID_HOLDER}, 0, '', ''
       WHERE ${LAST_EVENT_ID} < ?`,
    ),
    holdAskSeq: db.prepare(
      `INSERT INTO ask_last_seq (one, seq) SELECT 1, ? WHERE ${NEXT_ASK_SEQ} <= ?
       ON CONFLICT (one) DO UPDATE SET seq = excluded.seq`,
    ),
    // Placeholders below the one that is the largest id (or below an event that is) hold nothing.
    dropEventIdHolders: db.prepare(
      `DELETE FROM ask_events WHERE ask = ${EVENT_ID_HOLDER} AND id < ?`,
    ),
    deleteAsk: db.prepare('DELETE FROM asks WHERE seq = ? AND final = 1'),
    outboxSettled: db.prepare(
      'UPDATE ask_outbox SET due_at = ? WHERE ask_id = ? AND due_at IS NULL AND done_at IS NULL',
    ),
    // Those being sent (leased) stay, to be marked done or dropped by a later claim.
    outboxDropOpen: db.prepare(
      `DELETE FROM ask_outbox
       WHERE ask_id = ? AND while_open = 1 AND done_at IS NULL AND claimed_until <= ?`,
    ),
    outboxAnyDue: db.prepare(
      `SELECT 1 FROM ask_outbox o
       WHERE o.done_at IS NULL AND o.due_at IS NOT NULL AND o.due_at <= ? AND o.claimed_until <= ?
         AND o.channel IN (SELECT value FROM json_each(?)) AND ${NOT_HELD_BACK}
       LIMIT 1`,
    ),
    // With what the sender needs of each entry's ask, so it reads nothing more.
    outboxDue: db.prepare(
      `SELECT ${claimedColumns} FROM ask_outbox o JOIN asks a ON a.id = o.ask_id
       WHERE o.done_at IS NULL AND o.due_at IS NOT NULL AND o.due_at <= ? AND o.claimed_until <= ?
         AND o.channel IN (SELECT value FROM json_each(?)) AND ${NOT_HELD_BACK}
       ORDER BY o.due_at LIMIT ?`,
    ),
    // Entries this sender wrote leased to itself (`takeOutbox`), with their ask.
    outboxLeased: db.prepare(
      `SELECT ${claimedColumns} FROM ask_outbox o JOIN asks a ON a.id = o.ask_id
       WHERE o.delivery_id IN (SELECT value FROM json_each(?)) AND o.claimed_by = ?
         AND o.done_at IS NULL AND o.claimed_until > ?
       ORDER BY o.due_at`,
    ),
    outboxLease: db.prepare(
      'UPDATE ask_outbox SET attempts = attempts + 1, claimed_until = ?, claimed_by = NULL WHERE delivery_id = ?',
    ),
    outboxComplete: db.prepare(
      'UPDATE ask_outbox SET done_at = ?, claimed_until = 0 WHERE delivery_id = ? AND done_at IS NULL',
    ),
    outboxRetry: db.prepare(
      'UPDATE ask_outbox SET due_at = ?, claimed_until = 0, claimed_by = NULL WHERE delivery_id = ? AND done_at IS NULL',
    ),
    // Still this try's lease (not done, not released, not claimed again): extended.
    outboxRenew: db.prepare(
      `UPDATE ask_outbox SET claimed_until = MAX(claimed_until, ?)
       WHERE delivery_id = ? AND attempts = ? AND done_at IS NULL AND claimed_until > 0`,
    ),
    deleteOutbox: db.prepare(
      'DELETE FROM ask_outbox WHERE ask_id = (SELECT id FROM asks WHERE seq = ?)',
    ),
    renewLease: db.prepare(
      `INSERT INTO ask_leases (owner, lease_until) VALUES ((SELECT id FROM ask_owners WHERE name = ?), ?)
       ON CONFLICT (owner) DO UPDATE SET lease_until = excluded.lease_until`,
    ),
    releaseLease: db.prepare(
      'DELETE FROM ask_leases WHERE owner = (SELECT id FROM ask_owners WHERE name = ?)',
    ),
    leaseUntil: db.prepare(
      'SELECT l.lease_until FROM ask_leases l JOIN ask_owners o ON o.id = l.owner WHERE o.name = ?',
    ),
    lists: new Map(),
    ...prepareAll(db, batchSql()),
    ...prepareAll(db, workClaimSql()),
  };
}

function prepareAll<Names extends string>(
  db: SqliteDatabase,
  sql: Record<Names, string>,
): Record<Names, SqliteStatement> {
  const statements = {} as Record<Names, SqliteStatement>;
  for (const name of Object.keys(sql) as Names[]) statements[name] = db.prepare(sql[name]);
  return statements;
}

/**
 * An outbox entry `o` that is about the open ask, or whose ask has no such entry being sent
 * (leased at the claim's time, its last parameter): see `OutboxEntry.whileOpen`.
 */
const NOT_HELD_BACK = `(o.while_open = 1 OR NOT EXISTS (
  SELECT 1 FROM ask_outbox w
  WHERE w.ask_id = o.ask_id AND w.while_open = 1 AND w.done_at IS NULL AND w.claimed_until > ?))`;

/** Inside a write that applied: stores its outbox entries; a final write settles the ask's waiting ones. */
function queue(statements: Statements, write: AskWrite): void {
  const { ask } = write;
  if (ask.final) {
    statements.outboxDropOpen.run(ask.askId, ask.updatedAt);
    statements.outboxSettled.run(ask.updatedAt, ask.askId);
  }
  for (const row of outboxRowsOf(write)) statements.insertOutbox.run(...outboxParams(row));
}

/** An outbox row selected with its ask's `CLAIMED_ASK_COLUMNS`. */
type ClaimedRow = AskRow & {
  delivery_id: string;
  ask_id: string;
  channel: string;
  due_at: number;
  while_open: number;
  payload: string;
  attempts: number;
};

/**
 * The entries of claimed rows (`attempts` read before this claim's count is added: `added`);
 * a row whose ask cannot be read goes to `corrupt` instead, and its entry waits out its lease.
 */
function claimedEntries(
  rows: ClaimedRow[],
  added: number,
  corrupt: unknown[],
): ClaimedOutboxEntry[] {
  const entries: ClaimedOutboxEntry[] = [];
  for (const row of rows) {
    let ask: ClaimedOutboxAsk;
    try {
      ask = readClaimedAsk(row);
    } catch (error) {
      if (!(error instanceof CorruptAskRowError)) throw error;
      corrupt.push(error);
      continue;
    }
    entries.push({
      deliveryId: row.delivery_id,
      askId: row.ask_id,
      channel: row.channel,
      dueAt: Number(row.due_at),
      ...(Number(row.while_open) === 1 ? { whileOpen: true } : {}),
      payload: JSON.parse(row.payload) as unknown,
      attempts: Number(row.attempts) + added,
      ask,
    });
  }
  return entries;
}

/** The ask of `row`, or undefined when the row cannot be read (a corrupt row). */
function readableAsk(row: AskRow): StoredAsk | undefined {
  try {
    return readAsk(row);
  } catch (error) {
    if (!(error instanceof CorruptAskRowError)) throw error;
    return undefined;
  }
}

function readOptional(row: unknown): StoredAsk | undefined {
  return row === undefined ? undefined : readAsk(row as AskRow);
}

/** The unique index on open interaction ids refused the row (SQLite's own message). */
function isOpenInteractionConflict(error: unknown): boolean {
  return (
    error instanceof Error && /UNIQUE constraint failed: asks\.interaction_id/.test(error.message)
  );
}

function rowId(result: { lastInsertRowid?: number | bigint }): number | undefined {
  return result.lastInsertRowid === undefined ? undefined : Number(result.lastInsertRowid);
}
