/** The PostgreSQL store's numbered schema migrations, applied once per schema under a lock. */
import type { Sql } from 'postgres';

/**
 * Migrations in order; a migration, once released, is never edited: a change is a new one.
 * `s` is the quoted schema name. Times are the service clock's milliseconds (the clock can be
 * simulated, so they are numbers, not timestamps); `double precision` keeps any of them exactly.
 */
const MIGRATIONS: readonly { name: string; sql: (s: string) => string }[] = [
  {
    name: 'asks and their audit events',
    sql: (s) => `
      create table ${s}.asks (
        id text primary key,
        state text not null,
        version integer not null,
        snapshot jsonb not null,
        questions jsonb not null,
        outcome jsonb,
        interaction_id text,
        key text unique,
        deadline_at double precision,
        owner text,
        final boolean not null,
        created_at double precision not null,
        updated_at double precision not null,
        -- A sweeper's lease on a due ask while it times it out (database time, not the clock's).
        claim text,
        claimed_until timestamptz
      ) with (fillfactor = 80); -- room on the page for the claim's update to stay HOT
      create unique index asks_open_interaction_id on ${s}.asks (interaction_id) where not final;
      create index asks_interaction_id on ${s}.asks (interaction_id, updated_at)
        where interaction_id is not null;
      create index asks_due on ${s}.asks (deadline_at) where not final;
      create table ${s}.ask_events (
        id bigserial primary key,
        ask_id text not null, -- an ask of ${s}.asks; the store checks it (no key lookup per event)
        at double precision not null,
        type text not null,
        from_state text,
        to_state text not null,
        data jsonb not null
      );
      create index ask_events_ask_id on ${s}.ask_events (ask_id, id);
    `,
  },
];

/**
 * Creates the schema and applies the migrations it lacks, in one transaction holding an
 * advisory lock on the schema name, so hosts starting together migrate once, one after the
 * other. Refuses a schema migrated by a newer ask-engine.
 */
export async function migratePostgresSchema(sql: Sql, schema: string): Promise<void> {
  const s = quoteIdentifier(schema);
  await sql.begin(async (tx) => {
    // `create ... if not exists` reports a NOTICE when it does nothing; the user's client may print them.
    await tx`set local client_min_messages = warning`;
    await tx`select pg_advisory_xact_lock(hashtext(${`ask-engine:${schema}`}))`;
    await tx.unsafe(`create schema if not exists ${s}`);
    await tx.unsafe(
      `create table if not exists ${s}.migrations (
        version integer primary key,
        name text not null,
        applied_at timestamptz not null default now()
      )`,
    );
    const [[applied]] = (await tx
      .unsafe(`select coalesce(max(version), 0)::int from ${s}.migrations`)
      .values()) as unknown as [[number]];
    if (applied > MIGRATIONS.length) {
      throw new Error(
        `PostgreSQL schema "${schema}" is at migration ${applied}, but this ask-engine knows migrations up to ${MIGRATIONS.length}: upgrade ask-engine on this host.`,
      );
    }
    for (let version = applied + 1; version <= MIGRATIONS.length; version++) {
      const migration = MIGRATIONS[version - 1]!;
      await tx.unsafe(migration.sql(s));
      await tx.unsafe(`insert into ${s}.migrations (version, name) values ($1, $2)`, [
        version,
        migration.name,
      ]);
    }
  });
}

export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
