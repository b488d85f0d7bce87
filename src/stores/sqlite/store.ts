/** The embedded durable store: asks and their histories in one SQLite file, shared by processes. */
import type { AskAuditEvent } from '../../engine/audit.js';
import { checkStoreText } from '../../rules/store-text.js';
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
import { WRITES_CLAIMS_BESIDE } from '../claim-lanes.js';
import type { WorkClaim, WorkClaimRequest } from '../work-claims.js';
import { listAsks, purgeAsks } from './ask-index.js';
import { appendEvent, createAsk, findAsk, historyOf, updateAsk } from './ask-log.js';
import { SqliteChangeFeed } from './change-feed.js';
import { StoreConnection } from './connection.js';
import { type OpenedDatabase, openSqliteFile } from './database.js';
import { DueSweep } from './due-sweep.js';
import {
  describe,
  readOptions,
  type Settings,
  type SqliteAskStoreOptions,
  type SqliteAskStoreSource,
} from './options.js';
import {
  claimOutbox,
  completeOutbox,
  renewOutbox,
  retryOutbox,
  takeOutbox,
} from './outbox-claims.js';
import {
  acknowledgeSettled,
  ownerLeaseUntil,
  releaseOwnerLease,
  renewOwnerLease,
} from './owner-leases.js';
import { claimWork, finishWork, releaseWork, renewWork } from './work-claims.js';

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

/** The ports, each method handed to the module of its concern. */
class SqliteAskStore implements AskStore {
  readonly #connection: StoreConnection;
  readonly #feed: SqliteChangeFeed;
  readonly #sweep: DueSweep;

  constructor(opening: Promise<OpenedDatabase>, where: string, settings: Settings) {
    this.#feed = new SqliteChangeFeed(settings.pollIntervalMs, settings.onError);
    this.#connection = new StoreConnection(opening, where, settings, this.#feed);
    this.#sweep = new DueSweep(this.#connection, this.#feed);
  }

  /** Large claims go to the worker thread: a file this store opened, while its worker can run. */
  get [WRITES_CLAIMS_BESIDE](): boolean {
    return this.#connection.writesBeside();
  }

  create(write: AskWrite): Promise<AskCreateResult> {
    return createAsk(this.#connection, this.#feed, write);
  }

  update(write: AskWrite, expectedVersion: number): Promise<AskUpdateResult> {
    return updateAsk(this.#connection, this.#feed, write, expectedVersion);
  }

  append(event: AskAuditEvent): Promise<void> {
    return appendEvent(this.#connection, event);
  }

  async get(askId: string): Promise<StoredAsk | undefined> {
    checkStoreText(askId, 'askId');
    return findAsk(this.#connection, 'byId', askId);
  }

  async findByInteractionId(interactionId: string): Promise<StoredAsk | undefined> {
    checkStoreText(interactionId, 'interactionId');
    return findAsk(this.#connection, 'byInteraction', interactionId);
  }

  async findByKey(key: string): Promise<StoredAsk | undefined> {
    checkStoreText(key, 'key');
    return findAsk(this.#connection, 'byKey', key);
  }

  history(askId: string): AsyncIterable<AskAuditEvent> {
    return historyOf(this.#connection, askId);
  }

  claimDue(
    now: number,
    limit: number,
    settle: (ask: StoredAsk) => AskWrite | undefined,
    enough?: () => boolean,
  ): Promise<AskWrite[]> {
    return this.#sweep.claimDue(now, limit, settle, enough);
  }

  claimOutbox(
    now: number,
    limit: number,
    leaseMs: number,
    channels: readonly string[],
  ): Promise<ClaimedOutboxEntry[]> {
    return claimOutbox(this.#connection, now, limit, leaseMs, channels);
  }

  takeOutbox(
    sender: string,
    deliveryIds: readonly string[],
    now: number,
  ): Promise<ClaimedOutboxEntry[]> {
    return takeOutbox(this.#connection, sender, deliveryIds, now);
  }

  completeOutbox(deliveryId: string, at: number, event?: AskAuditEvent): Promise<boolean> {
    return completeOutbox(this.#connection, deliveryId, at, event);
  }

  retryOutbox(deliveryId: string, retryAt: number): Promise<void> {
    return retryOutbox(this.#connection, deliveryId, retryAt);
  }

  renewOutbox(deliveryId: string, attempts: number, until: number): Promise<boolean> {
    return renewOutbox(this.#connection, deliveryId, attempts, until);
  }

  list(filter?: AskListFilter, page?: AskListPage): Promise<AskListResult<ListedAsk>> {
    return listAsks(this.#connection, filter, page);
  }

  purge(finalBefore: number, limit: number, now: number): Promise<number> {
    return purgeAsks(this.#connection, finalBefore, limit, now);
  }

  acknowledgeSettled(askId: string, owner: string): Promise<void> {
    return acknowledgeSettled(this.#connection, askId, owner);
  }

  renewOwnerLease(owner: string, until: number): Promise<void> {
    return renewOwnerLease(this.#connection, owner, until);
  }

  releaseOwnerLease(owner: string): Promise<void> {
    return releaseOwnerLease(this.#connection, owner);
  }

  ownerLeaseUntil(owner: string): Promise<number | undefined> {
    return ownerLeaseUntil(this.#connection, owner);
  }

  claimWork(request: WorkClaimRequest, now: number): Promise<WorkClaim> {
    return claimWork(this.#connection, request, now);
  }

  renewWork(key: string, holder: string, until: number, now: number): Promise<boolean> {
    return renewWork(this.#connection, key, holder, until, now);
  }

  finishWork(key: string, holder: string, at: number): Promise<boolean> {
    return finishWork(this.#connection, key, holder, at);
  }

  releaseWork(key: string, holder: string): Promise<boolean> {
    return releaseWork(this.#connection, key, holder);
  }

  subscribe(listener: (change: AskStoreChange) => void, options?: AskSubscribeOptions): () => void {
    this.#connection.checkOpen();
    return this.#feed.subscribe(listener, subscriberWriter(options));
  }

  async close(): Promise<void> {
    if (this.#connection.closed) return;
    this.#connection.markClosed();
    this.#feed.close();
    // Claims still reading stop at their next slice and commit what they read; the worker's
    // batches in flight commit and answer first; its connection closes before ours.
    await this.#sweep.close();
    await this.#connection.close();
  }
}
