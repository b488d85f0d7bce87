/**
 * `ask-engine/postgres`: the ask store for many hosts. Needs the optional peer dependency
 * `postgres` (porsager/postgres) 3.4.
 */

export { CorruptAskRowError } from './stores/postgres-rows.js';
export {
  createPostgresAskStore,
  type PostgresAskStoreConnection,
  type PostgresAskStoreOptions,
} from './stores/postgres-store.js';
