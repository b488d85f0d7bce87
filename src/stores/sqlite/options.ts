/** The SQLite store's options: documented defaults, each checked up front with the value received. */
import type { SqliteDatabase } from './database.js';

/** Where the asks live: a file (opened with better-sqlite3) or a handle you opened. */
export type SqliteAskStoreSource = { path: string } | { database: SqliteDatabase };

/** Options of `createSqliteAskStore`: polling, lock waits, durability and an error hook. */
export interface SqliteAskStoreOptions {
  /**
   * How often to look for writes by other connections (other processes), in ms. Default 25:
   * an ask answered by another process settles here within about that long. Each poll is one
   * `PRAGMA data_version` query, and the timer runs only while someone subscribes.
   */
  pollIntervalMs?: number;
  /** How long a write waits for another process's write lock before failing, in ms. Default 5000. */
  busyTimeoutMs?: number;
  /**
   * `PRAGMA synchronous`, set on every connection the store uses. Default 'full': a commit
   * survives a power loss. 'normal' in WAL mode survives a crash of the process but may lose
   * the last commits on a power loss, and commits faster. The store sets it even to FULL, since
   * some builds (better-sqlite3's among them) lower a WAL connection to NORMAL unless told.
   */
  synchronous?: 'full' | 'normal';
  /**
   * Told what goes wrong out of any caller's sight (default: a process warning): a failed poll
   * for other processes' changes (the next poll catches up), a due ask whose row cannot be
   * read, which `claimDue` skips and leaves as it is, a history event that does not parse
   * (left out of the history, which is read on), or a change listener that threw.
   */
  onError?: (error: unknown) => void;
}

export const DEFAULT_POLL_INTERVAL_MS = 25;
export const DEFAULT_BUSY_TIMEOUT_MS = 5_000;
export const DEFAULT_SYNCHRONOUS = 'full';

export interface Settings {
  pollIntervalMs: number;
  busyTimeoutMs: number;
  synchronous: 'full' | 'normal';
  onError: (error: unknown) => void;
}

export function readOptions(options: SqliteAskStoreOptions): Settings {
  const pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  if (!Number.isFinite(pollIntervalMs) || pollIntervalMs < 1) {
    throw new TypeError(
      `Expected \`pollIntervalMs\` to be a number from 1 and up, got \`${pollIntervalMs}\`.`,
    );
  }
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  if (!Number.isInteger(busyTimeoutMs) || busyTimeoutMs < 0) {
    throw new TypeError(
      `Expected \`busyTimeoutMs\` to be an integer from 0 and up, got \`${busyTimeoutMs}\`.`,
    );
  }
  const synchronous = options.synchronous ?? DEFAULT_SYNCHRONOUS;
  if (synchronous !== 'full' && synchronous !== 'normal') {
    throw new TypeError(
      `Expected \`synchronous\` to be 'full' or 'normal', got \`${String(synchronous)}\`.`,
    );
  }
  return {
    pollIntervalMs,
    busyTimeoutMs,
    synchronous,
    onError:
      options.onError ??
      ((error) => process.emitWarning(error as Error, { code: 'ASK_ENGINE_SQLITE' })),
  };
}

/** A value as an error message shows it. */
export function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'object') return `an object with keys [${Object.keys(value).join(', ')}]`;
  return `${typeof value} ${String(value)}`;
}
