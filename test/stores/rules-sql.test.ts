/**
 * The stores' rules as SQL (src/stores/rules-sql.ts) are written once for both dialects: each
 * runs on the tables SQLite's and PostgreSQL's migrations make, and the outbox and work-claim
 * rules pick the same rows from the same entries in both.
 */
import { createPostgresAskStore } from 'ask-engine/postgres';
import { createSqliteAskStore } from 'ask-engine/sqlite';
import Database from 'better-sqlite3';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES_DIALECT } from '../../src/stores/postgres-rows.js';
import type { SqlDialect } from '../../src/stores/row-columns.js';
import {
  awaitingSettleSql,
  type Bind,
  byInteractionOrderSql,
  claimableEntrySql,
  droppedAtSettleSql,
  dueAskSql,
  heldWorkSql,
  leasedForTrySql,
  noLiveOwnerSql,
  purgeableSql,
  type RuleTables,
  renewableWorkSql,
  settleHeardSql,
  takenBySql,
} from '../../src/stores/rules-sql.js';
import { SQLITE_DIALECT } from '../../src/stores/sqlite-rows.js';
import {
  type PostgresCluster,
  postgresMissing,
  startPostgresCluster,
} from '../support/postgres-cluster.js';

/** Runs `text` with `params` and returns its first column's values. */
type Query = (text: string, params: unknown[]) => Promise<unknown[]>;

/** One dialect's way to the migrated tables. */
interface Target {
  dialect: SqlDialect;
  /** Table names as a statement gives them (schema-qualified in PostgreSQL). */
  asks: string;
  leases: string;
  outbox: string;
  claims: string;
  /** A placeholder for the n-th value. */
  placeholder(n: number): string;
  /** The owner as the asks' rows name it (SQLite: its number in `ask_owners`). */
  owner(placeholder: string): string;
  query: Query;
}

const NOW = 100;

/** A statement built by `build`, each value bound where the rule asks for it, in text order. */
async function select(
  target: Target,
  build: (value: (v: unknown) => Bind) => string,
): Promise<unknown[]> {
  const params: unknown[] = [];
  const value = (v: unknown): Bind => {
    return () => {
      params.push(v);
      return target.placeholder(params.length);
    };
  };
  const text = build(value);
  return (await target.query(text, params)).map(String).sort();
}

/** Outbox entries (see each rule's expectations below). */
function seedOutbox(target: Target): string[] {
  const flag = (value: boolean) => String(target.dialect.writeFlag(value));
  const row = (
    id: string,
    ask: string,
    due: number | null,
    whileOpen: boolean,
    attempts: number,
    claimedUntil: number,
    claimedBy: string | null,
    doneAt: number | null,
  ) =>
    `INSERT INTO ${target.outbox} (delivery_id, ask_id, channel, due_at, while_open, payload, attempts, claimed_until, claimed_by, done_at)
     VALUES ('${id}', '${ask}', 'c', ${due ?? 'NULL'}, ${flag(whileOpen)}, '{}', ${attempts}, ${claimedUntil}, ${claimedBy === null ? 'NULL' : `'${claimedBy}'`}, ${doneAt ?? 'NULL'})`;
  return [
    row('due', 'a', 50, false, 0, 0, null, null),
    row('done', 'a', 50, false, 1, 0, null, 60),
    row('waiting', 'a', null, false, 0, 0, null, null),
    row('later', 'a', 150, false, 0, 0, null, null),
    row('leased', 'a', 50, false, 1, 200, 's1', null),
    row('held-back', 'b', 50, false, 0, 0, null, null),
    row('sending-open', 'b', 50, true, 2, 200, null, null),
    row('open', 'c', 50, true, 0, 0, null, null),
  ];
}

function seedClaims(target: Target): string[] {
  const row = (key: string, holder: string, until: number, doneAt: number | null) =>
    `INSERT INTO ${target.claims} ("key", holder, lease_until, done_at)
     VALUES ('${key}', '${holder}', ${until}, ${doneAt ?? 'NULL'})`;
  return [
    row('running', 'h', 200, null),
    row('ran-out', 'h', 50, null),
    row('done', 'h', 200, 90),
    row('other', 'g', 200, null),
  ];
}

