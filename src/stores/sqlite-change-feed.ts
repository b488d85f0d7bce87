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
import type { AskStoreChange } from './ask-store.js';
import { ChangeFanout } from './change-fanout.js';
import type { SqliteDatabase, SqliteStatement } from './sqlite-database.js';
import { LAST_EVENT_ID_SQL } from './sqlite-schema.js';

/** Events read per query while catching up, so a long absence does not load all at once. */
const PAGE = 1_000;

interface FeedStatements {
  dataVersion: SqliteStatement;
  lastEventId: SqliteStatement;
  eventsAfter: SqliteStatement;
  lastSeq: SqliteStatement;
  asksAfter: SqliteStatement;
}

/** A news row: an ask and the version it is at. */
interface NewsRow {
  id: number;
  askId: string;
  version: number;
}

export class SqliteChangeFeed {
  readonly #fanout: ChangeFanout;
  readonly #pollIntervalMs: number;
  readonly #onError: (error: unknown) => void;
  #statements: FeedStatements | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  #dataVersion = -1;
  #lastEventId = 0;
  /** Ids of events this connection appended since the last poll (already told). */
  #own = new Set<number>();
  #ownMax = 0;
  /** The row number of the newest ask seen. */
  #lastSeq = 0;
  /** Row numbers of asks this connection created since the last poll (already told). */
  #ownSeqs = new Set<number>();
  #ownSeqMax = 0;
  /** Writes of this store's own in flight on another connection (`hold`). */
  #held = 0;

  constructor(pollIntervalMs: number, onError: (error: unknown) => void) {
    this.#pollIntervalMs = pollIntervalMs;
    this.#onError = onError;
    this.#fanout = new ChangeFanout(onError);
  }

  /** Called once the connection is open and migrated. */
  attach(db: SqliteDatabase): void {
    this.#statements = {
      dataVersion: db.prepare('PRAGMA data_version'),
      lastEventId: db.prepare(LAST_EVENT_ID_SQL),
      eventsAfter: db.prepare(
        `SELECT e.id AS id, a.id AS askId, a.version AS version
         FROM ask_events e JOIN asks a ON a.seq = e.ask
         WHERE e.id > ? ORDER BY e.id LIMIT ${PAGE}`,
      ),
      lastSeq: db.prepare('SELECT coalesce(max(seq), 0) AS seq FROM asks'),
      asksAfter: db.prepare(
        `SELECT seq AS id, id AS askId, version FROM asks WHERE seq > ? ORDER BY seq LIMIT ${PAGE}`,
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
    if (this.#timer !== undefined) {
      if (eventId !== undefined) {
        this.#own.add(eventId);
        if (eventId > this.#ownMax) this.#ownMax = eventId;
      }
      if (seq !== undefined) {
        this.#ownSeqs.add(seq);
        if (seq > this.#ownSeqMax) this.#ownSeqMax = seq;
      }
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
    if (this.#timer !== undefined || this.#statements === undefined || !this.#fanout.active) {
      return;
    }
    // From now on: what happened before the first subscriber is not news.
    this.#dataVersion = this.#readDataVersion();
    this.#lastEventId = Number((this.#statements.lastEventId.get() as { id: number }).id);
    this.#own.clear();
    this.#ownMax = 0;
    this.#lastSeq = Number((this.#statements.lastSeq.get() as { seq: number }).seq);
    this.#ownSeqs.clear();
    this.#ownSeqMax = 0;
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
      if (dataVersion === this.#dataVersion) {
        // No other connection committed: every event and ask since the last one seen is ours.
        if (this.#ownMax > this.#lastEventId) this.#lastEventId = this.#ownMax;
        this.#own.clear();
        if (this.#ownSeqMax > this.#lastSeq) this.#lastSeq = this.#ownSeqMax;
        this.#ownSeqs.clear();
        return;
      }
      // Read the version before the rows: a commit landing in between is read now and
      // flagged again by the next poll, never skipped.
      this.#dataVersion = dataVersion;
      const statements = this.#statements as FeedStatements;
      this.#lastEventId = this.#readNews(statements.eventsAfter, this.#lastEventId, this.#own);
      if (this.#ownMax <= this.#lastEventId) this.#own.clear();
      this.#lastSeq = this.#readNews(statements.asksAfter, this.#lastSeq, this.#ownSeqs);
      if (this.#ownSeqMax <= this.#lastSeq) this.#ownSeqs.clear();
    } catch (error) {
      // The next poll reads from the last event seen, so a failed poll loses nothing.
      this.#onError(error);
    }
  }

  /**
   * Tells the asks of the rows `after` reads past `from`, page by page, but those in `own`
   * (this connection's, already told); returns the last row's id (`from` when none).
   */
  #readNews(after: SqliteStatement, from: number, own: Set<number>): number {
    let last = from;
    let rows: NewsRow[];
    do {
      rows = after.all(last) as NewsRow[];
      const latest = new Map<string, number>();
      for (const row of rows) {
        if (own.delete(Number(row.id))) continue;
        latest.set(row.askId, Number(row.version));
      }
      for (const [askId, version] of latest) this.#fanout.changed(askId, version);
      if (rows.length > 0) last = Number(rows.at(-1)!.id);
    } while (rows.length === PAGE && this.#fanout.active);
    return last;
  }

  #readDataVersion(): number {
    const statements = this.#statements as FeedStatements;
    return Number((statements.dataVersion.get() as { data_version: number }).data_version);
  }
}
