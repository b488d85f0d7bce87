/**
 * The SQLite store's connection and its write path: opening and migrating the database, write
 * transactions whose lock timeouts say which store and which setting to look at, the owner names
 * the file is known to have, and the store's worker thread (large sweep batches and WAL
 * checkpoints), with the turns the connection's own writes and the worker's take.
 */
import { afterEventLoopTurn } from '../../engine/event-loop.js';
import type { SqliteChangeFeed } from './change-feed.js';
import {
  configureConnection,
  type OpenedDatabase,
  unsyncedWriteTransaction,
  writeTransaction,
} from './database.js';
import type { Settings } from './options.js';
import { migrate } from './schema.js';
import { prepare, type Statements } from './statements.js';
import { SqliteWorker } from './worker.js';

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

export interface WriteOptions<T> {
  /** Commits without waiting for the disk (`unsyncedWriteTransaction`). */
  unsynced?: boolean;
  /** How many asks the write touched; 1 when not given. */
  asks?: (result: T) => number;
}

/** An open connection and its prepared statements. */
export interface Connection {
  opened: OpenedDatabase;
  statements: Statements;
}

export class StoreConnection {
  /** Which store, as errors name it (`at <path>` or `given as { database }`). */
  readonly where: string;
  readonly onError: (error: unknown) => void;
  readonly #busyTimeoutMs: number;
  readonly #synchronous: Settings['synchronous'];
  readonly #ready: Promise<Connection>;
  #connection: Connection | undefined;
  /** Owner names in `ask_owners` (a service writes under one name). */
  readonly #owners = new Set<string>();
  /** Writes large sweep batches and checkpoints beside the event loop (`liveWorker`). */
  #worker: SqliteWorker | undefined;
  #workerFailed = false;
  /** Claims whose transaction the worker is writing (sent, not yet answered). */
  #workerWrites = 0;
  /** Writes on this store's connection waiting for those to end: they go first. */
  #ownWaiting = 0;
  #wakers: (() => void)[] = [];
  /** Asks written on this store's connection since it last asked its worker for a checkpoint. */
  #asksSinceCheckpoint = 0;
  /** The connection's own checkpoint threshold, put back if the worker stops checkpointing. */
  #autocheckpointPages: number | undefined;
  #closed = false;

