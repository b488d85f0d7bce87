/**
 * Many hosts on one PostgreSQL database: each host is its own process with its own
 * connections and service (test/fixtures/postgres-host.ts).
 */
import postgres from 'postgres';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Host, startHost } from '../fixtures/postgres-hosts.js';
import {
  type PostgresCluster,
  postgresMissing,
  startPostgresCluster,
} from '../support/postgres-cluster.js';

let cluster: PostgresCluster;
let admin: postgres.Sql;
let schemas = 0;
let hosts: Host[] = [];

async function startHosts(count: number): Promise<{ schema: string; hosts: Host[] }> {
  const schema = `hosts_${++schemas}`;
  const started = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      startHost(cluster.url, schema, `host-${String.fromCharCode(65 + i)}`),
    ),
  );
  hosts.push(...started);
  return { schema, hosts: started };
}

interface AskRow {
  id: string;
  state: string;
  final: boolean;
  outcome: { status: string } | null;
  finals: number;
}

/** Every ask of the schema with how many history events moved it into a final state. */
async function asksOf(schema: string): Promise<AskRow[]> {
  return (await admin.unsafe(`
    select a.id, a.state, a.final, a.outcome,
      (select count(*)::int from ${schema}.ask_events e
        where e.ask_id = a.id and e.to_state in ('answered', 'cancelled', 'timedOut', 'aborted')
          and e.from_state in ('pending', 'deferred')) as finals
    from ${schema}.asks a order by a.id
  `)) as unknown as AskRow[];
}

