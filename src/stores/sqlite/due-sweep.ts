/**
 * The SQLite store's `claimDue`: due rows read in deadline order, settled by the caller's
 * `settle`, and written under the same version check as `update`, on the store's connection
 * or, for a storm of due asks, by its worker thread while the event loop goes on turning.
 */
import { eventLoopTurn } from '../../engine/event-loop.js';
import type { AskWrite, StoredAsk } from '../ask-store.js';
import { roundSpent } from '../claim-lanes.js';
import {
  applyBatchPlan,
  type BatchPlan,
  type BatchResult,
  planBatch,
  type SettledRow,
} from './batch.js';
import type { SqliteChangeFeed } from './change-feed.js';
import type { StoreConnection } from './connection.js';
import type { OpenedDatabase, SqliteValue } from './database.js';
import { type AskRow, readAsk } from './rows.js';
import type { Statements } from './statements.js';

/**
 * A claim of this many due asks or more is written by the store's worker thread (a storm of due
 * asks); a smaller one, on the store's own connection, costs less than starting a thread.
 */
const WORKER_BATCH = 16;
/** Rows a claim reads, settles and sends to the worker at a time. */
const WORKER_PART = 64;

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

/** The due sweep of one store: the claims it has in flight and where they stopped reading. */
export class DueSweep {
  readonly #connection: StoreConnection;
  readonly #feed: SqliteChangeFeed;
  /** Row numbers read by a claim and not yet written by the worker: other claims skip them. */
  readonly #inFlight = new Set<number>();
  /**
   * Where the latest claim still in flight stopped reading: a claim made meanwhile reads on
   * from there instead of reading (and skipping) the rows in flight again.
   */
  #frontier: SqliteValue[] | undefined;
  /** Claims the worker writes that are still reading their parts: `close` waits for them. */
  readonly #claims = new Set<Promise<void>>();

  constructor(connection: StoreConnection, feed: SqliteChangeFeed) {
    this.#connection = connection;
    this.#feed = feed;
  }

  async claimDue(
    now: number,
    limit: number,
    settle: (ask: StoredAsk) => AskWrite | undefined,
    enough?: () => boolean,
  ): Promise<AskWrite[]> {
    const { opened, statements } = await this.#connection.open();
    const corrupt: unknown[] = [];
    const claim: DueClaim = { now, settle, enough, corrupt };
    try {
      if (limit >= WORKER_BATCH && this.#connection.writesBeside(opened)) {
        return await this.#claimBeside(opened, statements, claim, limit);
      }
      // The write lock is taken before reading, so another process claiming at the same
      // moment waits and then finds these asks final: each due ask is settled once, and
      // claims at the same time get different asks.
      return this.#connection.write(
        opened,
        () => {
          const batch = this.#collect(statements, claim, limit);
          return batch.length === 0 ? [] : this.#applyHere(statements, batch);
        },
        { asks: (writes) => writes.length },
      );
    } finally {
      // Skipped, not fatal: the row stays as it is, and the error names the ask and the column.
      for (const error of corrupt) this.#connection.onError(error);
    }
  }

  /** Resolves once the claims still reading have stopped at their next slice and committed. */
  async close(): Promise<void> {
    await Promise.all(this.#claims);
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
      const rows = statements.due.all(...cursor.after, now, now, wanted) as (AskRow & {
        seq: number;
      })[];
      for (const row of rows) {
        if (roundSpent(batch.length + cursor.settled, enough)) {
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
      cursor.done && first.length < WORKER_BATCH ? undefined : this.#connection.liveWorker(opened);
    if (worker === undefined) {
      return this.#connection.write(opened, () => this.#applyHere(statements, first), {
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
            if (this.#connection.closed) break;
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
      const results = await this.#connection.workerWrite(() => transaction.end(true));
      return parts.flatMap(({ batch, plan }, index) =>
        this.#applied(batch, plan, results[index] as BatchResult),
      );
    } catch (error) {
      throw this.#connection.lockProblem(error);
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
      if (owner === undefined || this.#connection.knowsOwner(owner) || planned.has(owner)) continue;
      planned.add(owner);
      names.push(owner);
    }
    return names;
  }

  /** After a batch committed: the writes that applied, in the batch's order, told to the feed. */
  #applied(batch: readonly SettledRow[], plan: BatchPlan, result: BatchResult): AskWrite[] {
    this.#connection.named(plan.owners);
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
}
