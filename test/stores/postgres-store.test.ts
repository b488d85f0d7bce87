import type { AskAuditEvent, AskStore } from 'ask-engine';
import { createPostgresAskStore } from 'ask-engine/postgres';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAskQuery } from '../../src/stores/ask-query.js';
import { listStatement } from '../../src/stores/list-sql.js';
import { POSTGRES_MIGRATION_NAMES } from '../../src/stores/postgres/migrations.js';
import { postgresListDialect } from '../../src/stores/postgres/reads.js';
import {
  type PostgresCluster,
  postgresMissing,
  startPostgresCluster,
} from '../support/postgres-cluster.js';
import { answered, deferred, pendingAsk, timedOut } from './postgres-fixtures.js';

let cluster: PostgresCluster;
let admin: postgres.Sql;
let schemas = 0;
const opened: AskStore[] = [];

/** A store on a schema of its own, so tests do not see each other's asks. */
function storeOnNewSchema(extra: Parameters<typeof createPostgresAskStore>[1] = {}) {
  const schema = `t${++schemas}`;
  return { schema, store: storeOn(schema, extra) };
}

function storeOn(schema: string, extra: Parameters<typeof createPostgresAskStore>[1] = {}) {
  const store = createPostgresAskStore(
    { connectionString: cluster.url },
    { schema, max: 4, ...extra },
  );
  opened.push(store);
  return store;
}

async function historyOf(store: AskStore, askId: string): Promise<AskAuditEvent[]> {
  const events: AskAuditEvent[] = [];
  for await (const event of store.history(askId)) events.push(event);
  return events;
}

/** A change about one of the asks a test writes only to see that its LISTEN is up. */
function isProbe(change: unknown): boolean {
  return JSON.stringify(change).includes('"askId":"probe-');
}

/**
 * Waits for a change the predicate accepts. Up to 15 s: after its connections are cut, the
 * client reconnects its LISTEN with a backoff that a loaded machine stretches.
 */
function nextChange<T>(changes: T[], predicate: (change: T) => boolean): Promise<T> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const poll = () => {
      const found = changes.find(predicate);
      if (found !== undefined) resolve(found);
      else if (Date.now() - started > 15_000)
        reject(new Error(`No such change in ${JSON.stringify(changes)}`));
      else setTimeout(poll, 5);
    };
    poll();
  });
}

