/**
 * How cost grows with the number of asks (issue 20, item 6), with the service's default options.
 * Each size runs in a process of its own (so one size's heap is not the next one's baseline):
 *
 * - memory store, N pending asks (1,000 to 1,000,000, each with a deadline): the time to start
 *   one, the heap each holds, then the time of a full ask (start -> the provider answers ->
 *   outcome) while the N wait;
 * - SQLite, a file holding N deferred asks (1,000 to 100,000; a million takes minutes to write):
 *   the time of a durable ask (start -> answer) against it;
 * - memory store, N asks handed to people through the notify provider (1,000 and 10,000; nine
 *   in ten answered, their notifications sent, one in ten still open with a reminder waiting):
 *   the time of the outbox claim each sender makes on every store change and poll.
 *
 * Every figure is for scale, and one per store is a goal: the figure at the largest size
 * against the smallest, which must stay within 1.5x (a cost that grows with N is a defect).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type AskProvider, createInteractionService, createMemoryAskStore } from '../src/index.js';
import { createNotifyProvider } from '../src/notify/index.js';
import { createSqliteAskStore } from '../src/sqlite.js';
import { requireGc, yesAnswer, yesNoRequest } from './fixtures.js';
import { record } from './record.js';

const MEMORY_SIZES = [1_000, 10_000, 100_000, 1_000_000];
const SQLITE_SIZES = [1_000, 10_000, 100_000];
const OUTBOX_SIZES = [1_000, 10_000];
const GROWTH_GOAL = 1.5;

interface MemoryFigures {
  startUs: number;
  heapBytes: number;
  askUs: number;
}
interface SqliteFigures {
  askUs: number;
}
interface OutboxFigures {
  claimUs: number;
}

const waiting = { question: 'Waiting in the background?', options: ['Yes', 'No'] };
/** Answers the measured asks at once; leaves the background asks pending. */
const provider: AskProvider = {
  ask: (request) =>
    request.questions[0]?.question === waiting.question
      ? new Promise(() => undefined)
      : Promise.resolve({ status: 'answered', answers: yesAnswer }),
};
const turn = () => new Promise((resolve) => setImmediate(resolve));

/** The median of `rounds` timings (µs per call) of `calls` sequential calls. */
async function timed(calls: number, rounds: number, call: () => Promise<unknown>): Promise<number> {
  const samples: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const started = performance.now();
    for (let i = 0; i < calls; i++) await call();
    samples.push(((performance.now() - started) * 1000) / calls);
  }
  samples.sort((a, b) => a - b);
  return samples[samples.length >> 1]!;
}

/** The median of `rounds` timings (µs per call) of sequential calls for `ms` each. */
async function timedFor(ms: number, rounds: number, call: () => Promise<unknown>): Promise<number> {
  const samples: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const started = performance.now();
    let calls = 0;
    while (performance.now() - started < ms) {
      await call();
      calls++;
    }
    samples.push(((performance.now() - started) * 1000) / calls);
  }
  samples.sort((a, b) => a - b);
  return samples[samples.length >> 1]!;
}

async function memoryChild(size: number): Promise<MemoryFigures> {
  const gc = requireGc();
  const service = createInteractionService({ store: createMemoryAskStore() });
  service.registerProvider(provider);
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  const keep: Promise<unknown>[] = new Array(size);
  let startNs = 0;
  for (let done = 0; done < size; ) {
    const batch = Math.min(10_000, size - done);
    const started = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) keep[done + i] = service.ask(waiting, { timeoutMs: 3_600_000 });
    startNs += Number(process.hrtime.bigint() - started);
    done += batch;
    // Let the batch's store writes complete, as they would between real asks.
    await turn();
  }
  await new Promise((resolve) => setTimeout(resolve, 50));
  gc();
  gc();
  const heapBytes = (process.memoryUsage().heapUsed - before) / size;
  const askUs = await timed(1_000, 7, () => service.ask(yesNoRequest, { timeoutMs: 60_000 }));
  if (keep.length !== size) throw new Error('the pending asks were not kept');
  return { startUs: startNs / 1000 / size, heapBytes, askUs };
}

