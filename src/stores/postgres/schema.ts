/**
 * The names a PostgreSQL store writes into its statements, built once per store: the schema's
 * tables, the column lists of its rows, its NOTIFY channel and its sweepers' lock space.
 */
import type { Sql } from 'postgres';
import { columnList } from '../row-columns.js';
import { quoteIdentifier, quoteLiteral } from './migrations.js';
import { ASK_COLUMNS, CLAIMED_ASK_COLUMNS, EVENT_COLUMNS, recordsetTypes } from './rows.js';

/** A piece of SQL text the client inserts as it is (a name, a column list). */
export type Fragment = ReturnType<Sql['unsafe']>;

/** The schema's names as statement fragments. */
export interface PostgresSchema {
  /** The schema's name, unquoted. */
  readonly name: string;
  /** The NOTIFY channel: one per schema, so stores on other schemas do not hear each other. */
  readonly channel: string;
  readonly asks: Fragment;
  readonly events: Fragment;
  readonly outbox: Fragment;
  /** The ids of purged asks (tombstones): never given to a new ask. */
  readonly purged: Fragment;
  readonly leases: Fragment;
  readonly claims: Fragment;
  readonly askColumns: Fragment;
  /** What a claimed outbox entry carries of its ask (alias `a`). */
  readonly claimedAskColumns: Fragment;
  readonly eventColumns: Fragment;
  /** The event's columns with their types, for `jsonb_to_recordset`. */
  readonly eventTypes: Fragment;
  /** The first key of the sweepers' advisory locks on this schema's asks (the second: the ask's). */
  readonly lockSpace: Fragment;
}

export function postgresSchema(sql: Sql, schema: string): PostgresSchema {
  const s = quoteIdentifier(schema);
  return {
    name: schema,
    channel: `${schema}.asks`,
    asks: sql.unsafe(`${s}.asks`),
    events: sql.unsafe(`${s}.ask_events`),
    outbox: sql.unsafe(`${s}.ask_outbox`),
    purged: sql.unsafe(`${s}.ask_purged`),
    leases: sql.unsafe(`${s}.ask_leases`),
    claims: sql.unsafe(`${s}.ask_claims`),
    askColumns: sql.unsafe(columnList(ASK_COLUMNS)),
    claimedAskColumns: sql.unsafe(columnList(CLAIMED_ASK_COLUMNS, 'a.')),
    eventColumns: sql.unsafe(columnList(EVENT_COLUMNS)),
    eventTypes: sql.unsafe(recordsetTypes(EVENT_COLUMNS)),
    lockSpace: sql.unsafe(`hashtext(${quoteLiteral(`ask-engine:sweep:${schema}`)})`),
  };
}
