/**
 * The shared SQL rules (`ask-rules-sql.ts`) run as each driver writes them in (SQLite's
 * `SQLITE_RULES`, PostgreSQL's `POSTGRES_TEXT_RULES`) on the tables each driver's migrations
 * make, and pick the same outbox entries and work claims from the same rows in both.
 */
import { createPostgresAskStore } from 'ask-engine/postgres';
import { createSqliteAskStore } from 'ask-engine/sqlite';
import Database from 'better-sqlite3';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  byInteractionOrder,
  claimableEntry,
  droppedAtSettle,
  dueAsk,
  heldBy,
  type LeaseTable,
  leasedForTry,
  noLiveOwner,
  type OutboxTable,
  purgeable,
  type RuleDialect,
  settleHeardBy,
  takenBy,
} from '../../src/stores/ask-rules-sql.js';
import { POSTGRES_TEXT_RULES } from '../../src/stores/postgres/rule-dialect.js';
import { SQLITE_RULES, SQLITE_TABLES } from '../../src/stores/sqlite/rules.js';
import {
  type PostgresCluster,
  postgresMissing,
  startPostgresCluster,
} from '../support/postgres-cluster.js';

/** One driver's tables and spelling. */
interface Target {
  rules: RuleDialect<string>;
  tables: LeaseTable & OutboxTable;
  asks: string;
  claims: string;
  /** The placeholder of the n-th value (named or numbered: a rule may write one twice). */
  placeholder(n: number): string;
  /** The owner as the asks' rows name it (SQLite: by its number in `ask_owners`). */
  owner(placeholder: string): string;
  /** A flag's literal in an INSERT. */
  flag(value: boolean): string;
  /** Runs `text` with `params`; the first column of each row. */
  query(text: string, params: unknown[]): Promise<unknown[]>;
}

const NOW = 100;

/** The first column of the rows `build` selects, sorted; `value` binds a value where it stands. */
async function select(
  target: Target,
  build: (value: (v: unknown) => string) => string,
): Promise<string[]> {
  const params: unknown[] = [];
  const value = (v: unknown) => {
    params.push(v);
    return target.placeholder(params.length);
  };
  return (await target.query(build(value), params)).map(String).sort();
}

/** Outbox entries and work claims, the same in both drivers' tables. */
function seed(target: Target): string[] {
  const entry = (
    id: string,
    ask: string,
    due: number | null,
    whileOpen: boolean,
    attempts: number,
    claimedUntil: number,
    claimedBy: string | null,
    doneAt: number | null,
  ) =>
    `INSERT INTO ${target.tables.outbox}
       (delivery_id, ask_id, channel, due_at, while_open, payload, attempts, claimed_until, claimed_by, done_at)
     VALUES ('${id}', '${ask}', 'c', ${due ?? 'NULL'}, ${target.flag(whileOpen)}, '{}', ${attempts},
       ${claimedUntil}, ${claimedBy === null ? 'NULL' : `'${claimedBy}'`}, ${doneAt ?? 'NULL'})`;
  const claim = (key: string, holder: string, until: number, doneAt: number | null) =>
    `INSERT INTO ${target.claims} ("key", holder, lease_until, done_at)
     VALUES ('${key}', '${holder}', ${until}, ${doneAt ?? 'NULL'})`;
  return [
    entry('due', 'a', 50, false, 0, 0, null, null),
    entry('done', 'a', 50, false, 1, 0, null, 60),
    entry('waiting', 'a', null, false, 0, 0, null, null),
    entry('later', 'a', 150, false, 0, 0, null, null),
    entry('leased', 'a', 50, false, 1, 200, 's1', null),
    entry('held-back', 'b', 50, false, 0, 0, null, null),
    entry('sending-open', 'b', 50, true, 2, 200, null, null),
    entry('open', 'c', 50, true, 0, 0, null, null),
    claim('running', 'h', 200, null),
    claim('ran-out', 'h', 50, null),
    claim('done', 'h', 200, 90),
    claim('other', 'g', 200, null),
  ];
}

