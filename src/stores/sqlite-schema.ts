/**
 * The SQLite store's schema as numbered migrations. Each runs once per file, in order, inside
 * one write transaction with its row in `ask_schema_version`, so several processes opening the
 * same file at once migrate it exactly once. Append new migrations; never edit a shipped one.
 */
import { type SqliteDatabase, writeTransaction } from './sqlite-database.js';

interface Migration {
  version: number;
  sql: string;
}

const migrations: readonly Migration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE asks (
        id TEXT PRIMARY KEY NOT NULL,
        state TEXT NOT NULL,
        version INTEGER NOT NULL,
        snapshot TEXT NOT NULL,
        questions TEXT NOT NULL,
        outcome TEXT,
        interaction_id TEXT,
        "key" TEXT UNIQUE,
        deadline_at INTEGER,
        owner TEXT,
        final INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      -- One open ask per interaction id; settled asks keep theirs for lookups.
      CREATE UNIQUE INDEX asks_open_interaction ON asks (interaction_id) WHERE final = 0;
      CREATE INDEX asks_interaction ON asks (interaction_id, updated_at)
        WHERE interaction_id IS NOT NULL;
      CREATE INDEX asks_due ON asks (final, deadline_at);
      CREATE TABLE ask_events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        ask_id TEXT NOT NULL,
        at INTEGER NOT NULL,
        type TEXT NOT NULL,
        json TEXT NOT NULL
      );
      CREATE INDEX ask_events_by_ask ON ask_events (ask_id, id);
    `,
  },
];

/** The schema version this build writes and reads. */
export const SQLITE_SCHEMA_VERSION = migrations.at(-1)!.version;

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
    for (const migration of migrations) {
      if (migration.version <= current) continue;
      db.exec(migration.sql);
      record.run(migration.version, Date.now());
    }
  });
}