describe.skipIf(postgresMissing !== undefined)(
  `PostgreSQL ask store${postgresMissing ? ` (skipped: ${postgresMissing})` : ''}`,
  () => {
    beforeAll(async () => {
      cluster = await startPostgresCluster();
      admin = postgres(cluster.url, { onnotice: () => {} });
    });
    afterAll(async () => {
      await Promise.all(opened.map((store) => store.close()));
      await admin?.end();
      await cluster?.destroy();
    });

    it('reads back by id, key and interaction id exactly what it was given', async () => {
      const { store } = storeOnNewSchema();
      const start = pendingAsk('a1', { key: 'call-1', deadlineAt: 1_500.25, owner: 'host-a' });
      expect(await store.create(start)).toEqual({ created: true });
      expect(await store.get('a1')).toEqual(start.ask);
      expect(await store.findByKey('call-1')).toEqual(start.ask);
      const defer = deferred(start.ask, 'i-1');
      expect(await store.update(defer, 1)).toEqual({ ok: true });
      expect(await store.get('a1')).toEqual(defer.ask);
      expect(await store.findByInteractionId('i-1')).toEqual(defer.ask);
      expect(await historyOf(store, 'a1')).toEqual([start.event, defer.event]);
      expect(await store.get('missing')).toBeUndefined();
      expect(await store.findByKey('missing')).toBeUndefined();
      expect(await store.findByInteractionId('missing')).toBeUndefined();
    });

    it('creates nothing when an ask with the same id or key exists, and returns it', async () => {
      const { store } = storeOnNewSchema();
      const first = pendingAsk('a1', { key: 'k' });
      await store.create(first);
      expect(await store.create(pendingAsk('a1'))).toEqual({ created: false, existing: first.ask });
      expect(await store.create(pendingAsk('a2', { key: 'k' }))).toEqual({
        created: false,
        existing: first.ask,
      });
      expect(await store.get('a2')).toBeUndefined();
      expect(await historyOf(store, 'a1')).toHaveLength(1);
    });

    it('writes only at the expected version, and returns the current row otherwise', async () => {
      const { store } = storeOnNewSchema();
      const start = pendingAsk('a1');
      await store.create(start);
      const answer = answered(start.ask);
      expect(await store.update(answer, 1)).toEqual({ ok: true });
      const late = answered(start.ask, 5_000);
      expect(await store.update(late, 1)).toEqual({
        ok: false,
        reason: 'version',
        current: answer.ask,
      });
      expect(await store.update(answered(pendingAsk('nope').ask), 1)).toEqual({
        ok: false,
        reason: 'version',
        current: undefined,
      });
      expect((await historyOf(store, 'a1')).map((event) => event.type)).toEqual([
        'start',
        'answer',
      ]);
    });

    it('gives one of many concurrent writers at the same version the write', async () => {
      const { schema, store } = storeOnNewSchema();
      const other = storeOn(schema);
      const start = pendingAsk('a1');
      await store.create(start);
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          (i % 2 ? store : other).update(answered(start.ask, 2_000 + i), 1),
        ),
      );
      expect(results.filter((result) => result.ok)).toHaveLength(1);
      expect(await historyOf(store, 'a1')).toHaveLength(2);
    });

    it('refuses an interaction id held by another open ask and names the holder', async () => {
      const { store } = storeOnNewSchema();
      const a = pendingAsk('a');
      const b = pendingAsk('b');
      await store.create(a);
      await store.create(b);
      const aDeferred = deferred(a.ask, 'shared');
      await store.update(aDeferred, 1);
      expect(await store.update(deferred(b.ask, 'shared'), 1)).toEqual({
        ok: false,
        reason: 'interaction-id',
        holder: 'a',
      });
      expect(await store.get('b')).toEqual(b.ask);
      // Once the holder is final the id is free again; lookups prefer the open ask.
      const aAnswered = answered(aDeferred.ask, 2_000);
      await store.update(aAnswered, 2);
      expect(await store.findByInteractionId('shared')).toEqual(aAnswered.ask);
      const bDeferred = deferred(b.ask, 'shared', 3_000);
      expect(await store.update(bDeferred, 1)).toEqual({ ok: true });
      expect(await store.findByInteractionId('shared')).toEqual(bDeferred.ask);
      const bAnswered = answered(bDeferred.ask, 4_000);
      await store.update(bAnswered, 2);
      expect(await store.findByInteractionId('shared')).toEqual(bAnswered.ask);
    });

    it('appends events that change no state, and refuses them for an unknown ask', async () => {
      const { store } = storeOnNewSchema();
      const start = pendingAsk('a1');
      await store.create(start);
      const late: AskAuditEvent = {
        askId: 'a1',
        type: 'late-answer',
        at: 3_000,
        from: 'pending',
        to: 'pending',
        data: { source: 'answer' },
      };
      await store.append(late);
      expect(await historyOf(store, 'a1')).toEqual([start.event, late]);
      await expect(store.append({ ...late, askId: 'ghost' })).rejects.toThrow(
        'Cannot append an audit event to unknown ask ghost.',
      );
    });

    it('claims due asks oldest deadline first, up to the limit, and applies the settled rows', async () => {
      const { store } = storeOnNewSchema();
      for (const [id, deadlineAt] of [
        ['late', 3_000],
        ['first', 1_000],
        ['second', 2_000],
        ['never', undefined],
        ['future', 9_000],
      ] as const) {
        await store.create(pendingAsk(id, deadlineAt === undefined ? {} : { deadlineAt }));
      }
      const seen: string[] = [];
      const claimed = await store.claimDue(5_000, 2, (ask) => {
        seen.push(ask.askId);
        return timedOut(ask, 5_000);
      });
      expect(seen).toEqual(['first', 'second']);
      expect(claimed.map((write) => write.ask.askId)).toEqual(['first', 'second']);
      expect((await store.get('first'))?.state).toBe('timedOut');
      const rest = await store.claimDue(5_000, 10, (ask) =>
        ask.askId === 'late' ? undefined : timedOut(ask, 5_000),
      );
      expect(rest).toEqual([]);
      expect((await store.get('late'))?.state).toBe('pending');
      expect((await store.get('future'))?.state).toBe('pending');
      expect((await historyOf(store, 'second')).map((event) => event.type)).toEqual([
        'start',
        'deadline',
      ]);
    });

    it('never lets two stores claim the same due ask', async () => {
      const { schema, store } = storeOnNewSchema();
      const other = storeOn(schema);
      const ids = Array.from({ length: 300 }, (_, i) => `due-${i}`);
      await Promise.all(
        ids.map((id, i) => store.create(pendingAsk(id, { deadlineAt: 1_000 + i }))),
      );
      const settled: string[] = [];
      const sweep = async (sweeper: AskStore) => {
        for (;;) {
          const writes = await sweeper.claimDue(10_000, 25, (ask) => timedOut(ask, 10_000));
          settled.push(...writes.map((write) => write.ask.askId));
          if (writes.length === 0) return;
        }
      };
      await Promise.all([sweep(store), sweep(other), sweep(store), sweep(other)]);
      expect(settled.sort()).toEqual([...ids].sort());
      const [row] = await admin.unsafe(
        `select count(*)::int as n from ${schema}.ask_events where type = 'deadline'`,
      );
      expect(row?.n).toBe(300);
    });

    it('holds the asks of a round until its writes are in: another sweeper takes the next ones, and no lock is left', async () => {
      const { schema, store } = storeOnNewSchema();
      const other = storeOn(schema);
      for (let i = 0; i < 4; i++) {
        await store.create(pendingAsk(`due-${i}`, { deadlineAt: 1_000 + i }));
      }
      // A transaction locking the events table keeps each round's write waiting, before it
      // touches a row: only the claim keeps the second sweeper off the first one's asks.
      let release!: () => void;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let locked!: () => void;
      const tableLocked = new Promise<void>((resolve) => {
        locked = resolve;
      });
      const holder = admin.begin(async (tx) => {
        await tx.unsafe(`lock table ${schema}.ask_events in share mode`);
        locked();
        await held;
      });
      try {
        await tableLocked;
        const seenFirst: string[] = [];
        const first = store.claimDue(5_000, 2, (ask) => {
          seenFirst.push(ask.askId);
          return timedOut(ask, 5_000);
        });
        await expect.poll(() => seenFirst.length).toBe(2);
        const seenSecond: string[] = [];
        const second = other.claimDue(5_000, 10, (ask) => {
          seenSecond.push(ask.askId);
          return timedOut(ask, 5_000);
        });
        await expect.poll(() => seenSecond.length).toBeGreaterThan(0);
        expect(seenSecond).toEqual(['due-2', 'due-3']);
        release();
        expect((await first).map((write) => write.ask.askId)).toEqual(['due-0', 'due-1']);
        expect((await second).map((write) => write.ask.askId)).toEqual(['due-2', 'due-3']);
      } finally {
        release();
        await holder;
      }
      const [locks] =
        await admin`select count(*)::int as n from pg_locks where locktype = 'advisory'`;
      expect(locks?.n).toBe(0);
    });

    it('tells every listening store about every write, its own included', async () => {
      const { schema, store } = storeOnNewSchema();
      const other = storeOn(schema);
      const heard: unknown[] = [];
      const heardHere: unknown[] = [];
      other.subscribe((change) => heard.push(change));
      store.subscribe((change) => heardHere.push(change));
      // Both LISTENs are up once each store hears a write made after it: probe until they do.
      for (let probe = 0; ; probe++) {
        await store.create(pendingAsk(`probe-${probe}`));
        if (heard.some(isProbe) && heardHere.some(isProbe)) break;
        if (probe === 100) throw new Error('The stores never heard a write: no LISTEN came up.');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const start = pendingAsk('a1');
      await store.create(start);
      await store.update(answered(start.ask), 1);
      await nextChange(heard, (change) => JSON.stringify(change).includes('"version":2'));
      // The probes' notifications may still be arriving; they are not what this test is about.
      // Both writes' news can arrive in one turn, which tells each ask once, at its latest.
      const v1 = { type: 'changed', askId: 'a1', version: 1 };
      const v2 = { type: 'changed', askId: 'a1', version: 2 };
      // Each store's first news is that its LISTEN came up (writes before it went unheard).
      expect(heard[0]).toEqual({ type: 'missed' });
      expect([[v1, v2], [v2]]).toContainEqual(heard.slice(1).filter((change) => !isProbe(change)));
      await nextChange(heardHere, (change) => JSON.stringify(change).includes('"version":2'));
    });

    it('reports "missed" once its first LISTEN is up, whether it wrote before or not', async () => {
      // Writes made between subscribe() and the LISTEN being up are not heard: an ask the
      // subscriber read or wrote in that window may have changed unheard, so it must re-read.
      const { schema, store: fresh } = storeOnNewSchema();
      const heardFresh: { type: string; askId?: string }[] = [];
      fresh.subscribe((change) => heardFresh.push(change));
      const writer = storeOn(schema);
      await writer.create(pendingAsk('w1'));
      const heardWriter: { type: string; askId?: string }[] = [];
      writer.subscribe((change) => heardWriter.push(change));
      await nextChange(heardWriter, (change) => change.type === 'missed');
      await nextChange(heardFresh, (change) => change.type === 'missed');
      await writer.create(pendingAsk('w2'));
      await nextChange(heardFresh, (change) => change.askId === 'w2');
      await nextChange(heardWriter, (change) => change.askId === 'w2');
      expect(heardWriter[0]).toEqual({ type: 'missed' });
      expect(heardFresh.filter((change) => change.type === 'missed')).toEqual([{ type: 'missed' }]);
      expect(heardFresh.slice(-1)).toEqual([{ type: 'changed', askId: 'w2', version: 1 }]);
    });

    it('reports "missed" after its listener connection is cut, and hears writes again', async () => {
      const { schema, store } = storeOnNewSchema();
      const writer = storeOn(schema);
      const heard: { type: string; askId?: string }[] = [];
      store.subscribe((change) => heard.push(change));
      // The LISTEN is up (its first 'missed'): a write before it would go unheard.
      await nextChange(heard, (change) => change.type === 'missed');
      await writer.create(pendingAsk('before'));
      await nextChange(heard, (change) => change.askId === 'before');
      heard.length = 0;
      const killed = await admin`
        select pg_terminate_backend(pid) from pg_stat_activity where query ilike ${`listen "${schema}.asks"`}
      `;
      expect(killed).toHaveLength(1);
      await nextChange(heard, (change) => change.type === 'missed');
      await writer.create(pendingAsk('after'));
      await nextChange(heard, (change) => change.askId === 'after');
    });

    describe('connections terminated by the server', () => {
      const unhandled: unknown[] = [];
      const onUnhandled = (reason: unknown) => unhandled.push(reason);
      // Clients that look up no types, so they are never held up by the lock below.
      let monitor: postgres.Sql;
      let locker: postgres.Sql;
      const killStoreConnections = async () => {
        const [self] = await locker`select pg_backend_pid() as pid`;
        return monitor.unsafe(`
          select pg_terminate_backend(pid) from pg_stat_activity
          where pid <> pg_backend_pid() and pid <> ${Number(self?.pid)}
            and datname = current_database() and backend_type = 'client backend'`);
      };
      beforeAll(async () => {
        process.on('unhandledRejection', onUnhandled);
        monitor = postgres(cluster.url, { max: 1, fetch_types: false, onnotice: () => {} });
        locker = postgres(cluster.url, { max: 1, fetch_types: false, onnotice: () => {} });
      });
      afterAll(async () => {
        process.off('unhandledRejection', onUnhandled);
        await monitor.end();
        await locker.end();
      });

      it('survives them while idle, reads at once after, and hears writes again', async () => {
        const { schema, store } = storeOnNewSchema();
        const writer = storeOn(schema);
        const heard: { type: string; askId?: string }[] = [];
        store.subscribe((change) => heard.push(change));
        // The LISTEN is up (its first 'missed'): a write before it would go unheard.
        await nextChange(heard, (change) => change.type === 'missed');
        await store.create(pendingAsk('before'));
        await writer.get('before');
        await nextChange(heard, (change) => change.askId === 'before');
        heard.length = 0;
        for (let round = 0; round < 3; round++) {
          const killed = await killStoreConnections();
          expect(killed.length).toBeGreaterThan(round === 0 ? 1 : 0);
          // A read right away meets a pooled connection that is already cut: it is run again.
          expect(await store.get('before')).toEqual(pendingAsk('before').ask);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        await nextChange(heard, (change) => change.type === 'missed');
        await writer.create(pendingAsk('after'));
        await nextChange(heard, (change) => change.askId === 'after');
        expect(await store.get('after')).toEqual(pendingAsk('after').ask);
        expect(unhandled).toEqual([]);
      }, 60_000);

      it('leaves no rejection unhandled when a connection is cut while it is being set up', async () => {
        const { store } = storeOnNewSchema();
        await store.create(pendingAsk('a1'));
        await killStoreConnections();
        await new Promise((resolve) => setTimeout(resolve, 100));
        // The catalog locked: a client that looks up types on connect waits there, and is cut.
        let read: Promise<unknown> = Promise.resolve();
        await locker.begin(async (tx) => {
          await tx`lock table pg_catalog.pg_type in access exclusive mode`;
          read = store.get('a1').then(
            (ask) => ask,
            (error: unknown) => error,
          );
          await new Promise((resolve) => setTimeout(resolve, 200));
          const waiting = await monitor.unsafe(`
            select pid from pg_stat_activity
            where wait_event_type = 'Lock' and pid <> pg_backend_pid()`);
          for (const { pid } of waiting) {
            await monitor.unsafe(`select pg_terminate_backend(${Number(pid)})`);
          }
        });
        await read;
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(unhandled).toEqual([]);
        expect(await store.get('a1')).toEqual(pendingAsk('a1').ask);
      });
    });

    it('refuses a corrupt row with an error naming the ask and the column', async () => {
      const errors: unknown[] = [];
      const { schema, store } = storeOnNewSchema({ onError: (error) => errors.push(error) });
      await store.create(pendingAsk('bad-state', { deadlineAt: 1_000 }));
      await store.create(pendingAsk('bad-questions', { deadlineAt: 1_001 }));
      await store.create(pendingAsk('good', { deadlineAt: 1_002 }));
      await admin.unsafe(`update ${schema}.asks set state = 'won' where id = 'bad-state'`);
      await admin.unsafe(
        `update ${schema}.asks set questions = '{"id":"q1"}' where id = 'bad-questions'`,
      );
      await expect(store.get('bad-state')).rejects.toThrow(
        'Ask bad-state in the PostgreSQL store has a corrupt "state" column (not an ask state, got "won")',
      );
      // The store checks that a column parses; what the questions mean the engine checks.
      await expect(store.get('bad-questions')).rejects.toThrow(
        'Ask bad-questions in the PostgreSQL store has a corrupt "questions" column (not a JSON array, got {"id":"q1"})',
      );
      // The sweeper leaves corrupt rows (reported once) and still times out the others.
      const claimed = await store.claimDue(2_000, 10, (ask) => timedOut(ask, 2_000));
      expect(claimed.map((write) => write.ask.askId)).toEqual(['good']);
      await store.claimDue(2_000, 10, (ask) => timedOut(ask, 2_000));
      expect(errors.map((error) => (error as Error).message.slice(0, 30))).toEqual([
        'Ask bad-state in the PostgreSQ',
        'Ask bad-questions in the Postg',
      ]);
      await admin.unsafe(
        `update ${schema}.ask_events set data = '[]' where ask_id = 'good' and type = 'deadline'`,
      );
      // One bad history row is reported and left out; the rest of the history is read.
      expect((await historyOf(store, 'good')).map((event) => event.type)).toEqual(['start']);
      expect((errors[2] as Error).message).toBe(
        'Ask good in the PostgreSQL store has a corrupt "ask_events.data" column (not a JSON object, got []); it was not used. Repair or delete the row.',
      );
    });

    it('refuses a write carrying U+0000, which PostgreSQL cannot store, and says so', async () => {
      const { store } = storeOnNewSchema();
      const start = pendingAsk('nul');
      await store.create(start);
      const answer = answered(start.ask);
      answer.ask.outcome = {
        status: 'answered',
        answers: [{ questionId: 'q1', response: { kind: 'freeform', text: 'a\u0000b' } }],
      };
      await expect(store.update(answer, 1)).rejects.toThrow(
        'Ask nul was not written: PostgreSQL cannot store the character U+0000 (NUL) found in its row or event.',
      );
      expect(await store.get('nul')).toEqual(start.ask);
    });

    it('writes an ask through its key among 5,000 asks, never a scan of every ask', async () => {
      // The store's own connections log the plan of every statement they run (auto_explain).
      const sql = postgres(cluster.url, {
        max: 1,
        fetch_types: false,
        onnotice: () => {},
        connection: {
          session_preload_libraries: 'auto_explain',
          'auto_explain.log_min_duration': '0',
        },
      });
      try {
        const schema = `t${++schemas}`;
        const store = createPostgresAskStore({ sql }, { schema });
        await store.create(pendingAsk('a0'));
        await admin.unsafe(`
          insert into "${schema}".asks (id, state, version, snapshot, questions, final,
            created_at, updated_at)
          select 'ask-' || i, 'pending', 1, a.snapshot, a.questions, false, i, i
          from generate_series(1, 5000) i, (select * from "${schema}".asks where id = 'a0') a;
          analyze "${schema}".asks;
        `);
        const logged = cluster.log().length;
        // More than five times, so the server may keep a generic plan for the statement.
        let ask = pendingAsk('a0').ask;
        for (let i = 0; i < 8; i++) {
          const next = deferred(ask, `thread-${i}`);
          expect(await store.update(next, ask.version)).toEqual({ ok: true });
          ask = next.ask;
        }
        const plans = cluster
          .log()
          .slice(logged)
          .split(/LOG: {2}duration: /)
          .filter((plan) => plan.includes(`update "${schema}".asks a set`));
        expect(plans).toHaveLength(8);
        for (const plan of plans) {
          expect(plan).toMatch(/Index Scan using asks_pkey on asks a/);
          expect(plan).not.toMatch(/Seq Scan on asks a/);
        }
        await store.close();
      } finally {
        await sql.end();
      }
    });

    it('lists through the index of each filter at 100,000 asks, never a sequential scan', async () => {
      const { schema, store } = storeOnNewSchema();
      await store.create(pendingAsk('a0'));
      const s = `"${schema}".asks`;
      // 100,000 asks like the first, as a store holds them after a while: most settled, a few
      // pending or deferred, in sessions, by agents.
      await admin.unsafe(`
        insert into ${s} (id, state, version, snapshot, questions, outcome, interaction_id, key,
          deadline_at, owner, final, created_at, updated_at, session_id, agent, answered_by)
        select 'ask-' || i,
          case when i % 50 = 0 then 'pending' when i % 70 = 0 then 'deferred' else 'answered' end,
          1, a.snapshot, a.questions, null, case when i % 7 = 0 then 'thread-' || i end,
          case when i % 3 = 0 then 'key-' || i end, i * 10, 'owner', i % 50 <> 0 and i % 70 <> 0,
          i * 1000, i * 1000 + 500,
          case when i % 5 = 0 then 'session-' || (i % 400) end,
          case when i % 11 = 0 then 'agent-' || (i % 7) end,
          case when i % 50 <> 0 and i % 70 <> 0 and i % 3 = 0 then 'person-' || (i % 200) end
        from generate_series(1, 100000) i, (select * from ${s} where id = 'a0') a;
        -- Two events per ask; every third ask told one of 200 people of it.
        insert into "${schema}".ask_events (ask_id, at, type, from_state, to_state, data, recipient)
        select 'ask-' || i, 1, 'start', null, 'pending', '{}', null
          from generate_series(1, 100000) i
        union all
        select 'ask-' || i, 2, 'notified', 'deferred', 'deferred',
          jsonb_build_object('recipient', 'person-' || (i % 200)), 'person-' || (i % 200)
          from generate_series(1, 100000) i where i % 3 = 1;
        analyze ${s};
        analyze "${schema}".ask_events;
      `);
      const shapes: [Parameters<AskStore['list']>[0], RegExp][] = [
        [{}, /asks_created/],
        [{ state: 'pending' }, /asks_state/],
        [{ state: ['pending', 'deferred'] }, /asks_state/],
        [{ sessionId: 'session-5' }, /asks_session/],
        [{ agent: 'agent-3' }, /asks_agent/],
        [{ key: 'key-30' }, /asks_key/],
        [{ created: { from: 1_000_000, to: 2_000_000 } }, /asks_created/],
        [{ updated: { from: 50_000_000, to: 50_100_000 } }, /asks_updated/],
        [{ state: 'answered', sessionId: 'session-5' }, /asks_session|asks_state/],
        [{ answeredBy: 'person-3' }, /asks_answered_by/],
        [{ notified: 'person-7' }, /ask_events_recipient/],
        [{ notified: 'person-7', state: ['pending', 'deferred'] }, /ask_events_recipient/],
      ];
      for (const [filter, index] of shapes) {
        const first = await store.list(filter, { limit: 5 });
        for (const page of [{ limit: 5 }, { limit: 5, cursor: first.cursor }]) {
          const query = readAskQuery<string>(filter, page, 'string');
          const { text, params } = listStatement(query, postgresListDialect(schema), '');
          const plan = (await admin.unsafe(`explain ${text}`, params))
            .map((row) => String(row['QUERY PLAN']))
            .join('\n');
          expect(plan, `${JSON.stringify(filter)}\n${plan}`).toMatch(index);
          expect(plan, `${JSON.stringify(filter)}\n${plan}`).not.toMatch(
            /Seq Scan on (asks|ask_events)\b/,
          );
        }
      }
      expect(await store.purge(1_000_000, 100, 1_000_000)).toBe(100);
      // Building 100,000 asks and 133,000 events takes seconds on a loaded machine.
    }, 60_000);

    it('fills the answered-by and recipient columns of migration 4 from rows written before it', async () => {
      const { schema, store } = storeOnNewSchema();
      const start = pendingAsk('answered');
      await store.create(start);
      const answer = answered(start.ask);
      const by = { recipient: 'alice', channel: 'email' };
      if (answer.ask.outcome?.status === 'answered') answer.ask.outcome.answeredBy = by;
      await store.update(answer, 1);
      const waiting = pendingAsk('waiting');
      await store.create(waiting);
      await store.update(deferred(waiting.ask, 'thread-1'), 1);
      await store.append({
        askId: 'waiting',
        type: 'notified',
        at: 5,
        from: 'deferred',
        to: 'deferred',
        data: { recipient: 'bob', channel: 'email', deliveryId: 'd-1', kind: 'created' },
      });
      // The schema as a build before the filters' migration left it.
      const s = `"${schema}"`;
      const filtersMigration =
        POSTGRES_MIGRATION_NAMES.indexOf('answered-by and notified-recipient filters') + 1;
      await admin.unsafe(`drop index ${s}.asks_answered_by; drop index ${s}.ask_events_recipient;
        alter table ${s}.asks drop column answered_by;
        alter table ${s}.ask_events drop column recipient;
        delete from ${s}.migrations where version >= ${filtersMigration};`);
      const after = storeOn(schema);
      const ids = async (filter: Parameters<AskStore['list']>[0]) =>
        (await after.list(filter)).items.map((ask) => ask.askId);
      expect(await ids({ answeredBy: 'alice' })).toEqual(['answered']);
      expect(await ids({ notified: 'bob', state: ['pending', 'deferred'] })).toEqual(['waiting']);
      expect(await ids({ notified: 'alice' })).toEqual([]);
    });

    it('migrates a schema once when many hosts start together, and refuses one from a newer version', async () => {
      const schema = 'together';
      const stores = Array.from({ length: 5 }, () => storeOn(schema));
      await Promise.all(stores.map((store, i) => store.create(pendingAsk(`a${i}`))));
      const migrations = await admin.unsafe(`select version, name from ${schema}.migrations`);
      // Every migration this build knows, once, in order (read from the migrations themselves).
      expect(migrations).toEqual(
        POSTGRES_MIGRATION_NAMES.map((name, index) => ({ version: index + 1, name })),
      );
      const known = POSTGRES_MIGRATION_NAMES.length;
      await admin.unsafe(
        `insert into ${schema}.migrations (version, name) values (${known + 1}, 'from the future')`,
      );
      await expect(storeOn(schema).get('a1')).rejects.toThrow(
        `PostgreSQL schema "together" is at migration ${known + 1}, but this ask-engine knows migrations up to ${known}: upgrade ask-engine on this host.`,
      );
    });

    it('works on a client of yours that transforms column names (postgres.camel)', async () => {
      const sql = postgres(cluster.url, { max: 2, onnotice: () => {}, transform: postgres.camel });
      const store = createPostgresAskStore({ sql }, { schema: 'camel' });
      const start = pendingAsk('a1', { key: 'k', deadlineAt: 1_000 });
      await store.create(start);
      expect(await store.get('a1')).toEqual(start.ask);
      const defer = deferred(start.ask, 'i-1');
      expect(await store.update(defer, 1)).toEqual({ ok: true });
      expect(await store.findByInteractionId('i-1')).toEqual(defer.ask);
      const claimed = await store.claimDue(2_000, 10, (ask) => timedOut(ask, 2_000));
      expect(claimed.map((write) => write.ask.askId)).toEqual(['a1']);
      expect(await historyOf(store, 'a1')).toHaveLength(3);
      await store.close();
      await sql.end();
    });

    it('stops listening on close but leaves a client it was given open', async () => {
      const sql = postgres(cluster.url, { max: 2, onnotice: () => {} });
      const store = createPostgresAskStore({ sql }, { schema: 'given' });
      store.subscribe(() => {});
      await store.create(pendingAsk('a1'));
      await store.close();
      await expect(store.get('a1')).rejects.toThrow('The PostgreSQL ask store is closed.');
      expect(await sql`select id from given.asks`).toEqual([{ id: 'a1' }]);
      await sql.end();
    });

    it('listens again once the database lets it in, after its LISTEN was cut and refused', async () => {
      // A database of its own, so refusing connections to it disturbs no other test.
      await admin`create database refusing`;
      const url = cluster.url.replace(/\/postgres$/, '/refusing');
      const errors: unknown[] = [];
      const store = createPostgresAskStore(
        { connectionString: url },
        { schema: 'feed', max: 2, onError: (error) => errors.push(error) },
      );
      const writer = createPostgresAskStore({ connectionString: url }, { schema: 'feed', max: 2 });
      opened.push(store, writer);
      const heard: { type: string; askId?: string }[] = [];
      store.subscribe((change) => heard.push(change));
      // The LISTEN is up (its first 'missed'): a write before it would go unheard.
      await nextChange(heard, (change) => change.type === 'missed');
      await writer.create(pendingAsk('before'));
      await nextChange(heard, (change) => change.askId === 'before');
      heard.length = 0;
      // The LISTEN's connection is cut while the database refuses new connections: the
      // client's own LISTEN again fails at once.
      await admin`alter database refusing allow_connections false`;
      try {
        const cut = await admin`
          select pg_terminate_backend(pid) from pg_stat_activity
          where datname = 'refusing' and query ilike 'listen%'`;
        expect(cut).toHaveLength(1);
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      } finally {
        await admin`alter database refusing allow_connections true`;
      }
      await nextChange(heard, (change) => change.type === 'missed');
      await writer.create(pendingAsk('after'));
      await nextChange(heard, (change) => change.askId === 'after');
      // The client's LISTEN was refused, and tried again until the database let it in.
      expect(cluster.log()).toMatch(/database "refusing" is not currently accepting connections/);
      expect(errors).toEqual([]);
    });

    // Last: it restarts the server under every other store of this file.
    it('reports "missed" after the database restarts, and hears writes again', async () => {
      const errors: unknown[] = [];
      const { schema, store } = storeOnNewSchema({ onError: (error) => errors.push(error) });
      const heard: { type: string; askId?: string }[] = [];
      store.subscribe((change) => heard.push(change));
      // The LISTEN is up (its first 'missed'): a write before it would go unheard.
      await nextChange(heard, (change) => change.type === 'missed');
      await store.create(pendingAsk('before'));
      await nextChange(heard, (change) => change.askId === 'before');
      heard.length = 0;
      await cluster.stop();
      await expect(store.get('before')).rejects.toThrow();
      await cluster.restart();
      await nextChange(heard, (change) => change.type === 'missed');
      const writer = storeOn(schema);
      await writer.create(pendingAsk('after'));
      await nextChange(heard, (change) => change.askId === 'after');
      expect(await store.get('after')).toMatchObject({ askId: 'after', version: 1 });
    });

    it('rejects bad options with a message naming the value', () => {
      expect(() => createPostgresAskStore({ connectionString: '' })).toThrow(
        'Expected `connectionString` to be a PostgreSQL URL such as postgres://user@host:5432/db, got "".',
      );
      expect(() =>
        createPostgresAskStore({ connectionString: cluster.url }, { schema: 'a.b' }),
      ).toThrow(
        'Expected `schema` to be a PostgreSQL name of letters, digits and underscores (at most 58, not starting with a digit), got "a.b".',
      );
      expect(() => createPostgresAskStore({ connectionString: cluster.url }, { max: 0 })).toThrow(
        'Expected `max` to be an integer from 1 and up, got 0.',
      );
      expect(() => createPostgresAskStore({ sql: {} as postgres.Sql })).toThrow(
        'Expected `sql` to be a client created by `postgres()` (porsager/postgres).',
      );
    });
  },
);