async function until<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  what: string,
  ms = 10_000,
): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() - started > ms)
      throw new Error(`Timed out waiting for ${what}: ${JSON.stringify(value).slice(0, 500)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const allFinal = (rows: AskRow[]) => rows.length > 0 && rows.every((row) => row.final);

/** Exactly one outcome per ask: final, one transition into a final state, and every host that resolved a handle saw the stored outcome. */
function expectOneOutcomeEach(rows: AskRow[], everyHost: Host[]): void {
  expect(rows.filter((row) => !row.final)).toEqual([]);
  expect(rows.filter((row) => row.finals !== 1)).toEqual([]);
  for (const host of everyHost) {
    expect(host.doubled).toEqual([]);
    for (const row of rows) {
      const seen = host.outcomes.get(row.id);
      if (seen !== undefined && seen.status !== 'deferred') expect(seen).toEqual(row.outcome);
    }
  }
}

describe.skipIf(postgresMissing !== undefined)(
  `many hosts on PostgreSQL${postgresMissing ? ` (skipped: ${postgresMissing})` : ''}`,
  () => {
    beforeAll(async () => {
      cluster = await startPostgresCluster();
      admin = postgres(cluster.url, { onnotice: () => {} });
    });
    afterEach(async () => {
      await Promise.all(hosts.map((host) => host.kill()));
      hosts = [];
    });
    afterAll(async () => {
      await admin?.end();
      await cluster?.destroy();
    });

    it('settles the ask waiting on host A when host B answers it', async () => {
      const {
        hosts: [a, b],
      } = await startHosts(2);
      const [pendingId] = await a!.run<string[]>({
        op: 'start',
        count: 1,
        prefix: 'p',
        agent: 'hang',
      });
      const [deferredId] = await a!.run<string[]>({
        op: 'start',
        count: 1,
        prefix: 'd',
        agent: 'defer',
      });
      await until(
        () => a!.run<string[]>({ op: 'aborted' }),
        () => true,
        'the provider call',
      );
      await until(
        async () => a!.outcomes.get(deferredId!),
        (outcome) => outcome !== undefined,
        'the deferral',
      );

      const answered = await b!.run<{ status: string }>({ op: 'answer', askId: pendingId });
      expect(answered.status).toBe('answered');
      const outcome = await until(
        async () => a!.outcomes.get(pendingId!),
        (o) => o !== undefined,
        "A's outcome",
      );
      expect(outcome).toEqual(answered);
      // A's provider was told to stop delivering.
      await until(
        () => a!.run<string[]>({ op: 'aborted' }),
        (ids) => ids.includes(pendingId!),
        'the abort',
      );

      await b!.run({ op: 'resume', interactionId: `i-${deferredId}` });
      const second = await b!.call({ op: 'answer', askId: pendingId });
      expect(second).toMatchObject({ ok: false, code: 'ASK_SETTLED' });
      const rows = await asksOf(`hosts_${schemas}`);
      expect(rows.map((row) => row.state).sort()).toEqual(['answered', 'answered']);
      expectOneOutcomeEach(rows, [a!, b!]);
    });

    it('gives each of 4 x 250 asks one outcome while every host answers, resumes, cancels, drains, closes and times out', async () => {
      const { schema, hosts: four } = await startHosts(4);
      const ids = await Promise.all(
        four.map(async (host, h) => {
          const hang = await host.run<string[]>({
            op: 'start',
            count: 125,
            prefix: `h${h}`,
            agent: 'hang',
            timeoutMs: 1_500,
          });
          const defer = await host.run<string[]>({
            op: 'start',
            count: 125,
            prefix: `d${h}`,
            agent: 'defer',
            timeoutMs: 1_500,
          });
          return { host, hang, defer };
        }),
      );
      await until(
        () => asksOf(schema),
        (rows) => rows.length === 1_000,
        'every ask in the store',
      );
      // Every ask is hit from two sides at once; one side of each pair may win.
      const actions: Promise<unknown>[] = [];
      ids.forEach(({ host, hang, defer }, h) => {
        const other = four[(h + 1) % 4]!;
        const third = four[(h + 2) % 4]!;
        hang.forEach((askId, i) => {
          if (i % 5 === 4) return; // left for the deadline
          actions.push(other.call({ op: 'answer', askId }), third.call({ op: 'answer', askId }));
          if (i % 3 === 0) actions.push(host.call({ op: 'cancel', askId }));
        });
        defer.forEach((askId, i) => {
          if (i % 5 === 4) return;
          actions.push(other.call({ op: 'resume', interactionId: `i-${askId}` }));
          actions.push(
            i % 2 ? third.call({ op: 'answer', askId }) : host.call({ op: 'cancel', askId }),
          );
        });
      });
      actions.push(four[0]!.call({ op: 'drain' }), four[3]!.call({ op: 'close' }));
      const replies = (await Promise.all(actions)) as {
        ok: boolean;
        code?: string;
        message?: string;
      }[];
      const unexpected = replies.filter((reply) => !reply.ok && reply.code !== 'ASK_SETTLED');
      // Host D closed: what it is asked afterwards is refused, nothing else may fail.
      expect(unexpected.filter((reply) => !/closed/i.test(reply.message ?? ''))).toEqual([]);

      const rows = await until(() => asksOf(schema), allFinal, 'every ask to end', 15_000);
      expectOneOutcomeEach(rows, four);
      const states = new Set(rows.map((row) => row.state));
      for (const state of ['answered', 'cancelled', 'timedOut', 'aborted'])
        expect(states).toContain(state);
    });

    it('answers or times out the asks of a host killed with SIGKILL', async () => {
      const {
        schema,
        hosts: [a, b, c],
      } = await startHosts(3);
      const hang = await a!.run<string[]>({
        op: 'start',
        count: 40,
        prefix: 'h',
        agent: 'hang',
        timeoutMs: 1_500,
      });
      const defer = await a!.run<string[]>({
        op: 'start',
        count: 40,
        prefix: 'd',
        agent: 'defer',
        timeoutMs: 1_500,
      });
      await until(
        () => asksOf(schema),
        (rows) => rows.length === 80,
        'the asks in the store',
      );
      await a!.kill();
      const replies = await Promise.all([
        ...hang.slice(0, 20).map((askId) => b!.run({ op: 'answer', askId })),
        ...defer.slice(0, 20).map((askId) => c!.run({ op: 'resume', interactionId: `i-${askId}` })),
      ]);
      expect(replies).toHaveLength(40);
      const rows = await until(() => asksOf(schema), allFinal, 'every ask to end');
      expectOneOutcomeEach(rows, [b!, c!]);
      const byId = new Map(rows.map((row) => [row.id, row.state]));
      expect(hang.slice(0, 20).map((id) => byId.get(id))).toEqual(Array(20).fill('answered'));
      expect(defer.slice(20).map((id) => byId.get(id))).toEqual(Array(20).fill('timedOut'));
      expect(hang.slice(20).map((id) => byId.get(id))).toEqual(Array(20).fill('timedOut'));
    });

    it('loses and doubles nothing when the database cuts every connection, and hands over again after', async () => {
      const {
        schema,
        hosts: [a, b],
      } = await startHosts(2);
      const before = await a!.run<string[]>({
        op: 'start',
        count: 100,
        prefix: 'x',
        agent: 'hang',
      });
      await until(
        () => asksOf(schema),
        (rows) => rows.length === 100,
        'the asks in the store',
      );
      const answering = before.map(async (askId, i) => {
        if (i === 50)
          await admin`select pg_terminate_backend(pid) from pg_stat_activity where pid <> pg_backend_pid() and backend_type = 'client backend'`;
        // A call cut in the middle may or may not have written: retrying is safe (ASK_SETTLED).
        for (let attempt = 0; ; attempt++) {
          const reply = await b!.call({ op: 'answer', askId });
          if (reply.ok || reply.code === 'ASK_SETTLED' || attempt === 20) return reply;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      });
      const replies = await Promise.all(answering);
      expect(replies.filter((reply) => !reply.ok && reply.code !== 'ASK_SETTLED')).toEqual([]);
      const rows = await until(() => asksOf(schema), allFinal, 'every ask to end');
      expectOneOutcomeEach(rows, [a!, b!]);
      // A heard every answer, those it missed while its listener was down included.
      await until(
        async () => a!.outcomes.size,
        (size) => size === 100,
        "A's outcomes",
      );

      const [after] = await a!.run<string[]>({ op: 'start', count: 1, prefix: 'y', agent: 'hang' });
      await until(
        () => asksOf(schema),
        (rows) => rows.length === 101,
        'the new ask',
      );
      await b!.run({ op: 'answer', askId: after });
      await until(
        async () => a!.outcomes.get(after!),
        (outcome) => outcome?.status === 'answered',
        'the hand-over after the cut',
      );
    });
  },
);