async function sqliteChild(size: number): Promise<SqliteFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'ask-scaling-'));
  try {
    // Filled without an fsync per commit (the rows are the same), measured with the defaults.
    const fillerStore = createSqliteAskStore(
      { path: join(dir, 'asks.db') },
      { synchronous: 'normal' },
    );
    const filler = createInteractionService({ store: fillerStore });
    filler.registerProvider({
      ask: () => Promise.resolve({ status: 'deferred', interactionId: crypto.randomUUID() }),
    });
    for (let done = 0; done < size; done += 1_000) {
      await Promise.all(
        Array.from({ length: Math.min(1_000, size - done) }, () =>
          filler.ask(waiting, { timeoutMs: 3_600_000 }),
        ),
      );
    }
    await filler.close();
    await fillerStore.close();
    const store = createSqliteAskStore({ path: join(dir, 'asks.db') });
    const service = createInteractionService({ store });
    service.registerProvider({ ask: () => new Promise(() => undefined) });
    const askUs = await timed(200, 7, async () => {
      const handle = service.start(yesNoRequest, { timeoutMs: 60_000 });
      return service.answer(handle.id, yesAnswer);
    });
    await service.close();
    await store.close();
    return { askUs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function outboxChild(size: number): Promise<OutboxFigures> {
  const store = createMemoryAskStore();
  const service = createInteractionService({ store });
  const provider = createNotifyProvider({
    server: { linkFor: async (askId) => `https://answers.example.com/a/${askId}?t=signed` },
    store,
    channels: [{ name: 'email', send: async () => undefined }],
    route: () => [{ id: 'alice', channel: 'email', address: 'alice@example.com' }],
    reminders: { afterMs: 3_600_000 },
    delivery: { pollMs: 3_600_000 },
  });
  service.registerProvider(provider);
  for (let done = 0; done < size; done += 1_000) {
    const handles = Array.from({ length: Math.min(1_000, size - done) }, () =>
      service.start(yesNoRequest, { timeoutMs: 7_200_000 }),
    );
    await Promise.all(handles.map((handle) => handle.outcome));
    await Promise.all(
      handles.filter((_, i) => i % 10 !== 0).map((handle) => service.answer(handle.id, yesAnswer)),
    );
    await provider.flush();
  }
  // Sub-microsecond calls: each round runs for 50 ms rather than a count of calls (one that
  // grew with the outbox would otherwise run for minutes at 10,000 asks).
  const claimUs = await timedFor(50, 9, () =>
    store.claimOutbox(Date.now(), 32, 300_000, ['email']),
  );
  await provider.close();
  await service.close();
  return { claimUs };
}

function inChild<T>(kind: 'memory' | 'sqlite' | 'outbox', size: number): T {
  const run = spawnSync(
    process.execPath,
    ['--expose-gc', fileURLToPath(import.meta.url), kind, String(size)],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
  );
  if (run.status !== 0) throw new Error(`the ${kind} run at ${size} asks failed`);
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as T;
}

const sizeName = (size: number) => size.toLocaleString('en');
const [kind, sizeArg] = process.argv.slice(2);
if (kind === 'memory' || kind === 'sqlite' || kind === 'outbox') {
  const size = Number(sizeArg);
  const child = { memory: memoryChild, sqlite: sqliteChild, outbox: outboxChild }[kind];
  const figures = await child(size);
  console.log(JSON.stringify(figures));
  process.exit(0);
}

const memory = MEMORY_SIZES.map((size) => ({ size, ...inChild<MemoryFigures>('memory', size) }));
for (const { size, startUs, heapBytes, askUs } of memory) {
  const n = sizeName(size);
  record({ name: `memory, ${n} pending: start of one ask`, value: startUs, unit: 'µs' });
  record({ name: `memory, ${n} pending: heap per pending ask`, value: heapBytes, unit: 'B' });
  record({ name: `memory, ${n} pending: a full ask meanwhile`, value: askUs, unit: 'µs' });
}
const sqlite = SQLITE_SIZES.map((size) => ({ size, ...inChild<SqliteFigures>('sqlite', size) }));
for (const { size, askUs } of sqlite) {
  record({
    name: `SQLite, ${sizeName(size)} asks stored: a durable ask (start -> answer)`,
    value: askUs,
    unit: 'µs',
  });
}
const outbox = OUTBOX_SIZES.map((size) => ({ size, ...inChild<OutboxFigures>('outbox', size) }));
for (const { size, claimUs } of outbox) {
  record({
    name: `memory, ${sizeName(size)} notified asks: an outbox claim`,
    value: claimUs,
    unit: 'µs',
  });
}
const growth = (name: string, first: number, last: number, sizes: number[]) =>
  record({
    name: `growth: ${name}, ${sizeName(sizes.at(-1)!)} vs ${sizeName(sizes[0]!)} asks`,
    value: last / first,
    unit: 'x',
    goal: GROWTH_GOAL,
    detail: `${last.toFixed(1)} vs ${first.toFixed(1)}`,
  });
growth('memory, start of one ask', memory[0]!.startUs, memory.at(-1)!.startUs, MEMORY_SIZES);
growth('memory, a full ask', memory[0]!.askUs, memory.at(-1)!.askUs, MEMORY_SIZES);
growth(
  'memory, heap per pending ask',
  memory[0]!.heapBytes,
  memory.at(-1)!.heapBytes,
  MEMORY_SIZES,
);
growth('SQLite, a durable ask', sqlite[0]!.askUs, sqlite.at(-1)!.askUs, SQLITE_SIZES);
growth('memory, an outbox claim', outbox[0]!.claimUs, outbox.at(-1)!.claimUs, OUTBOX_SIZES);
