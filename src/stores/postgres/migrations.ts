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
  {
    // Queries and retention (issue 17): the session and the agent, which the snapshot keeps,
    // get columns of their own (copied from the rows written before), and every filter of
    // `list` an index in list order (newest first, the ask id breaking ties), so a page is one
    // index range; `asks_settled` finds the asks `purge` may delete, oldest first.
    name: 'list filters and retention',
    sql: (s) => `
      alter table ${s}.asks add column session_id text, add column agent text;
      update ${s}.asks set
        session_id = case when jsonb_typeof(snapshot->'context'->'sessionId') = 'string'
          then snapshot->'context'->>'sessionId' end,
        agent = case when jsonb_typeof(snapshot->'context'->'agent') = 'string'
          then snapshot->'context'->>'agent' end
        where snapshot->'context' ?| array['sessionId', 'agent'];
      create index asks_created on ${s}.asks (created_at, id);
      create index asks_updated on ${s}.asks (updated_at);
      create index asks_state on ${s}.asks (state, created_at, id);
      create index asks_session on ${s}.asks (session_id, created_at, id)
        where session_id is not null;
      create index asks_agent on ${s}.asks (agent, created_at, id) where agent is not null;
      create index asks_settled on ${s}.asks (updated_at) where final;
    `,
  },
  {
    // The outbox (issue 16): messages written with the transition that causes them, claimed
    // by one sender with SKIP LOCKED and a lease. `due_at` null waits for the ask to settle;
    // `done_at` is set once sent or given up on.
    name: 'notification outbox',
    sql: (s) => `
      create table ${s}.ask_outbox (
        delivery_id text primary key,
        ask_id text not null,
        channel text not null,
        due_at double precision,
        while_open boolean not null,
        payload jsonb not null,
        attempts integer not null default 0,
        claimed_until double precision not null default 0,
        done_at double precision
      );
      create index ask_outbox_due on ${s}.ask_outbox (due_at)
        where done_at is null and due_at is not null;
      create index ask_outbox_ask on ${s}.ask_outbox (ask_id);
    `,
  },
  {
    // The sender an entry was written leased to (OutboxEntry.lease): it sends the entry without
    // claiming it. A claim by anyone else clears it.
    name: 'outbox entries written leased',
    sql: (s) => `
      alter table ${s}.ask_outbox add column claimed_by text;
    `,
  },
  {
    // Who answered, and whom a notification reached (issue 17): `list` filters by both. The
    // answered outcome's recipient and a notification event's recipient get columns of their
    // own (copied from the rows written before), each indexed for its filter; only rows that
    // have one take index entries.
    name: 'answered-by and notified-recipient filters',
    sql: (s) => `
      alter table ${s}.asks add column answered_by text;
      update ${s}.asks set answered_by = outcome->'answeredBy'->>'recipient'
        where outcome->>'status' = 'answered'
          and jsonb_typeof(outcome->'answeredBy'->'recipient') = 'string';
      create index asks_answered_by on ${s}.asks (answered_by, created_at, id)
        where answered_by is not null;
      alter table ${s}.ask_events add column recipient text;
      update ${s}.ask_events set recipient = data->>'recipient'
        where type in ('notified', 'reminded', 'escalated')
          and jsonb_typeof(data->'recipient') = 'string' and data->>'recipient' <> '';
      create index ask_events_recipient on ${s}.ask_events (recipient, ask_id)
        where recipient is not null;
    `,
  },
  {
    // Owner leases (issue 37): one row per service, renewed while it is open. While its lease
    // runs (past the clock's now), the service is live: a sweep leaves its pending asks to it,
    // and no other service takes them over.
    name: 'owner leases',
    sql: (s) => `
      create table if not exists ${s}.ask_leases (
        owner text primary key,
        lease_until double precision not null
      );
    `,
  },
  {
    // Ids are never reused (issue 37): a purge keeps the id of each ask it deletes (the id
    // alone), and an ask is created only under an id that is not here. A link signed for a
    // purged ask can then never open a new one, even one whose key hashes to the same id.
    name: 'purged ask ids',
    sql: (s) => `
      create table if not exists ${s}.ask_purged (id text primary key);
    `,
  },
  {
    // Attachments (issue 39): what a caller keeps with an ask for whoever resumes it (an agent
    // run's saved state), written when the ask is created and never updated.
    name: 'ask attachments',
    sql: (s) => `
      alter table ${s}.asks add column if not exists attachment jsonb;
    `,
  },
  {
    // Work claims (issue 39): one holder at a time for a piece of work (an agent run's round of
    // approved calls), a lease until `lease_until`, done once `done_at` is set. A claim that
    // belongs to an ask (`ask_id`) is deleted when a purge deletes that ask.
    name: 'work claims',
    sql: (s) => `
      create table if not exists ${s}.ask_claims (
        key text primary key,
        holder text not null,
        lease_until double precision not null,
        done_at double precision,
        ask_id text
      );
      create index if not exists ask_claims_ask on ${s}.ask_claims (ask_id) where ask_id is not null;
    `,
  },
];

/**
 * Creates the schema and applies the migrations it lacks, in one statement (a `DO` block, so
 * one transaction) holding an advisory lock on the schema name: hosts starting together
 * migrate once, one after the other. Refuses a schema migrated by a newer ask-engine.
 * One statement rather than an interactive transaction: `postgres` 3.4.9 crashes the process
 * when a transaction's connection is cut (it writes ROLLBACK to the closed socket).
 */
/** The migrations this build knows, in order: version `i + 1` is named `POSTGRES_MIGRATION_NAMES[i]`. */
export const POSTGRES_MIGRATION_NAMES: readonly string[] = Object.freeze(
  MIGRATIONS.map((migration) => migration.name),
);

export async function migratePostgresSchema(sql: Sql, schema: string): Promise<void> {
  const s = quoteIdentifier(schema);
  const known = MIGRATIONS.length;
  const steps = MIGRATIONS.map(
    (migration, index) => `
    if applied < ${index + 1} then
      ${migration.sql(s)}
      insert into ${s}.migrations (version, name) values (${index + 1}, ${quoteLiteral(migration.name)});
    end if;`,
  ).join('');
  await sql.unsafe(`do $migrate$
  declare
    applied integer;
  begin
    -- "create ... if not exists" reports a NOTICE when it does nothing; clients may print them.
    perform set_config('client_min_messages', 'warning', true);
    perform pg_advisory_xact_lock(hashtext(${quoteLiteral(`ask-engine:${schema}`)}));
    create schema if not exists ${s};
    create table if not exists ${s}.migrations (
      version integer primary key,
      name text not null,
      applied_at timestamptz not null default now()
    );
    select coalesce(max(version), 0) into applied from ${s}.migrations;
    if applied > ${known} then
      raise exception using message = format(
        'PostgreSQL schema "%s" is at migration %s, but this ask-engine knows migrations up to %s: upgrade ask-engine on this host.',
        ${quoteLiteral(schema)}, applied, ${known});
    end if;${steps}
  end
  $migrate$`);
}

export function quoteLiteral(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
