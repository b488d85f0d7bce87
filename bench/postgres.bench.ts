/**
 * Many hosts on PostgreSQL, on a throwaway local cluster (loopback, fsync off):
 * (d) hand-off: host B's `answer` -> host A's `ask()` outcome, p50 and p99, against a bare
 *     NOTIFY -> LISTEN round trip between the same two connections' worth of clients;
 * (e) a durable ask (start -> answer -> outcome on one service) against the same two writes
 *     (each ask row with its audit event and a NOTIFY) in plain SQL written by hand; goal <= 2x;
 * (f) 10,000 due asks timed out by 2 hosts' sweepers against the same claims done in bare SQL by
 *     2 clients; the time is also shown, and no ask may be timed out twice.
 * In (d) and (e) hosts are services with their own stores and connections in this process; in
 * (f) they are processes (test/fixtures/postgres-host.ts), timed from both being ready.
 * (e) uses ratio.ts's `timeRatio`; (d) needs latency percentiles, so it interleaves its own 40 ms
 * chunks for 21 rounds the same way.
 */
import postgres from 'postgres';
import { SimulatedClock } from 'xstate';
import type { AskAuditEvent, AskHandle, AskProvider, AskStore } from '../src/index.js';
import { createInteractionService } from '../src/index.js';
import { createPostgresAskStore } from '../src/postgres.js';
import { removeHostBundle, startHost } from '../test/fixtures/postgres-hosts.js';
import { timedOut } from '../test/stores/postgres-fixtures.js';
import { startPostgresCluster } from '../test/support/postgres-cluster.js';
import { median, report, timeRatio } from './ratio.js';
import { record } from './record.js';

const ROUNDS = 21;
const CHUNK_MS = 40;
const ANSWERS = [
  { questionId: 'q1', response: { kind: 'selection' as const, selections: ['Yes'] } },
];
const REQUEST = { questions: [{ question: 'Ship it?', options: ['Yes', 'No'] }] };

const cluster = await startPostgresCluster();
const opened: { close(): Promise<unknown> }[] = [];
try {
  const only = process.argv[2];
  if (only === undefined || only === 'd') await handOff();
  if (only === undefined || only === 'e') await durableAsk();
  if (only === undefined || only === 'f') await dueAsks();
} finally {
  for (const each of opened.reverse()) await each.close();
  await cluster.destroy();
  removeHostBundle();
}

/** A provider that keeps every ask pending and tells who waits for the delivery. */
function waitingProvider() {
  const delivered = new Map<string, () => void>();
  const provider: AskProvider = {
    ask(_request, ctx) {
      delivered.get(ctx.askId)?.();
      return new Promise(() => {});
    },
  };
  const deliveredTo = (handle: AskHandle) =>
    new Promise<void>((resolve) => delivered.set(handle.id, resolve));
  return { provider, deliveredTo };
}

function host(schema: string) {
  const store: AskStore = createPostgresAskStore({ connectionString: cluster.url }, { schema });
  const service = createInteractionService({ store });
  const { provider, deliveredTo } = waitingProvider();
  service.registerProvider(provider);
  opened.push(store, service);
  return { store, service, deliveredTo };
}

