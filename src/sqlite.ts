/**
 * `ask-engine/sqlite`: the embedded durable ask store. Node-only; better-sqlite3 (an optional
 * peer dependency) is imported only when the store opens a file by `path`.
 *
 * @module ask-engine/sqlite
 */
export type { SqliteDatabase, SqliteStatement } from './stores/sqlite/database.js';
export {
  createSqliteAskStore,
  type SqliteAskStoreOptions,
  type SqliteAskStoreSource,
} from './stores/sqlite/store.js';
