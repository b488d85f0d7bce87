/**
 * (b) Heap bytes per pending ask with 100,000 asks pending (each with a deadline), against
 * 100,000 bare Promise + setTimeout. Goal <= 4x. The provider never answers and never reads
 * its signal, so the figure is the engine's own cost, not a provider's.
 */
import { createInteractionService } from '../src/service.js';
import { requireGc, yesNoRequest } from './fixtures.js';
import { report } from './ratio.js';

const gc = requireGc();
const COUNT = 100_000;

async function heapPerItem(make: () => unknown): Promise<{ bytes: number; keep: unknown[] }> {
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  const keep: unknown[] = new Array(COUNT);
  for (let i = 0; i < COUNT; i++) keep[i] = make();
  await new Promise((resolve) => setTimeout(resolve, 20));
  gc();
  gc();
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
    name: '(b) heap per pending ask, 100,000 pending',
    goal: 4,
    subjectNs: subject.bytes,
    floorNs: floor.bytes,
  },
  'bytes',
);
await service.drain(new Error('benchmark done'));
process.exit(0);
