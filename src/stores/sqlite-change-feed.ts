/**
 * The SQLite store's change feed. Its own writes are told on the next turn of the event loop;
 * writes by other connections (other processes, other store instances) are found by polling
 * `PRAGMA data_version`, which changes only when another connection commits, and then reading
 * the `ask_events` rows added since the last one seen.
 */
import type { AskStoreChange } from './ask-store.js';
import { notifyListeners } from './change-listeners.js';
import type { SqliteDatabase, SqliteStatement } from './sqlite-database.js';

/** Events read per query while catching up, so a long absence does not load all at once. */
const PAGE = 1_000;

interface FeedStatements {
  dataVersion: SqliteStatement;
  lastEventId: SqliteStatement;
  eventsAfter: SqliteStatement;
}

export class SqliteChangeFeed {
  readonly #listeners = new Set<(change: AskStoreChange) => void>();
  readonly #pollIntervalMs: number;
  readonly #onError: (error: unknown) => void;
  #statements: FeedStatements | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  #dataVersion = -1;
  #lastEventId = 0;
  #queue: AskStoreChange[] = [];

  constructor(pollIntervalMs: number, onError: (error: unknown) => void) {
    this.#pollIntervalMs = pollIntervalMs;
    this.#onError = onError;
  }

  /** Called once the connection is open and migrated. */
  attach(db: SqliteDatabase): void {
    this.#statements = {
      dataVersion: db.prepare('PRAGMA data_version'),
      lastEventId: db.prepare('SELECT coalesce(max(id), 0) AS id FROM ask_events'),
      eventsAfter: db.prepare(
        `SELECT e.id AS id, e.ask_id AS askId, a.version AS version
         FROM ask_events e JOIN asks a ON a.id = e.ask_id
         WHERE e.id > ? ORDER BY e.id LIMIT ${PAGE}`,
      ),
    };
    // Whoever subscribed before the file was open may have missed writes made meanwhile.
    if (this.active) this.#emit({ type: 'missed' });
    this.#start();
  }

  /** True while someone listens: only then is the feed worth its queries. */
  get active(): boolean {
    return this.#listeners.size > 0;
  }

  subscribe(listener: (change: AskStoreChange) => void): () => void {
    this.#listeners.add(listener);
    this.#start();
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size === 0) this.#stop();
    };
  }

  /**
   * Inside a write transaction: true when no other connection committed since the last poll,
   * so the events this write appends are the only ones the feed has not seen yet.
   */
  caughtUp(): boolean {
    return this.#timer !== undefined && this.#readDataVersion() === this.#dataVersion;
  }

  /** This store wrote `askId` at `version`; `eventId` is the last event it appended, if known. */
  written(askId: string, version: number, eventId: number | undefined, caughtUp: boolean): void {
    if (caughtUp && eventId !== undefined && eventId > this.#lastEventId) {
      this.#lastEventId = eventId;
    }
    this.#emit({ type: 'changed', askId, version });
  }

  close(): void {
    this.#stop();
    this.#listeners.clear();
    this.#queue = [];
  }

  #start(): void {
    if (this.#timer !== undefined || this.#statements === undefined || !this.active) return;
    // From now on: what happened before the first subscriber is not news.
    this.#dataVersion = this.#readDataVersion();
    this.#lastEventId = Number((this.#statements.lastEventId.get() as { id: number }).id);
    this.#timer = setInterval(() => this.#poll(), this.#pollIntervalMs);
    this.#timer.unref?.();
  }

  #stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #poll(): void {
    try {
      const dataVersion = this.#readDataVersion();
      if (dataVersion === this.#dataVersion) return;
      // Read the version before the events: a commit landing in between is read now and
      // flagged again by the next poll, never skipped.
      this.#dataVersion = dataVersion;
      const statements = this.#statements as FeedStatements;
      let rows: { id: number; askId: string; version: number }[];
      do {
        rows = statements.eventsAfter.all(this.#lastEventId) as typeof rows;
        const latest = new Map<string, number>();
        for (const row of rows) latest.set(row.askId, Number(row.version));
        for (const [askId, version] of latest) this.#emit({ type: 'changed', askId, version });
        if (rows.length > 0) this.#lastEventId = Number(rows.at(-1)!.id);
      } while (rows.length === PAGE && this.active);
    } catch (error) {
      // The next poll reads from the last event seen, so a failed poll loses nothing.
      this.#onError(error);
    }
  }

  #readDataVersion(): number {
    const statements = this.#statements as FeedStatements;
    return Number((statements.dataVersion.get() as { data_version: number }).data_version);
  }

  #emit(change: AskStoreChange): void {
    if (!this.active) return;
    // The next turn of the event loop, not a microtask: by then the service that made a write
    // has taken its new version, so it is not sent to read back the row it just wrote.
    if (this.#queue.length === 0) setImmediate(() => this.#flush());
    this.#queue.push(change);
  }

  #flush(): void {
    const changes = this.#queue;
    this.#queue = [];
    for (const change of changes) notifyListeners(this.#listeners, change);
  }
}