  /** Opens, migrates and prepares the database; the feed is attached once it is ready. */
  constructor(
    opening: Promise<OpenedDatabase>,
    where: string,
    settings: Settings,
    feed: SqliteChangeFeed,
  ) {
    this.where = where;
    this.onError = settings.onError;
    this.#busyTimeoutMs = settings.busyTimeoutMs;
    this.#synchronous = settings.synchronous;
    this.#ready = opening.then((opened) => {
      try {
        configureConnection(opened.db, settings);
        migrate(opened.db, where);
        const connection = { opened, statements: prepare(opened.db) };
        if (this.#closed) {
          opened.close();
        } else {
          this.#connection = connection;
          feed.attach(opened.db);
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

  get closed(): boolean {
    return this.#closed;
  }

  /** Large claims can go to the worker thread: a file this store opened, while its worker can run. */
  writesBeside(opened: OpenedDatabase | undefined = this.#connection?.opened): boolean {
    return opened?.path !== undefined && !this.#workerFailed;
  }

  /** Throws unless the store is open. */
  checkOpen(): void {
    if (this.#closed) throw new Error(`The SQLite ask store ${this.where} is closed.`);
  }

  async open(): Promise<Connection> {
    this.checkOpen();
    const connection = this.#connection ?? (await this.#ready);
    this.checkOpen();
    return connection;
  }

  /**
   * The connection, once no claim of this store's is being written by its worker: the worker
   * then holds the write lock, and a write here would wait for it in SQLite's busy handler,
   * which sleeps on the event loop's thread. The caller writes at once (no await between).
   */
  async openToWrite(): Promise<Connection> {
    const connection = await this.open();
    if (this.#workerWrites === 0) return connection;
    this.#ownWaiting++;
    await this.#until(() => this.#workerWrites === 0);
    // Claims waiting for this write to go first go on at the next turn, once it was made.
    afterEventLoopTurn(() => {
      this.#ownWaiting--;
      this.#wake();
    });
    this.checkOpen();
    return connection;
  }

  /**
   * `work` in a write transaction whose lock timeout says which store and which setting to look
   * at. Once the asks written since the last checkpoint the worker was asked for reach
   * `CHECKPOINT_EVERY_ASKS`, it is asked for another.
   */
  write<T>(opened: OpenedDatabase, work: () => T, options: WriteOptions<T> = {}): T {
    let result: T;
    try {
      result = options.unsynced
        ? unsyncedWriteTransaction(opened.db, work)
        : writeTransaction(opened.db, work);
    } catch (error) {
      throw this.lockProblem(error);
    }
    this.#asksSinceCheckpoint += options.asks?.(result) ?? 1;
    if (this.#asksSinceCheckpoint >= CHECKPOINT_EVERY_ASKS) {
      this.#asksSinceCheckpoint = 0;
      this.liveWorker(opened)?.checkpoint();
    }
    return result;
  }

  /**
   * `commit` (the worker's write of a claim), once this store's own writes waiting for the
   * worker have gone first (they would wait for this too); they wait for it meanwhile.
   */
  async workerWrite<T>(commit: () => Promise<T>): Promise<T> {
    await this.#until(() => this.#ownWaiting === 0);
    this.#workerWrites++;
    try {
      return await commit();
    } finally {
      this.#workerWrites--;
      this.#wake();
    }
  }

  /** A lock timeout, said with which store and which setting to look at; other errors as they are. */
  lockProblem(error: unknown): unknown {
    if (!(error instanceof Error) || !/database is locked|SQLITE_BUSY/.test(error.message)) {
      return error;
    }
    return new Error(
      `The SQLite ask store ${this.where} stayed locked by another connection for longer than busyTimeoutMs (${this.#busyTimeoutMs} ms): ${error.message}`,
      { cause: error },
    );
  }

  /**
   * The worker that writes large sweep batches and checkpoints the WAL, started on first use,
   * for a file this store opened (an in-memory database or a handle given to it has no second
   * connection). While it runs, this store's connection checkpoints only past a backstop, for a
   * WAL that grows faster than the worker copies it back. A worker that died is replaced by
   * claims and checkpoints on the store's own connection, after one report.
   */
  liveWorker(opened: OpenedDatabase): SqliteWorker | undefined {
    if (opened.path === undefined || this.#closed || this.#workerFailed) return undefined;
    if (this.#worker === undefined) {
      this.#worker = new SqliteWorker({
        path: opened.path,
        busyTimeoutMs: this.#busyTimeoutMs,
        synchronous: this.#synchronous,
        onCheckpointError: (error) =>
          this.onError(
            new Error(
              `The SQLite ask store ${this.where} could not checkpoint its WAL on its worker: ${error.message}`,
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
      this.onError(
        new Error(
          `The SQLite ask store ${this.where} sweeps and checkpoints on its own connection from now on: its worker failed: ${failure.message}`,
          { cause: failure },
        ),
      );
    }
    return undefined;
  }

  /**
   * Inside a write: adds the row's owner to `ask_owners` unless this store knows it is there.
   * A name is known only once its transaction committed (`named`), so a rolled-back write
   * never leaves the store believing in a name the file does not have.
   */
  owner(statements: Statements, owner: string | undefined, named: string[]): void {
    if (owner === undefined || this.#owners.has(owner)) return;
    statements.insertOwner.run(owner);
    named.push(owner);
  }

  /** After a write committed: the owner names it added are in `ask_owners`. */
  named(names: readonly string[]): void {
    for (const name of names) this.#owners.add(name);
  }

  /** Whether this store knows `owner` is in `ask_owners`. */
  knowsOwner(owner: string): boolean {
    return this.#owners.has(owner);
  }

  /** Marks the store closed: calls from now on fail, and a database still opening is closed. */
  markClosed(): void {
    this.#closed = true;
  }

  /** Closes the worker (its batches in flight answer first), then the store's connection. */
  async close(): Promise<void> {
    await this.#worker?.close();
    const connection = this.#connection;
    this.#connection = undefined;
    connection?.opened.close();
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
}