async function handOff(): Promise<void> {
  const a = host('bench_handoff');
  const b = host('bench_handoff');
  const notifier = postgres(cluster.url, { max: 1 });
  const listener = postgres(cluster.url, { max: 1 });
  opened.push({ close: () => notifier.end() }, { close: () => listener.end() });
  let heard: (() => void) | undefined;
  await listener.listen('bench_floor', () => heard?.());

  const floor = async () => {
    const arrived = new Promise<void>((resolve) => {
      heard = resolve;
    });
    const started = performance.now();
    await notifier`select pg_notify('bench_floor', 'x')`;
    await arrived;
    return performance.now() - started;
  };
  const subject = async () => {
    const handle = a.service.start(REQUEST);
    await a.deliveredTo(handle);
    const started = performance.now();
    await b.service.answer(handle.id, ANSWERS);
    await handle.outcome;
    return performance.now() - started;
  };
  const { floor: f, subject: s, ratio } = await interleaved(floor, subject);
  report(
    { name: "(d) hand-off B.answer -> A's outcome, p50", subjectNs: s.p50, floorNs: f.p50 },
    'ms',
  );
  report(
    { name: "(d) hand-off B.answer -> A's outcome, p99", subjectNs: s.p99, floorNs: f.p99 },
    'ms',
  );
  console.log(`(d) median of per-round p50 ratios ${ratio.toFixed(2)}x`);
  record({ name: "(d) hand-off B.answer -> A's outcome, p50", value: s.p50, unit: 'ms', goal: 2 });
  record({ name: "(d) hand-off B.answer -> A's outcome, p99", value: s.p99, unit: 'ms', goal: 10 });
}

async function durableAsk(): Promise<void> {
  const one = host('bench_durable');
  const ask = async () => {
    const handle = one.service.start(REQUEST);
    await one.deliveredTo(handle);
    await one.service.answer(handle.id, ANSWERS);
    return handle;
  };
  for (let i = 0; i < 50; i++) await (await ask()).outcome;
  // The floor writes what the service wrote for one ask: its row and its two audit events.
  const sample = await ask();
  await sample.outcome;
  const row = await one.store.get(sample.id);
  const events: AskAuditEvent[] = [];
  for await (const event of one.store.history(sample.id)) events.push(event);
  const [start, answer] = events;
  if (row === undefined || start === undefined || answer === undefined) {
    throw new Error(`(e) the sample ask ${sample.id} was not stored with its two events`);
  }

  // The same effect in plain SQL written by hand, one statement per write as the store does:
  // the ask inserted with its start event and a NOTIFY, then answered (a compare-and-set on
  // the version) with its answer event and a NOTIFY.
  const bare = postgres(cluster.url, { max: 4, onnotice: () => {} });
  opened.push({ close: () => bare.end() });
  const json = (value: unknown) => bare.json(value as postgres.JSONValue);
  let n = 0;
  const floor = async () => {
    const id = `floor-${n++}`;
    await bare`
      with a as (
        insert into bench_durable.asks
          (id, state, version, snapshot, questions, owner, final, created_at, updated_at)
        values (${id}, 'pending', 1, ${json(row.snapshot)}, ${json(row.questions)},
          ${row.owner ?? null}, false, ${start.at}, ${start.at})
        returning id
      ), e as (
        insert into bench_durable.ask_events (ask_id, at, type, from_state, to_state, data)
        select id, ${start.at}, 'start', null, 'pending', ${json(start.data)} from a
      )
      select pg_notify('bench_durable.asks', id || ':1') from a
    `;
    await bare`
      with u as (
        update bench_durable.asks
        set state = 'answered', version = 2, snapshot = ${json(row.snapshot)},
          outcome = ${json(row.outcome)}, final = true, updated_at = ${answer.at}
        where id = ${id} and version = 1
        returning id
      ), e as (
        insert into bench_durable.ask_events (ask_id, at, type, from_state, to_state, data)
        select id, ${answer.at}, 'answer', 'pending', 'answered', ${json(answer.data)} from u
      )
      select pg_notify('bench_durable.asks', id || ':2') from u
    `;
  };
  const subject = async () => (await ask()).outcome;
  await timeRatio(
    '(e) durable ask start -> answer vs the same two writes in plain SQL written by hand',
    2,
    floor,
    subject,
  );
}

