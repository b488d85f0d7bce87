/**
 * The SQLite store's worker: a thread with its own connection to the store's file, for the
 * store's work that need not block the event loop.
 * - Sweeps: it applies large batches of due asks' timeouts (`applyBatchPlan`) in write
 *   transactions of its own, so a storm's statements and commits run beside the event loop.
 *   The store reads and settles the due rows, a part at a time over several turns of its event
 *   loop; the worker keeps the parts and writes them together once the last has come, each row
 *   under the same version check as `update`, and answers with what applied once it has
 *   committed. The write lock is held only while the worker writes.
 * - Checkpoints: it copies the WAL back into the database file when the store asks
 *   (`checkpoint`), so the store's own commits seldom do (with `synchronous = FULL` a checkpoint
 *   writes and syncs hundreds of pages: milliseconds the event loop would wait).
 *
 * The worker's program is plain JavaScript built here, with `applyBatchPlan`'s source in it:
 * the rule that applies a batch lives once, whichever thread runs it.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { applyBatchPlan, type BatchPlan, type BatchResult, batchSql } from './batch.js';

/**
 * The worker's program (CommonJS, as `eval` workers run). A transaction is a run of messages
 * with one id: each brings one plan, kept until the last, which commits them (every plan
 * applied in one write transaction) or drops them, and is the only one answered, with every
 * plan's result or the first error. Transactions' messages may interleave; each is written
 * whole, in the order their ends arrive.
 */
const PROGRAM = `
const { parentPort, workerData } = require('node:worker_threads');
const applyBatchPlan = (${applyBatchPlan.toString()});
const { driver, path, busyTimeoutMs, synchronous, sql } = workerData;
// The driver's own error class does not cross threads: its message and code do.
const problem = (error) => ({
  message: error instanceof Error ? error.message : String(error),
  code: error === null || typeof error !== 'object' ? undefined : error.code,
});
let db;
const statements = {};
try {
  const Database = require(driver);
  db = new Database(path, { fileMustExist: true });
  db.exec('PRAGMA busy_timeout = ' + Number(busyTimeoutMs));
  db.exec('PRAGMA synchronous = ' + synchronous);
  for (const name of Object.keys(sql)) statements[name] = db.prepare(sql[name]);
} catch (error) {
  const { message, code } = problem(error);
  throw new Error('cannot open ' + path + ': ' + message + (code === undefined ? '' : ' (' + code + ')'));
}
// Each transaction's plans, by id, until its end arrives: only then is the write lock taken,
// so the lock is never held while this thread waits for the event loop's next part.
const plans = new Map();
const checkpoint = () => {
  try {
    // PASSIVE: copies what it can without waiting for any reader or writer.
    db.exec('PRAGMA wal_checkpoint(PASSIVE)');
  } catch (error) {
    parentPort.postMessage({ checkpointFailed: problem(error) });
  }
};
parentPort.on('message', (message) => {
  if (message.close === true) {
    // Copied here, the WAL is not left for the last connection to close, the store's own, to
    // copy while the event loop waits.
    checkpoint();
    db.close();
    parentPort.close();
    return;
  }
  if (message.checkpoint === true) {
    checkpoint();
    return;
  }
  const { id } = message;
  if (message.plan !== undefined) {
    const list = plans.get(id);
    if (list === undefined) plans.set(id, [message.plan]);
    else list.push(message.plan);
    return;
  }
  const list = plans.get(id) ?? [];
  plans.delete(id);
  if (message.end !== 'commit') {
    parentPort.postMessage({ id, results: [] });
    return;
  }
  try {
    db.exec('BEGIN IMMEDIATE');
    try {
      const results = list.map((plan) => applyBatchPlan(statements, plan));
      db.exec('COMMIT');
      parentPort.postMessage({ id, results });
    } catch (error) {
      try {
        db.exec('ROLLBACK');
      } catch {}
      throw error;
    }
  } catch (error) {
    parentPort.postMessage({ id, error: problem(error) });
  }
});
`;

type Reply =
  | { id: number; results: BatchResult[] }
  | { id: number; error: { message: string; code?: string } }
  | { checkpointFailed: { message: string; code?: string } };

interface Pending {
  resolve(results: BatchResult[]): void;
  reject(error: Error): void;
}

/**
 * One write transaction of the worker's: `apply` sends it a plan (kept by the worker), `end`
 * commits them all in one write transaction, or drops them, and resolves with every plan's
 * result, in order, once committed. Every transaction must be ended: until then the worker
 * keeps its plans.
 */
