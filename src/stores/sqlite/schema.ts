/**
 * The SQLite store's schema: the version this build writes, `migrate`, and the SQL fragments
 * its statements share about the rows' numbering. The migrations themselves (migrations.ts) each
 * run once per file, in order, inside one write transaction with its row in
 * `ask_schema_version`, so several processes opening the same file at once migrate it exactly
 * once.
 */
import { type SqliteDatabase, writeTransaction } from './database.js';
import { MIGRATIONS } from './migrations.js';

/**
 * The `ask` of a placeholder event row: no ask has row number 0, so no history, list or change
 * feed query (each joins `asks`) reads it. A placeholder only keeps the largest event id ever
 * given, so a new event never reuses one a purge deleted (migration 8).
 */
export const EVENT_ID_HOLDER = 0;

/** The largest event id in the file (a placeholder's included), 0 when there is none. */
export const LAST_EVENT_ID = '(SELECT coalesce(max(id), 0) FROM ask_events)';

/**
 * The row number of a new ask: after every ask in the file and every one a purge deleted
 * (migration 10), so row numbers never go back and the change feed finds new asks past the
 * last number it saw.
 */
export const NEXT_ASK_SEQ = `(SELECT coalesce(max(seq), 0) + 1 FROM (
    SELECT max(seq) AS seq FROM asks UNION ALL SELECT seq FROM ask_last_seq))`;

/** `LAST_EVENT_ID` as a query of its own, read as `id`. */
export const LAST_EVENT_ID_SQL = `SELECT ${LAST_EVENT_ID} AS id`;

/** The schema version this build writes and reads. */
export const SQLITE_SCHEMA_VERSION = MIGRATIONS.at(-1)!.version;

/** Brings the file's schema up to `SQLITE_SCHEMA_VERSION`; refuses a file from a newer build. */
export function migrate(db: SqliteDatabase, where: string): void {
  writeTransaction(db, () => {
    db.exec(
      'CREATE TABLE IF NOT EXISTS ask_schema_version (version INTEGER PRIMARY KEY NOT NULL, applied_at INTEGER NOT NULL)',
    );
    const row = db
      .prepare('SELECT coalesce(max(version), 0) AS version FROM ask_schema_version')
      .get() as { version: number };
    const current = Number(row.version);
    if (current > SQLITE_SCHEMA_VERSION) {
      throw new Error(
        `The SQLite ask store ${where} has schema version ${current}, but this ask-engine ` +
          `knows versions up to ${SQLITE_SCHEMA_VERSION}: upgrade ask-engine to open it.`,
      );
    }
    const record = db.prepare('INSERT INTO ask_schema_version (version, applied_at) VALUES (?, ?)');
    for (const migration of MIGRATIONS) {
      if (migration.version <= current) continue;
      db.exec(migration.sql);
      record.run(migration.version, Date.now());
    }
  });
}
