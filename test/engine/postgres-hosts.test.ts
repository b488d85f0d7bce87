/**
 * Many hosts on one PostgreSQL database: each host is its own process with its own
 * connections and service (test/fixtures/postgres-host.ts).
 */
import postgres from 'postgres';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Host, removeHostBundle, startHost } from '../fixtures/postgres-hosts.js';
import {
  type PostgresCluster,
  postgresMissing,
  startPostgresCluster,
} from '../support/postgres-cluster.js';

let cluster: PostgresCluster;
let admin: postgres.Sql;
let schemas = 0;
let hosts: Host[] = [];

async function startHosts(
  count: number,
  options: { leaseMs?: number } = {},
): Promise<{ schema: string; hosts: Host[] }> {
  const schema = `hosts_${++schemas}`;
  const started = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      startHost(cluster.url, schema, `host-${String.fromCharCode(65 + i)}`, options),
    ),
  );
  hosts.push(...started);
  return { schema, hosts: started };
}

interface AskRow {
  id: string;
  interaction_id: string | null;
  state: string;
  final: boolean;
  outcome: { status: string } | null;
  finals: number;
}

/** Every ask of the schema with how many history events moved it into a final state. */
async function asksOf(schema: string): Promise<AskRow[]> {
  const [exists] = await admin`select to_regclass(${`${schema}.ask_events`}) is not null as yes`;
  if (!exists?.yes) return [];
  return (await admin.unsafe(`
    select a.id, a.interaction_id, a.state, a.final, a.outcome,
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
      if (seen === undefined || seen.status === 'deferred') continue;
      // An abort's cause is an Error: the row keeps its name and message, IPC drops them.
      if (seen.status === 'aborted')
        expect(row.outcome).toMatchObject({ status: 'aborted', message: seen.message });
      else expect(seen).toEqual(row.outcome);
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
      removeHostBundle();
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
      // Deadlines long enough that starting, deferring and answering 1,000 asks on four hosts
      // fits before them on a loaded machine; the asks left alone still time out.
      const { schema, hosts: four } = await startHosts(4);
      const ids = await Promise.all(
        four.map(async (host, h) => {
          const hang = await host.run<string[]>({
            op: 'start',
            count: 125,
            prefix: `h${h}`,
            agent: 'hang',
            timeoutMs: 8_000,
          });
          const defer = await host.run<string[]>({
            op: 'start',
            count: 125,
            prefix: `d${h}`,
            agent: 'defer',
            timeoutMs: 8_000,
          });
          return { host, hang, defer };
        }),
      );
      const deferIds = new Set(ids.flatMap(({ defer }) => defer));
      await until(
        () => asksOf(schema),
        // Deferred, or (on a slow machine) timed out before the provider deferred it.
        (rows) =>
          rows.filter((row) => deferIds.has(row.id) && (row.interaction_id !== null || row.final))
            .length === 500,
        'every deferral in the store',
      );
      // Every ask is hit from two sides at once; one side of each pair may win.
      const actions: { host: Host; reply: Promise<{ ok: boolean; code?: string }> }[] = [];
      const act = (host: Host, command: Record<string, unknown> & { op: string }) =>
        actions.push({ host, reply: host.call(command) });
      ids.forEach(({ host, hang, defer }, h) => {
        const other = four[(h + 1) % 4]!;
        const third = four[(h + 2) % 4]!;
        hang.forEach((askId, i) => {
          if (i % 5 === 4) return; // left for the deadline
          act(other, { op: 'answer', askId });
          act(third, { op: 'answer', askId });
          if (i % 3 === 0) act(host, { op: 'cancel', askId });
        });
        defer.forEach((askId, i) => {
          if (i % 5 === 4) return;
          act(other, { op: 'resume', interactionId: `i-${askId}` });
          act(i % 2 ? third : host, i % 2 ? { op: 'answer', askId } : { op: 'cancel', askId });
        });
      });
      const [a, , , d] = four as [Host, Host, Host, Host];
      act(a, { op: 'drain' });
      act(d, { op: 'close' });
      const replies = await Promise.all(
        actions.map(async ({ host, reply }) => ({ host: host.name, ...(await reply) })),
      );
      // Host D closed in the middle: calls on it may fail; nothing else may, but for ASK_SETTLED.
      const failed = replies.filter((reply) => !reply.ok && reply.code !== 'ASK_SETTLED');
      const rowsNow = new Map((await asksOf(schema)).map((row) => [row.id, row]));
      const neverDeferred = (reply: { code?: string; message?: string }) => {
        const askId = reply.message?.match(/interaction id "i-(.+)"/)?.[1];
        const row = askId === undefined ? undefined : rowsNow.get(askId);
        return (
          reply.code === 'UNKNOWN_INTERACTION' && row?.final === true && row.interaction_id === null
        );
      };
      expect(failed.filter((reply) => reply.host !== d.name && !neverDeferred(reply))).toEqual([]);
      expect(replies.filter((reply) => reply.ok).length).toBeGreaterThan(200);

      const rows = await until(() => asksOf(schema), allFinal, 'every ask to end', 30_000);
      expectOneOutcomeEach(rows, four);
      // Only the closed host's own waiting asks were rejected (by its close), none elsewhere.
      for (const host of [a, four[1]!, four[2]!]) expect([...host.rejected.values()]).toEqual([]);
      const states = new Set(rows.map((row) => row.state));
      for (const state of ['answered', 'cancelled', 'timedOut', 'aborted'])
        expect(states).toContain(state);
    }, 60_000);

    it('answers or times out the asks of a host killed with SIGKILL', async () => {
      // A's pending asks are its own until its lease (1 s, renewed while it lives) runs out.
      const {
        schema,
        hosts: [a, b, c],
      } = await startHosts(3, { leaseMs: 1_000 });
      // 20 of each kind are answered or resumed elsewhere, 20 wait for their deadline; it is
      // far enough (3 s) that A dies first, so B and C time them out.
      const start = (agent: string) =>
        a!.run<string[]>({ op: 'start', count: 40, prefix: agent, agent, timeoutMs: 3_000 });
      const hang = await start('hang');
      const defer = await start('defer');
      await until(
        () => asksOf(schema),
        (rows) => rows.filter((row) => row.state === 'deferred').length === 40,
        'the deferrals in the store',
      );
      await a!.kill();
      expect((await asksOf(schema)).filter((row) => row.final)).toEqual([]);
      const replies = await Promise.all([
        ...hang.slice(0, 20).map((askId) => b!.run({ op: 'answer', askId })),
        ...defer.slice(0, 20).map((askId) => c!.run({ op: 'resume', interactionId: `i-${askId}` })),
      ]);
      expect(replies).toHaveLength(40);
      const rows = await until(() => asksOf(schema), allFinal, 'every ask to end');
      expectOneOutcomeEach(rows, [b!, c!]);
      const byId = new Map(rows.map((row) => [row.id, row.state]));
      const statesOf = (ids: string[]) => ids.map((id) => byId.get(id));
      expect(statesOf([...hang.slice(0, 20), ...defer.slice(0, 20)])).toEqual(
        Array(40).fill('answered'),
      );
      expect(statesOf([...hang.slice(20), ...defer.slice(20)])).toEqual(Array(40).fill('timedOut'));
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
      // A heard every answer, those it missed while its listener was down included. A hears of
      // them once its LISTEN is back, and a LISTEN refused while the cut goes on is tried again
      // after a backoff that grows to 10 s: the wait allows for that ceiling (it failed once at
      // 10 s under load with no outcome heard yet, and never alone).
      await until(
        async () => ({ outcomes: a!.outcomes.size, rejected: [...a!.rejected.values()] }),
        ({ outcomes }) => outcomes === 100,
        "A's outcomes",
        30_000,
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
    }, 60_000);
  },
);