export interface SweepTransaction {
  apply(plan: BatchPlan): void;
  end(commit: boolean): Promise<BatchResult[]>;
}

export interface SqliteWorkerOptions {
  /** The store's file (opened by the store already, so it exists and is migrated). */
  path: string;
  busyTimeoutMs: number;
  synchronous: 'full' | 'normal';
  /** Told when a checkpoint failed (the next one is tried when asked for). */
  onCheckpointError(error: Error): void;
}

export class SqliteWorker {
  readonly #worker: Worker;
  readonly #pending = new Map<number, Pending>();
  #next = 0;
  /** Set once the thread died: every later batch fails with it (the store starts another). */
  #failure: Error | undefined;
  #closing = false;
  readonly #onCheckpointError: (error: Error) => void;

  constructor(options: SqliteWorkerOptions) {
    this.#onCheckpointError = options.onCheckpointError;
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    this.#worker = new Worker(PROGRAM, {
      eval: true,
      workerData: {
        driver,
        path: options.path,
        busyTimeoutMs: options.busyTimeoutMs,
        synchronous: options.synchronous.toUpperCase(),
        sql: batchSql(),
      },
    });
    // Idle, it never keeps a process alive; a batch in flight does, until it has committed.
    this.#worker.unref();
    this.#worker.on('message', (reply: Reply) => this.#reply(reply));
    this.#worker.on('error', (error) =>
      this.#fail(
        error instanceof Error
          ? error
          : new Error(`The SQLite store's worker failed: ${String(error)}`),
      ),
    );
    this.#worker.on('exit', (code) => {
      if (!this.#closing) this.#fail(new Error(`The SQLite store's worker exited (code ${code}).`));
    });
  }

  /** Why the thread died, if it did. */
  get failure(): Error | undefined {
    return this.#failure;
  }

  /** Begins a transaction; it is taken by the worker when the first message arrives. */
  begin(): SweepTransaction {
    const id = ++this.#next;
    let ended = false;
    let sent = false;
    return {
      apply: (plan) => {
        if (ended) throw new Error('The sweep transaction has ended.');
        sent = true;
        if (this.#failure === undefined) this.#worker.postMessage({ id, plan });
      },
      end: (commit) => {
        if (ended) return Promise.reject(new Error('The sweep transaction has ended.'));
        ended = true;
        // The worker never heard of it: there is nothing to commit or roll back.
        if (!sent) return Promise.resolve([]);
        if (this.#failure !== undefined) return Promise.reject(this.#failure);
        if (this.#closing) return Promise.reject(new Error("The SQLite store's worker is closed."));
        if (this.#pending.size === 0) this.#worker.ref();
        return new Promise<BatchResult[]>((resolve, reject) => {
          this.#pending.set(id, { resolve, reject });
          this.#worker.postMessage({ id, end: commit ? 'commit' : 'rollback' });
        });
      },
    };
  }

  /**
   * Asks the worker to checkpoint the WAL, after the transactions whose ends it was sent
   * before (a transaction is written whole, never cut by one). Nothing answers but a failure:
   * the next request never waits for this thread's event loop to turn, which a run of writes in
   * microtasks would not let it. It never keeps the process alive: a checkpoint cut short leaves the file whole, and
   * the next one (or SQLite's own, when the last connection closes) copies the rest.
   */
  checkpoint(): void {
    if (this.#failure !== undefined || this.#closing) return;
    this.#worker.postMessage({ checkpoint: true });
  }

  /** Closes the worker's connection once the batches in flight have answered. */
  async close(): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    if (this.#failure !== undefined) return;
    const exited = new Promise<void>((resolve) => this.#worker.once('exit', () => resolve()));
    // Messages are handled in order: the batches posted before this one answer first.
    this.#worker.postMessage({ close: true });
    this.#worker.ref();
    await exited;
    this.#fail(new Error("The SQLite store's worker is closed."));
  }

  #reply(reply: Reply): void {
    if ('checkpointFailed' in reply) {
      this.#onCheckpointError(replyError(reply.checkpointFailed));
      return;
    }
    const pending = this.#pending.get(reply.id);
    if (pending === undefined) return;
    this.#pending.delete(reply.id);
    if (this.#pending.size === 0 && !this.#closing) this.#worker.unref();
    if ('results' in reply) {
      pending.resolve(reply.results);
    } else {
      pending.reject(replyError(reply.error));
    }
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
  }
}

/** An error the worker reported, with its driver's code, as an Error of this thread. */
function replyError(error: { message: string; code?: string }): Error {
  return Object.assign(new Error(error.message), { code: error.code });
}
