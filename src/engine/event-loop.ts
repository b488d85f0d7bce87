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
 * an item costs several times more, and the loop must keep turning all the same.
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

/**
 * Measures this process's CPU time from now on, in ms, where the runtime tells it (Node's
 * `process.cpuUsage`), else the event loop's busy time. On a busy machine a socket write can
 * wake the database and hand it this process's CPU until its reply: the event loop then reads
 * as busy while this process did no work of its own.
 */
export function startCpuTimer(): () => number {
  const cpuUsage = (
    globalThis as { process?: { cpuUsage?: (since?: CpuUsage) => CpuUsage } }
  ).process?.cpuUsage?.bind(globalThis.process);
  if (cpuUsage === undefined) return startBusyTimer();
  const start = cpuUsage();
  return () => {
    const used = cpuUsage(start);
    return (used.user + used.system) / 1_000;
  };
}

interface CpuUsage {
  user: number;
  system: number;
}

/** Items the first slice of a run may take, before any turn was measured. */
const FIRST_SLICE_ITEMS = 16;

/**
 * Sizes slices of work by whole turns of the event loop. An item's synchronous part is only
 * some of its cost: the promise continuations it starts (a store's write returning, a caller's
 * `await` resuming) run before the turn ends as well. So each slice's cost is read at the start
 * of the next one (everything the turn ran, continuations and collections included), and the
 * next slice takes as many items as fit in `SLICE_MS` at that cost. A slice also ends once its
 * own synchronous part spent `SLICE_MS`.
 */
export class TurnSlicer {
  /** Time per item of the slices so far (a moving average), including their continuations. */
  #perItemMs: number | undefined;
  #start = 0;
  #taken = 0;
  #limit = FIRST_SLICE_ITEMS;
  /** True while a run of slices goes on: the time between two slices is then theirs. */
  #running = false;

  /** Starts a slice (each turn of a run, before its first item). */
  begin(): void {
    const now = performance.now();
    if (this.#running && this.#taken > 0) {
      const perItem = (now - this.#start) / this.#taken;
      this.#perItemMs = this.#perItemMs === undefined ? perItem : (this.#perItemMs + perItem) / 2;
    }
    this.#running = true;
    this.#start = now;
    this.#taken = 0;
    this.#limit =
      this.#perItemMs === undefined
        ? FIRST_SLICE_ITEMS
        : Math.max(1, Math.floor(SLICE_MS / this.#perItemMs));
  }

  /** True once this slice has taken its share; else counts one more item as taken. */
  full(): boolean {
    if (this.#taken >= this.#limit || performance.now() - this.#start > SLICE_MS) return true;
    this.#taken++;
    return false;
  }

  /** The run is over (nothing left to do): the idle time until the next run is not measured. */
  end(): void {
    this.#running = false;
  }
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
  const slicer = new TurnSlicer();
  slicer.begin();
  for (const item of items) {
    if (slicer.full()) {
      await eventLoopTurn();
      slicer.begin();
      slicer.full();
    }
    const pending = fn(item);
    if (pending === undefined) continue;
    remaining++;
    pending.then(settled, settled);
  }
  settled();
  await all;
}
