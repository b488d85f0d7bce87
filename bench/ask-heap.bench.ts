/**
 * (b) Heap bytes per pending ask with 100,000 asks pending (each with a deadline), against
 * 100,000 bare Promise + setTimeout. Goal <= 4x. The provider never answers and never reads
 * its signal, so the figure is the engine's own cost, not a provider's. Measured once while
 * every ask still has its live actor, and once after the default hibernation delay, when
 * idle asks keep only their persisted snapshot (what a person's think time looks like).
 */
import { createInteractionService } from '../src/engine/service.js';
import { requireGc, yesNoRequest } from './fixtures.js';
import { report } from './ratio.js';

const gc = requireGc();
const COUNT = 100_000;

const settle = async () => {
  await new Promise((resolve) => setTimeout(resolve, 20));
  gc();
  gc();
};

async function heapPerItem(
  make: () => unknown,
): Promise<{ bytes: number; keep: unknown[]; before: number }> {
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  const keep: unknown[] = new Array(COUNT);
  for (let i = 0; i < COUNT; i++) keep[i] = make();
  await settle();
  return { bytes: (process.memoryUsage().heapUsed - before) / COUNT, keep, before };
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
    name: '(b) heap per pending ask, 100,000 pending, live actors',
    subjectNs: subject.bytes,
    floorNs: floor.bytes,
  },
  'bytes',
);
await new Promise((resolve) => setTimeout(resolve, 1_100)); // the default hibernateAfterMs
await settle();
report(
  {
    name: '(b) heap per pending ask, 100,000 pending, idle > 1 s (hibernated)',
    goal: 4,
    subjectNs: (process.memoryUsage().heapUsed - subject.before) / COUNT,
    floorNs: floor.bytes,
  },
  'bytes',
);
await service.drain(new Error('benchmark done'));
process.exit(0);