/** The same cases for each driver. */
function rulesOn(target: () => Target): void {
  it('reads asks by the ask rules on the tables the migrations make', async () => {
    const t = target();
    const { rules, tables } = t;
    const from = `SELECT a.id FROM ${t.asks} a WHERE`;
    await expect(
      select(t, (v) => `${from} ${noLiveOwner(rules, tables, 'a', v(NOW))}`),
    ).resolves.toEqual([]);
    await expect(
      select(t, (v) => `${from} ${dueAsk(rules, tables, 'a', v(NOW))}`),
    ).resolves.toEqual([]);
    await expect(
      select(t, (v) => `${from} ${purgeable(rules, tables, 'a', v(NOW), v(NOW))}`),
    ).resolves.toEqual([]);
    await expect(
      select(t, (v) => `${from} ${settleHeardBy(rules, 'a', t.owner(v('owner')))}`),
    ).resolves.toEqual([]);
    await expect(
      select(
        t,
        () => `SELECT a.id FROM ${t.asks} a ORDER BY ${byInteractionOrder(rules, 'a', 'a.id')}`,
      ),
    ).resolves.toEqual([]);
  });

  it('claims, takes, renews and drops the same outbox entries', async () => {
    const t = target();
    const { rules, tables } = t;
    const from = `SELECT o.delivery_id FROM ${tables.outbox} o WHERE`;
    await expect(
      select(t, (v) => `${from} ${claimableEntry(rules, tables, 'o', v(NOW))}`),
    ).resolves.toEqual(['due', 'open']);
    await expect(
      select(t, (v) => `${from} ${droppedAtSettle(rules, 'o', v(NOW))}`),
    ).resolves.toEqual(['open']);
    await expect(select(t, (v) => `${from} ${leasedForTry(rules, 'o', v(1))}`)).resolves.toEqual([
      'leased',
    ]);
    await expect(
      select(t, (v) => `${from} ${takenBy(rules, 'o', v('s1'), v(NOW))}`),
    ).resolves.toEqual(['leased']);
  });

  it('lets a holder finish or release the same work claims', async () => {
    const t = target();
    await expect(
      select(t, (v) => `SELECT c."key" FROM ${t.claims} c WHERE ${heldBy(t.rules, 'c', v('h'))}`),
    ).resolves.toEqual(['ran-out', 'running']);
  });
}

describe('the shared rules on SQLite', () => {
  let db: Database.Database;
  let target: Target;
  beforeAll(async () => {
    db = new Database(':memory:');
    const store = createSqliteAskStore({ database: db });
    await store.get('none');
    await store.close();
    target = {
      rules: SQLITE_RULES,
      tables: SQLITE_TABLES,
      asks: 'asks',
      claims: 'ask_claims',
      placeholder: (n) => `@p${n}`,
      owner: (placeholder) => `(SELECT id FROM ask_owners WHERE name = ${placeholder})`,
      flag: (value) => (value ? '1' : '0'),
      query: async (text, params) =>
        (
          db
            .prepare(text)
            .raw(true)
            .all(
              Object.fromEntries(params.map((value, index) => [`p${index + 1}`, value])),
            ) as unknown[][]
        ).map((row) => row[0]),
    };
    for (const statement of seed(target)) db.exec(statement);
  });
  afterAll(() => db?.close());
  rulesOn(() => target);
});

describe.skipIf(postgresMissing !== undefined)(
  `the shared rules on PostgreSQL${postgresMissing ? ` (skipped: ${postgresMissing})` : ''}`,
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
        rules: POSTGRES_TEXT_RULES,
        tables: { leases: 'rules.ask_leases', outbox: 'rules.ask_outbox' },
        asks: 'rules.asks',
        claims: 'rules.ask_claims',
        placeholder: (n) => `$${n}`,
        owner: (placeholder) => placeholder,
        flag: (value) => String(value),
        query: async (text, params) =>
          (await sql.unsafe(text, params as never[]).values()).map((row) => row[0]),
      };
      for (const statement of seed(target)) await sql.unsafe(statement);
    });
    afterAll(async () => {
      await sql?.end();
      await cluster?.destroy();
    });
    rulesOn(() => target);
  },
);
