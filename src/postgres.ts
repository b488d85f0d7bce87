/**
 * `ask-engine/postgres`: the ask store for many hosts. Needs the optional peer dependency
 * `postgres` (porsager/postgres) 3.4.
 */

export { POSTGRES_SCHEMA_VERSION } from './stores/postgres-migrations.js';
export { CorruptAskRowError } from './stores/postgres-rows.js';
export {
  createPostgresAskStore,
  type PostgresAskStoreConnection,
  type PostgresAskStoreOptions,
} from './stores/postgres-store.js';
