/**
 * Storms, with the options a user gets (the store sweeper on, every 250 ms): 100,000 pending
 * asks time out at the same moment, or are drained at once (goal: no stall over 20 ms), or sit
 * pending with nothing due while the sweeper runs (goal: 10 ms). The work must be sliced so the
 * event loop keeps turning. A stall is the maximum of `monitorEventLoopDelay` (10 ms resolution)
 * while the storm settles. For scale, the same figure for 100,000 bare timers firing at once.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createInteractionService } from '../src/index.js';
import { requireGc, yesNoRequest } from './fixtures.js';
import { record } from './record.js';

const COUNT = 100_000;
const GOAL_MS = 20;
const IDLE_GOAL_MS = 10;
const gc = requireGc();

async function maxStall(storm: () => Promise<unknown>): Promise<number> {
  gc();
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  await storm();
  histogram.disable();
  // The histogram reads in nanoseconds and includes its own 10 ms sampling interval.
  return Math.max(0, histogram.max / 1e6 - 10);
}

async function pendingAsks(timeoutMs: number) {
  const service = createInteractionService();
  service.registerProvider({ ask: () => new Promise(() => undefined) });
  const outcomes: Promise<unknown>[] = new Array(COUNT);
  for (let i = 0; i < COUNT; i++) {
    outcomes[i] = service.ask(yesNoRequest, { timeoutMs });
    if (i % 5_000 === 4_999) await new Promise((resolve) => setImmediate(resolve));
  }
  await new Promise((resolve) => setTimeout(resolve, 50));
  return { service, outcomes };
}

function line(name: string, stallMs: number, goal?: number) {
  record({
    name: `${name}: longest event-loop stall`,
    value: stallMs,
    unit: 'ms',
    ...(goal === undefined ? {} : { goal }),
  });
}

// For scale: 100,000 bare timers due at once.
line(
  'floor: 100,000 bare setTimeout firing at once',
  await maxStall(async () => {
    const all: Promise<unknown>[] = [];
    const due = Date.now() + 200;
    for (let i = 0; i < COUNT; i++) {
      all.push(new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now()))));
    }
    await Promise.all(all);
  }),
);

{
  const timeoutMs = 3_000;
  const started = Date.now();
  const { service, outcomes } = await pendingAsks(timeoutMs);
  // Measure from just before the shared deadline until every ask has timed out.
  await new Promise((resolve) =>
    setTimeout(resolve, Math.max(0, started + timeoutMs - Date.now() - 100)),
  );
  const stall = await maxStall(() => Promise.all(outcomes));
  const statuses = new Set(
    (await Promise.all(outcomes)).map((outcome) => (outcome as { status: string }).status),
  );
  if (statuses.size !== 1 || !statuses.has('timedOut'))
    throw new Error(`unexpected outcomes ${[...statuses]}`);
  line('100,000 pending asks timing out at once', stall, GOAL_MS);
  await service.close();
}

{
  const { service, outcomes } = await pendingAsks(600_000);
  // Nothing is due: the sweeper runs every 250 ms over a store of 100,000 pending asks.
  const idle = await maxStall(() => new Promise((resolve) => setTimeout(resolve, 2_000)));
  line('100,000 pending asks, nothing due, for 2 s', idle, IDLE_GOAL_MS);
  const stall = await maxStall(() => service.drain(new Error('host restarting')));
  const statuses = new Set(
    (await Promise.all(outcomes)).map((outcome) => (outcome as { status: string }).status),
  );
  if (statuses.size !== 1 || !statuses.has('aborted'))
    throw new Error(`unexpected outcomes ${[...statuses]}`);
  line('100,000 pending asks drained at once', stall, GOAL_MS);
  await service.close();
}
process.exit(0);
