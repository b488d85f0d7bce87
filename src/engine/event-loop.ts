/** Yielding to the event loop between slices of work (real time, not the service's clock). */

const hasImmediate = typeof globalThis.setImmediate === 'function';

/** Runs `fn` after the event loop has handled pending I/O and timers. */
export function afterEventLoopTurn(fn: () => void): unknown {
  return hasImmediate ? globalThis.setImmediate(fn) : globalThis.setTimeout(fn, 0);
}

export function cancelEventLoopTurn(handle: unknown): void {
  if (hasImmediate) globalThis.clearImmediate(handle as ReturnType<typeof setImmediate>);
  else globalThis.clearTimeout(handle as ReturnType<typeof setTimeout>);
}

/** Resolves after one turn of the event loop. */
export function eventLoopTurn(): Promise<void> {
  return new Promise((resolve) => afterEventLoopTurn(resolve));
}

/**
 * Work done in one turn before yielding, in ms. Counted in time, not items: on a loaded machine
 * an item costs several times more, and the loop must keep turning all the same. The
 * promise continuations an item starts run before the turn ends too, so this is about half a
 * turn's length.
 */
export const SLICE_MS = 4;

interface LoopUtilization {
  idle: number;
  active: number;
}
const eventLoopUtilization = (
  globalThis.performance as {
    eventLoopUtilization?: (since?: LoopUtilization) => LoopUtilization;
  }
).eventLoopUtilization?.bind(globalThis.performance);

/**
 * Measures how long the event loop was busy from now on, in ms: time spent waiting for I/O
 * (a database's reply) is not counted where the runtime tells it (Node's event-loop
 * utilization), else the time passed.
 */
export function startBusyTimer(): () => number {
  if (eventLoopUtilization === undefined) {
    const start = performance.now();
    return () => performance.now() - start;
  }
  const start = eventLoopUtilization();
  return () => eventLoopUtilization(start).active;
}

/** A time budget for one slice of work. */
export function startSlice(): { spent(): boolean } {
  const start = performance.now();
  return { spent: () => performance.now() - start > SLICE_MS };
}

/**
 * Calls `fn` on every item, in slices of one turn, and resolves once every promise it returned
 * settled (counted, not collected: settling 100,000 promises at once would stall the loop).
 * A rejection is the item's own business (`fn` handles it); it only counts as settled here.
 */
export async function forEachSliced<T>(
  items: readonly T[],
  fn: (item: T) => Promise<unknown> | undefined,
): Promise<void> {
  let remaining = 1;
  let done!: () => void;
  const all = new Promise<void>((resolve) => {
    done = resolve;
  });
  const settled = () => {
    if (--remaining === 0) done();
  };
  let slice = startSlice();
  for (const item of items) {
    if (slice.spent()) {
      await eventLoopTurn();
      slice = startSlice();
    }
    const pending = fn(item);
    if (pending === undefined) continue;
    remaining++;
    pending.then(settled, settled);
  }
  settled();
  await all;
}