/** The same cases for each dialect. */
function rulesOn(target: () => Target): void {
  const tables = (asks: string): RuleTables => {
    const { leases, outbox } = target();
    return { asks, leases, outbox };
  };

  it('reads the asks by their rules on the tables the migrations make', async () => {
    const t = target();
    const now = (value: (v: unknown) => Bind) => value(NOW);
    await expect(
      select(t, (v) => `SELECT a.id FROM ${t.asks} a WHERE ${noLiveOwnerSql(tables('a'), now(v))}`),
    ).resolves.toEqual([]);
    await expect(
      select(
        t,
        (v) => `SELECT a.id FROM ${t.asks} a WHERE ${dueAskSql(t.dialect, tables('a'), now(v))}`,
      ),
    ).resolves.toEqual([]);
    await expect(
      select(
        t,
        (v) =>
          `SELECT a.id FROM ${t.asks} a WHERE ${purgeableSql(t.dialect, tables('a'), v(NOW), now(v))}`,
      ),
    ).resolves.toEqual([]);
    await expect(
      select(
        t,
        (v) =>
          `SELECT a.id FROM ${t.asks} a WHERE ${settleHeardSql(t.dialect, 'a', () => t.owner(v('owner')()))}`,
      ),
    ).resolves.toEqual([]);
    await expect(
      select(t, () => `SELECT a.id FROM ${t.asks} a ORDER BY ${byInteractionOrderSql('a')}`),
    ).resolves.toEqual([]);
  });

  it('claims, takes, renews and drops the same outbox entries', async () => {
    const t = target();
    const from = `SELECT o.delivery_id FROM ${t.outbox} o WHERE`;
    await expect(
      select(t, (v) => `${from} ${claimableEntrySql(t.dialect, tables('a'), 'o', v(NOW))}`),
    ).resolves.toEqual(['due', 'open']);
    await expect(select(t, () => `${from} ${awaitingSettleSql('o')}`)).resolves.toEqual([
      'waiting',
    ]);
    await expect(
      select(t, (v) => `${from} ${droppedAtSettleSql(t.dialect, 'o', v(NOW))}`),
    ).resolves.toEqual(['open']);
    await expect(select(t, (v) => `${from} ${leasedForTrySql('o', v(1))}`)).resolves.toEqual([
      'leased',
    ]);
    await expect(select(t, (v) => `${from} ${takenBySql('o', v('s1'), v(NOW))}`)).resolves.toEqual([
      'leased',
    ]);
  });

  it('lets a holder finish, release and renew the same work claims', async () => {
    const t = target();
    const from = `SELECT c."key" FROM ${t.claims} c WHERE`;
    await expect(select(t, (v) => `${from} ${heldWorkSql('c', v('h'))}`)).resolves.toEqual([
      'ran-out',
      'running',
    ]);
    await expect(
      select(t, (v) => `${from} ${renewableWorkSql('c', v('h'), v(NOW))}`),
    ).resolves.toEqual(['running']);
  });
}

describe('the rules on SQLite', () => {
  let db: Database.Database;
  let target: Target;
  beforeAll(async () => {
    db = new Database(':memory:');
    const store = createSqliteAskStore({ database: db });
    await store.get('none');
    await store.close();
    target = {
      dialect: SQLITE_DIALECT,
      asks: 'asks',
      leases: 'ask_leases',
      outbox: 'ask_outbox',
      claims: 'ask_claims',
      placeholder: () => '?',
      owner: (placeholder) => `(SELECT id FROM ask_owners WHERE name = ${placeholder})`,
      query: async (text, params) =>
        (
          db
            .prepare(text)
            .raw(true)
            .all(...params) as unknown[][]
        ).map((row) => row[0]),
    };
    for (const statement of [...seedOutbox(target), ...seedClaims(target)]) db.exec(statement);
  });
  afterAll(() => db?.close());
  rulesOn(() => target);
});

describe.skipIf(postgresMissing !== undefined)(
  `the rules on PostgreSQL${postgresMissing ? ` (skipped: ${postgresMissing})` : ''}`,
  () => {
    let cluster: PostgresCluster;
    let sql: postgres.Sql;
    let target: Target;
    beforeAll(async () => {
      cluster = await startPostgresCluster();
      const store = createPostgresAskStore({ connectionString: cluster.url }, { schema: 'rules' });
      await store.get('none');
      await store.close();
      sql = postgres(cluster.url, { max: 1, onnotice: () => {} });
      target = {
        dialect: POSTGRES_DIALECT,
        asks: 'rules.asks',
        leases: 'rules.ask_leases',
        outbox: 'rules.ask_outbox',
        claims: 'rules.ask_claims',
        placeholder: (n) => `$${n}`,
        owner: (placeholder) => placeholder,
        query: async (text, params) =>
          (await sql.unsafe(text, params as never[]).values()).map((row) => row[0]),
      };
      for (const statement of [...seedOutbox(target), ...seedClaims(target)]) {
        await sql.unsafe(statement);
      }
    });
    afterAll(async () => {
      await sql?.end();
      await cluster?.destroy();
    });
    rulesOn(() => target);
  },
);
