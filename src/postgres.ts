/**
 * `ask-engine/postgres`: the ask store for many hosts. Needs the optional peer dependency
 * `postgres` (porsager/postgres) 3.4.
 *
 * @module ask-engine/postgres
 */

export { CorruptAskRowError } from './stores/postgres/rows.js';
export {
  createPostgresAskStore,
  type PostgresAskStoreConnection,
  type PostgresAskStoreOptions,
} from './stores/postgres/store.js';