async function dueAsks(): Promise<void> {
  const COUNT = 10_000;
  const admin = postgres(cluster.url, { max: 2, onnotice: () => {} });
  opened.push({ close: () => admin.end() });
  const times: { subject: number; floor: number }[] = [];
  const starts: number[] = [];
  const storeOnly: number[] = [];
  for (let round = 1; round <= 3; round++) {
    const schema = `bench_due_${round}`;
    const floorSchema = `bench_due_floor_${round}`;
    const storeSchema = `bench_due_store_${round}`;
    await createDueAsks(schema, COUNT);
    // The floor, and the store alone, get a copy of the same rows and events.
    for (const target of [floorSchema, storeSchema]) {
      const copy = createPostgresAskStore({ connectionString: cluster.url }, { schema: target });
      await copy.get('none');
      await copy.close();
      await admin.unsafe(`insert into ${target}.asks select * from ${schema}.asks`);
      await admin.unsafe(
        `insert into ${target}.ask_events (ask_id, at, type, from_state, to_state, data)
         select ask_id, at, type, from_state, to_state, data from ${schema}.ask_events order by id`,
      );
    }

    const floor = await timeFloorSweep(floorSchema);
    storeOnly.push(await timeStoreSweep(storeSchema));
    const { sweep: subject, start } = await timeSweep(schema, COUNT);
    starts.push(start);
    const [check] = await admin.unsafe(`
      select count(*) filter (where not final)::int as open,
        (select count(*)::int from ${schema}.ask_events where type = 'deadline') as deadlines,
        (select count(distinct ask_id)::int from ${schema}.ask_events where type = 'deadline') as asks
      from ${schema}.asks`);
    if (check?.open !== 0 || check.deadlines !== COUNT || check.asks !== COUNT) {
      throw new Error(
        `(f) round ${round}: expected ${COUNT} asks timed out once each, got ${JSON.stringify(check)}`,
      );
    }
    times.push({ subject, floor });
  }
  const middle = [...times].sort((a, b) => a.subject / a.floor - b.subject / b.floor)[1]!;
  report(
    {
      name: `(f) ${COUNT} due asks timed out by 2 hosts' sweepers (each once) vs the same claims in bare SQL by 2 clients, median of 3`,
      subjectNs: middle.subject,
      floorNs: middle.floor,
    },
    'ms',
  );
  const storeMedian = [...storeOnly].sort((a, b) => a - b)[1]!;
  report(
    {
      name: "(f) for scale: the same claims through the store alone (2 stores, a fixed settle instead of the service's machine), median of 3",
      subjectNs: storeMedian,
      floorNs: middle.floor,
    },
    'ms',
  );
  const slowest = Math.max(...times.map((time) => time.subject));
  record({
    name: `(f) ${COUNT} due asks timed out across 2 hosts, slowest of 3 rounds`,
    value: slowest,
    unit: 'ms',
    goal: 2_000,
    detail: `from both hosts ready; starting the 2 host processes took ${starts.map((start) => start.toFixed(0)).join(', ')} ms more`,
  });

  /** Asks created by a host whose clock is a minute behind, so they are all due; it then closes. */
  async function createDueAsks(schema: string, count: number): Promise<void> {
    const clock = new SimulatedClock();
    clock.set(Date.now() - 60_000);
    const store = createPostgresAskStore({ connectionString: cluster.url }, { schema });
    const creator = createInteractionService({
      store,
      clock,
      sweepIntervalMs: Number.POSITIVE_INFINITY,
    });
    creator.registerProvider({ ask: () => new Promise(() => {}) });
    await store.get('none'); // migrates the schema
    for (let i = 0; i < count; i++) creator.start(REQUEST, { timeoutMs: 1_000 });
    for (;;) {
      const [row] = await admin.unsafe(`select count(*)::int as n from ${schema}.asks`);
      if (row?.n === count) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await creator.close();
    await store.close();
  }

  /**
   * Two hosts (processes, the default options: a sweep every 250 ms) start and sweep: the time
   * from both being ready until no ask is open, and the time their start took.
   */
  async function timeSweep(
    schema: string,
    count: number,
  ): Promise<{ sweep: number; start: number }> {
    const started = performance.now();
    const hosts = await Promise.all(
      ['sweeper-1', 'sweeper-2'].map((name) => startHost(cluster.url, schema, name)),
    );
    const ready = performance.now();
    for (;;) {
      const [row] = await admin.unsafe(`select count(*)::int as n from ${schema}.asks where final`);
      if (row?.n === count) break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const done = performance.now();
    for (const host of hosts) await host.kill();
    return { sweep: done - ready, start: ready - started };
  }

  /** The same claims through 2 stores, each settle a copied row marked timed out. */
  async function timeStoreSweep(schema: string): Promise<number> {
    const stores = [1, 2].map(() =>
      createPostgresAskStore({ connectionString: cluster.url }, { schema }),
    );
    await Promise.all(stores.map((store) => store.get('none')));
    const started = performance.now();
    await Promise.all(
      stores.map(async (store) => {
        for (;;) {
          const now = Date.now();
          const writes = await store.claimDue(now, 256, (ask) => timedOut(ask, now));
          if (writes.length === 0) return;
        }
      }),
    );
    const elapsed = performance.now() - started;
    for (const store of stores) await store.close();
    return elapsed;
  }

  /** The same claims done by 2 bare clients: one statement per batch of 256 claims, updates, appends and notifies. */
  async function timeFloorSweep(schema: string): Promise<number> {
    const clients = [1, 2].map(() => postgres(cluster.url, { max: 1, onnotice: () => {} }));
    const started = performance.now();
    await Promise.all(
      clients.map(async (sql) => {
        for (;;) {
          const now = Date.now();
          const [row] = await sql.unsafe(
            `with due as (
               select id from ${schema}.asks where not final and deadline_at <= $1
               order by deadline_at limit 256 for update skip locked
             ), updated as (
               update ${schema}.asks a set state = 'timedOut', version = a.version + 1, final = true,
                 outcome = jsonb_build_object('status', 'timedOut', 'deadlineAt', a.deadline_at),
                 snapshot = jsonb_set(a.snapshot, '{value}', '"timedOut"'), updated_at = $1
               from due where a.id = due.id returning a.id, a.version
             ), event as (
               insert into ${schema}.ask_events (ask_id, at, type, from_state, to_state, data)
               select id, $1, 'deadline', 'pending', 'timedOut', jsonb_build_object('at', $1::float8)
               from updated
             )
             select count(*)::int as n from (select pg_notify('${schema}.asks', id || ':' || version) from updated) n`,
            [now],
          );
          if (row?.n === 0) return;
        }
      }),
    );
    const elapsed = performance.now() - started;
    await Promise.all(clients.map((sql) => sql.end()));
    return elapsed;
  }
}

interface Stats {
  p50: number;
  p99: number;
}

/**
 * Runs floor and subject alternately in chunks of at most 50 ms for `ROUNDS` rounds; returns
 * the p50 and p99 of all samples of each, and the median of the per-round p50 ratios.
 */
async function interleaved(
  floor: () => Promise<number>,
  subject: () => Promise<number>,
): Promise<{ floor: Stats; subject: Stats; ratio: number }> {
  for (let i = 0; i < 20; i++) {
    await floor();
    await subject();
  }
  const floors: number[] = [];
  const subjects: number[] = [];
  const ratios: number[] = [];
  const chunk = async (run: () => Promise<number>, into: number[]) => {
    const samples: number[] = [];
    const until = performance.now() + CHUNK_MS;
    do samples.push(await run());
    while (performance.now() < until);
    into.push(...samples);
    return percentile(samples, 0.5);
  };
  for (let round = 0; round < ROUNDS; round++) {
    const f = await chunk(floor, floors);
    const s = await chunk(subject, subjects);
    ratios.push(s / f);
  }
  return {
    floor: { p50: percentile(floors, 0.5), p99: percentile(floors, 0.99) },
    subject: { p50: percentile(subjects, 0.5), p99: percentile(subjects, 0.99) },
    ratio: median(ratios),
  };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}
