/**
 * The SQLite handle the store needs: the small part of better-sqlite3's synchronous API it
 * calls, which libsql and Node 22's `node:sqlite` `DatabaseSync` have too. Opening a file
 * imports better-sqlite3 lazily, so nothing loads it unless a path is given.
 */

/** A value bound to a `?` parameter. */
export type SqliteValue = string | number | null;

/**
 * A prepared statement: positional `?` parameters (the store binds only `SqliteValue`s), rows as
 * plain objects keyed by column. Parameters are typed `unknown` so that the drivers' own, more
 * specific statement types are accepted as they are.
 */
export interface SqliteStatement {
  /** `lastInsertRowid` is optional: without it the change feed may tell own writes twice. */
  run(...params: unknown[]): { changes: number | bigint; lastInsertRowid?: number | bigint };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

/**
 * The handle `createSqliteAskStore({ database })` accepts: `exec` (several statements, no
 * result) and `prepare`. That is all the store calls; pragmas go through them too. The store
 * begins its own transactions on it (`BEGIN IMMEDIATE`), so do not hand it a connection that is
 * inside a transaction of yours, and it never closes a handle it did not open.
 */
export interface SqliteDatabase {
  exec(sql: string): unknown;
  prepare(sql: string): SqliteStatement;
}

/** An open database and whether the store owns it (opened it from a path). */
export interface OpenedDatabase {
  db: SqliteDatabase;
  close(): void;
  /** The file, when the store opened one that a second connection can open too (not in memory). */
  path?: string;
}

/**
 * `statement` with its rows read as arrays and keyed here, where the driver can (better-sqlite3's
 * `raw` and `columns`): for a wide row that is about half the driver's cost per row (17 columns:
 * 4 µs against 7 µs, measured on the sweep's due rows). Other handles' statements are returned
 * as they are.
 */
export function keyedHere(statement: SqliteStatement): SqliteStatement {
  const driver = statement as SqliteStatement & {
    raw?: (toggle: boolean) => unknown;
    columns?: () => { name: string }[];
  };
  if (typeof driver.raw !== 'function' || typeof driver.columns !== 'function') return statement;
  const names = driver.columns().map((column) => column.name);
  driver.raw(true);
  const keyed = (values: unknown): Record<string, unknown> => {
    const row: Record<string, unknown> = {};
    for (let index = 0; index < names.length; index++) {
      row[names[index] as string] = (values as unknown[])[index];
    }
    return row;
  };
  return {
    run: (...params) => statement.run(...params),
    get: (...params) => {
      const values = statement.get(...params);
      return values === undefined ? undefined : keyed(values);
    },
    all: (...params) => statement.all(...params).map(keyed),
  };
}

/** Opens `path` with better-sqlite3, imported on first use. */
export async function openSqliteFile(path: string): Promise<OpenedDatabase> {
  let Database: typeof import('better-sqlite3');
  try {
    Database = (await import('better-sqlite3')).default;
  } catch (error) {
    throw new Error(
      'createSqliteAskStore({ path }) needs the better-sqlite3 package, an optional peer ' +
        'dependency of ask-engine: install better-sqlite3@^12, or pass { database } with an ' +
        'open handle (node:sqlite DatabaseSync, libsql).',
      { cause: error },
    );
  }
  try {
    const db = new Database(path);
    return {
      db,
      close: () => db.close(),
      ...(db.memory || db.name === '' ? {} : { path: db.name }),
    };
  } catch (error) {
    throw new Error(`Cannot open the SQLite ask store at ${path}: ${messageOf(error)}`, {
      cause: error,
    });
  }
}

/** Sets the connection up for several processes on one file: a busy timeout first, then WAL. */
export function configureConnection(
  db: SqliteDatabase,
  settings: { busyTimeoutMs: number; synchronous: 'full' | 'normal' },
): void {
  db.exec(`PRAGMA busy_timeout = ${settings.busyTimeoutMs}`);
  // Switching to WAL takes an exclusive lock, and SQLite can refuse it with SQLITE_BUSY at once,
  // without waiting out the busy timeout, while other processes open the same new file: try
  // again until the timeout has passed. An in-memory database stays in its 'memory' journal
  // mode, which is fine for one connection.
  const giveUpAt = Date.now() + settings.busyTimeoutMs;
  for (;;) {
    try {
      db.exec('PRAGMA journal_mode = WAL');
      break;
    } catch (error) {
      if (!isBusy(error) || Date.now() >= giveUpAt) throw error;
      sleepSync(5);
    }
  }
  // Set even to SQLite's own default: a build may lower WAL connections to NORMAL by itself
  // (better-sqlite3 is compiled with SQLITE_DEFAULT_WAL_SYNCHRONOUS=1).
  db.exec(`PRAGMA synchronous = ${settings.synchronous.toUpperCase()}`);
}

/** SQLITE_BUSY, as better-sqlite3 (`code`) and other handles (`errcode` 5, or the text) report it. */
function isBusy(error: unknown): boolean {
  const { code, errcode, message } = (error ?? {}) as {
    code?: unknown;
    errcode?: unknown;
    message?: unknown;
  };
  return (
    code === 'SQLITE_BUSY' ||
    errcode === 5 ||
    (typeof message === 'string' && /database is locked/i.test(message))
  );
}

/** Waits without returning to the event loop: opening a store is synchronous. */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Runs `work` in a write transaction taken up front (`BEGIN IMMEDIATE`), so a read inside it
 * cannot be outdated by another process before the write: the busy timeout queues writers
 * instead of failing them halfway.
 */
export function writeTransaction<T>(db: SqliteDatabase, work: () => T): T {
  return transaction(db, 'BEGIN IMMEDIATE', work);
}

/** `work` in a read transaction: every statement in it reads the same state of the file. */
export function readTransaction<T>(db: SqliteDatabase, work: () => T): T {
  return transaction(db, 'BEGIN', work);
}

function transaction<T>(db: SqliteDatabase, begin: string, work: () => T): T {
  db.exec(begin);
  try {
    const result = work();
    db.exec('COMMIT');
    return result;
  } catch (error) {
    rollback(db);
    throw error;
  }
}

/** Each handle's prepared `PRAGMA synchronous`, read before a commit that lowers it. */
const synchronousLevels = new WeakMap<SqliteDatabase, SqliteStatement>();

/**
 * `writeTransaction` whose commit does not wait for the disk: where the connection's
 * `synchronous` is above NORMAL, it is NORMAL for this one commit and put back after it. In WAL
 * mode such a commit survives a crash of the process; a power loss can undo it, and what was
 * committed after it up to the next synced commit, but never tears it. Only for bookkeeping
 * whose loss repeats work and loses nothing, such as an outbox entry's done mark (the message
 * is then sent again, as after a crash before the mark).
 */
export function unsyncedWriteTransaction<T>(db: SqliteDatabase, work: () => T): T {
  let read = synchronousLevels.get(db);
  if (read === undefined) {
    read = db.prepare('PRAGMA synchronous');
    synchronousLevels.set(db, read);
  }
  const level = Number((read.get() as { synchronous?: unknown } | undefined)?.synchronous);
  // 0 OFF and 1 NORMAL already commit without waiting; 2 FULL and 3 EXTRA are lowered.
  if (!(level > 1)) return writeTransaction(db, work);
  db.exec('PRAGMA synchronous = NORMAL');
  try {
    return writeTransaction(db, work);
  } finally {
    db.exec(`PRAGMA synchronous = ${level}`);
  }
}

function rollback(db: SqliteDatabase): void {
  try {
    db.exec('ROLLBACK');
  } catch {
    // SQLite already rolled back (some errors end the transaction themselves); the error that
    // got us here is the one the caller needs, and it is rethrown.
  }
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
