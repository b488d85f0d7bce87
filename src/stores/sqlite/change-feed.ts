/**
 * The SQLite store's change feed. Its own writes are told through the shared fan-out with their
 * writer (so the subscriber that made one is not told of it); writes by other connections
 * (other processes, other store instances, writers unknown) are found by polling
 * `PRAGMA data_version`, which changes only when another connection commits, and then reading
 * the `ask_events` rows added since the last one seen, and the `asks` rows (new asks, whose
 * start event is often no row of its own: schema version 10) since the last row number seen.
 * Neither ids nor row numbers ever go back, even past a purge (migrations 8 and 10). Nothing is
 * read per write: the poll tells its own events and asks apart by their ids and row numbers.
 */
import type { AskStoreChange } from '../ask-store.js';
import { ChangeFanout } from '../change-fanout.js';
import type { SqliteDatabase, SqliteStatement } from './database.js';
import { LAST_EVENT_ID_SQL } from './schema.js';

/** Rows read per query while catching up, so a long absence does not load all at once. */
const PAGE = 1_000;

/** A news row: its id (an event id or an ask's row number), its ask and the ask's version. */
interface NewsRow {
  id: number;
  askId: string;
  version: number;
}

/**
 * Where the poll stands in one table whose ids never go back (`ask_events` by id, `asks` by row
 * number): the last id read, and the ids this connection wrote since (told when written).
 */
class NewsCursor {
  #last = 0;
  readonly #own = new Set<number>();
  #ownMax = 0;
  readonly #newest: SqliteStatement;
  readonly #after: SqliteStatement;

  /** `newest` reads the largest id as `id`; `after` reads `NewsRow`s past an id, in id order. */
  constructor(newest: SqliteStatement, after: SqliteStatement) {
    this.#newest = newest;
    this.#after = after;
  }

  /** From now on, rows past the newest one are news. */
  reset(): void {
    this.#last = Number((this.#newest.get() as { id: number }).id);
    this.#own.clear();
    this.#ownMax = 0;
  }

  /** This connection wrote row `id`, already told. */
  own(id: number): void {
    this.#own.add(id);
    if (id > this.#ownMax) this.#ownMax = id;
  }

  /** No other connection committed: every row since the last one read is this connection's. */
  allOwn(): void {
    if (this.#ownMax > this.#last) this.#last = this.#ownMax;
    this.#own.clear();
  }

  /**
   * Tells `fanout` the asks of the rows past the last one read, page by page, but this
   * connection's own.
   */
  read(fanout: ChangeFanout): void {
    let rows: NewsRow[];
    do {
      rows = this.#after.all(this.#last) as NewsRow[];
      const latest = new Map<string, number>();
      for (const row of rows) {
        if (this.#own.delete(Number(row.id))) continue;
        latest.set(row.askId, Number(row.version));
      }
      for (const [askId, version] of latest) fanout.changed(askId, version);
      if (rows.length > 0) this.#last = Number(rows.at(-1)!.id);
    } while (rows.length === PAGE && fanout.active);
    if (this.#ownMax <= this.#last) this.#own.clear();
  }
}

interface FeedReads {
  dataVersion: SqliteStatement;
  events: NewsCursor;
  asks: NewsCursor;
}

export class SqliteChangeFeed {
  readonly #fanout: ChangeFanout;
  readonly #pollIntervalMs: number;
  readonly #onError: (error: unknown) => void;
  #reads: FeedReads | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  #dataVersion = -1;
  /** Writes of this store's own in flight on another connection (`hold`). */
  #held = 0;

  constructor(pollIntervalMs: number, onError: (error: unknown) => void) {
    this.#pollIntervalMs = pollIntervalMs;
    this.#onError = onError;
    this.#fanout = new ChangeFanout(onError);
  }

  /** Called once the connection is open and migrated. */
  attach(db: SqliteDatabase): void {
    this.#reads = {
      dataVersion: db.prepare('PRAGMA data_version'),
      events: new NewsCursor(
        db.prepare(LAST_EVENT_ID_SQL),
        db.prepare(
          `SELECT e.id AS id, a.id AS askId, a.version AS version
           FROM ask_events e JOIN asks a ON a.seq = e.ask
           WHERE e.id > ? ORDER BY e.id LIMIT ${PAGE}`,
        ),
      ),
      asks: new NewsCursor(
        db.prepare('SELECT coalesce(max(seq), 0) AS id FROM asks'),
        db.prepare(
          `SELECT seq AS id, id AS askId, version FROM asks WHERE seq > ? ORDER BY seq LIMIT ${PAGE}`,
        ),
      ),
    };
    // Whoever subscribed before the file was open may have missed writes made meanwhile.
    this.#fanout.missed();
    this.#start();
  }

  subscribe(listener: (change: AskStoreChange) => void, writer: string | undefined): () => void {
    const unsubscribe = this.#fanout.subscribe(listener, writer, () => this.#stop());
    this.#start();
    return unsubscribe;
  }

  /**
   * This store wrote `askId` at `version` for `writer`; `eventId` is the event it appended, if
   * known, and `seq` the row number of the ask it created, if it created one.
   */
  written(
    askId: string,
    version: number,
    eventId: number | undefined,
    writer: string | undefined,
    seq?: number,
  ): void {
    if (this.#timer !== undefined && this.#reads !== undefined) {
      if (eventId !== undefined) this.#reads.events.own(eventId);
      if (seq !== undefined) this.#reads.asks.own(seq);
    }
    this.#fanout.changed(askId, version, writer);
  }

  /**
   * Polls wait until the returned release is called: this store is writing on another
   * connection (its worker thread), whose commit would read as another process's until the
   * store has told its writes with `written`.
   */
  hold(): () => void {
    this.#held += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#held -= 1;
    };
  }

  close(): void {
    this.#stop();
    this.#fanout.close();
  }

  #start(): void {
    if (this.#timer !== undefined || this.#reads === undefined || !this.#fanout.active) {
      return;
    }
    // From now on: what happened before the first subscriber is not news.
    this.#dataVersion = this.#readDataVersion();
    this.#reads.events.reset();
    this.#reads.asks.reset();
    this.#timer = setInterval(() => this.#poll(), this.#pollIntervalMs);
    this.#timer.unref?.();
  }

  #stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #poll(): void {
    if (this.#held > 0) return;
    try {
      const dataVersion = this.#readDataVersion();
      const { events, asks } = this.#reads as FeedReads;
      if (dataVersion === this.#dataVersion) {
        // No other connection committed: every event and ask since the last one seen is ours.
        events.allOwn();
        asks.allOwn();
        return;
      }
      // Read the version before the rows: a commit landing in between is read now and
      // flagged again by the next poll, never skipped.
      this.#dataVersion = dataVersion;
      events.read(this.#fanout);
      asks.read(this.#fanout);
    } catch (error) {
      // The next poll reads from the last rows seen, so a failed poll loses nothing.
      this.#onError(error);
    }
  }

  #readDataVersion(): number {
    const reads = this.#reads as FeedReads;
    return Number((reads.dataVersion.get() as { data_version: number }).data_version);
  }
}
