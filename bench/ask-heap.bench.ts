/**
 * (b) Heap bytes per pending ask with 100,000 asks pending (each with a deadline), against
 * 100,000 bare Promise + setTimeout. Goal <= 4x. The provider never answers and never reads
 * its signal, so the figure is the engine's own cost (the service's cache of the ask and the
 * memory store's row and history), not a provider's. Then: do 1,000,000 pending asks fit in
 * Node's default heap (a child process without --max-old-space-size)?
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { getHeapStatistics } from 'node:v8';
import { createInteractionService, createMemoryAskStore } from '../src/index.js';
import { requireGc, yesNoRequest } from './fixtures.js';
import { report } from './ratio.js';
import { record } from './record.js';

const MILLION = process.argv[2] === 'million';
const COUNT = MILLION ? 1_000_000 : 100_000;

if (MILLION) {
  // The child: a million pending asks in the default heap, then report the heap used.
  const service = createInteractionService({ store: createMemoryAskStore() });
  service.registerProvider({ ask: () => new Promise(() => undefined) });
  const keep: unknown[] = new Array(COUNT);
  for (let i = 0; i < COUNT; i++) {
    keep[i] = service.ask(yesNoRequest, { timeoutMs: 600_000 });
    // Let the store writes of each batch complete, as they would between real asks.
    if (i % 10_000 === 9_999) await new Promise((resolve) => setImmediate(resolve));
  }
  await new Promise((resolve) => setTimeout(resolve, 50));
  const { heapUsed, heapTotal } = process.memoryUsage();
  console.log(JSON.stringify({ heapUsed, heapTotal, count: keep.length }));
  process.exit(0);
}

const gc = requireGc();

const settle = async () => {
  await new Promise((resolve) => setTimeout(resolve, 50));
  gc();
  gc();
};

async function heapPerItem(make: () => unknown): Promise<{ bytes: number; keep: unknown[] }> {
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  const keep: unknown[] = new Array(COUNT);
  for (let i = 0; i < COUNT; i++) {
    keep[i] = make();
    if (i % 10_000 === 9_999) await new Promise((resolve) => setImmediate(resolve));
  }
  await settle();
  return { bytes: (process.memoryUsage().heapUsed - before) / COUNT, keep };
}

const timers: ReturnType<typeof setTimeout>[] = [];
const floor = await heapPerItem(
  () =>
    new Promise((resolve) => {
      timers.push(setTimeout(() => resolve('timeout'), 600_000));
    }),
);
for (const timer of timers) clearTimeout(timer);
timers.length = 0;
floor.keep.length = 0;

const service = createInteractionService();
service.registerProvider({ ask: () => new Promise(() => undefined) });
const subject = await heapPerItem(() => service.ask(yesNoRequest, { timeoutMs: 600_000 }));
report(
  {
    name: '(b) heap per pending ask, 100,000 pending (service cache + memory store row and history)',
    goal: 4,
    subjectNs: subject.bytes,
    floorNs: floor.bytes,
  },
  'bytes',
);
await service.close();

const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), 'million'], {
  encoding: 'utf8',
});
if (child.status === 0) {
  const { heapUsed } = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as { heapUsed: number };
  record({
    name: "(b) 1,000,000 pending asks in Node's default heap: heap used",
    value: heapUsed / 2 ** 20,
    unit: 'MiB',
    goal: getHeapStatistics().heap_size_limit / 2 ** 20,
  });
} else {
  console.error(
    `(b) 1,000,000 pending asks in Node's default heap: did NOT fit (exit ${child.status}): ${child.stderr.split('\n').find((line) => /heap|memory/i.test(line)) ?? ''}`,
  );
  process.exitCode = 1;
}
process.exit();
