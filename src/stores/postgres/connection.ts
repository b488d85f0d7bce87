/**
 * What every part of the PostgreSQL store shares: the client once the schema is migrated, and
 * how a statement's failure is read (a connection that was cut, a NUL the server cannot store,
 * a unique index that refused a row).
 */
import type postgres from 'postgres';
import type { Sql } from 'postgres';
import type { RuleDialect } from '../ask-rules-sql.js';
import type { PostgresSchema } from './schema.js';

/** The store's client and schema, as its parts (reads, writes, claims, purge) use them. */
export interface PostgresConnection {
  /** The client, for a statement that follows an `open()` of the same call. */
  readonly sql: Sql;
  readonly schema: PostgresSchema;
  /** The shared rules (`ask-rules-sql.ts`) as fragments of this client's statements. */
  readonly rules: RuleDialect<ReturnType<Sql>>;
  /** Told what the store could not hand to anyone (see `PostgresAskStoreOptions.onError`). */
  readonly onError: (error: unknown) => void;
  /** The client, once the schema is migrated; rejects once the store is closed. */
  open(): Promise<Sql>;
}

/** The rows are JSON-serializable by contract; the client's type wants to be told so. */
export function json(value: unknown): postgres.JSONValue {
  return value as postgres.JSONValue;
}

/**
 * PostgreSQL's text and jsonb cannot hold U+0000: a write carrying it fails, and says so
 * instead of the server's "unsupported Unicode escape sequence".
 */
export async function refuseNul<T>(askId: string, write: PromiseLike<T>): Promise<T> {
  try {
    return await write;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code !== '22P05' && code !== '22021') throw error;
    throw new Error(
      `Ask ${askId} was not written: PostgreSQL cannot store the character U+0000 (NUL) found in its row or event. Remove it from the answer or question text.`,
      { cause: error },
    );
  }
}

/** A connection that was cut (terminated, restarted, reset): the query never ran to its end. */
const CONNECTION_LOST = new Set([
  'ECONNRESET',
  'EPIPE',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  '57P01', // admin_shutdown: pg_terminate_backend, a fast shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
]);

/**
 * A read that met a connection cut while the pool still held it is run once more on a fresh
 * connection. Only reads: a write whose reply was lost may have committed, and its caller
 * must hear of the failure rather than of a second attempt.
 */
export async function retryRead<T>(read: () => PromiseLike<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (!isConnectionLost(error)) throw error;
    return read();
  }
}

export function isConnectionLost(error: unknown): boolean {
  return CONNECTION_LOST.has(String((error as { code?: unknown }).code));
}

export function isUniqueViolation(error: unknown, constraint: string): boolean {
  const { code, constraint_name } = error as { code?: unknown; constraint_name?: unknown };
  return code === '23505' && constraint_name === constraint;
}
