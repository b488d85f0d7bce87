/** One timer for every deadline of a service: a min-heap keyed by absolute time. */
import type { Clock } from './clock.js';
import { afterEventLoopTurn, cancelEventLoopTurn, TurnSlicer } from './event-loop.js';

export interface Scheduled {
  deadlineAt: number;
  /** Position in the heap, -1 when not scheduled; owned by the scheduler. */
  heapIndex: number;
}

// Timers longer than this overflow to 1 ms in Node and browsers; re-arm instead.
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A timer per ask costs an allocation and a cancellation each; asks share one timer
 * armed for the earliest deadline. The callback gets every entry whose deadline is due.
 */
export class DeadlineScheduler<T extends Scheduled> {
  readonly #clock: Clock;
  readonly #onDue: (entry: T, now: number) => void;
  readonly #heap: T[] = [];
  #timer: unknown;
  /** The timer is an event-loop turn between two slices, not a clock timer. */
  #sliced = false;
  #armedFor = Number.POSITIVE_INFINITY;
  /** The timer is armed with nothing scheduled, and unreferenced (see `#rest`). */
  #idle = false;
  readonly #slicer = new TurnSlicer();

  constructor(clock: Clock, onDue: (entry: T, now: number) => void) {
    this.#clock = clock;
    this.#onDue = onDue;
  }

  /** The earliest deadline scheduled, or `Infinity` when none is. */
  get nextDeadline(): number {
    return this.#heap[0]?.deadlineAt ?? Number.POSITIVE_INFINITY;
  }

  add(entry: T): void {
    if (this.#idle) {
      this.#idle = false;
      (this.#timer as { ref?: () => void }).ref?.();
    }
    entry.heapIndex = this.#heap.length;
    this.#heap.push(entry);
    this.#up(entry.heapIndex);
    if (entry.deadlineAt < this.#armedFor) this.#arm();
  }

  remove(entry: T): void {
    const index = entry.heapIndex;
    if (index < 0) return;
    const last = this.#heap.pop()!;
    entry.heapIndex = -1;
    if (last !== entry) {
      this.#heap[index] = last;
      last.heapIndex = index;
      this.#down(index);
      this.#up(last.heapIndex);
    }
    // The timer stays armed for a removed earliest deadline: firing early is harmless
    // (nothing is due, it re-arms), and it saves a clear + set on every answered ask. With no
    // deadline left it no longer keeps the process alive (the next `add` takes it back).
    if (this.#heap.length === 0) this.#rest();
  }

  /** Nothing is scheduled: the timer stays, unreferenced, where the clock's timers allow it. */
  #rest(): void {
    const timer = this.#timer as { unref?: () => void } | undefined;
    if (timer === undefined || this.#sliced || typeof timer.unref !== 'function') {
      this.#disarm();
      return;
    }
    timer.unref();
    this.#idle = true;
  }

  #fire = (): void => {
    this.#timer = undefined;
    this.#idle = false;
    this.#sliced = false;
    this.#armedFor = Number.POSITIVE_INFINITY;
    const now = this.#clock.now();
    let head = this.#heap[0];
    this.#slicer.begin();
    while (head !== undefined && head.deadlineAt <= now) {
      if (this.#slicer.full()) {
        // A storm of deadlines is settled in slices, so the event loop keeps turning.
        this.#armedFor = head.deadlineAt;
        this.#timer = afterEventLoopTurn(this.#fire);
        this.#sliced = true;
        return;
      }
      this.remove(head);
      this.#onDue(head, now);
      head = this.#heap[0];
    }
    this.#slicer.end();
    if (this.#heap.length > 0) this.#arm();
  };

  #arm(): void {
    const head = this.#heap[0];
    if (head === undefined) return;
    this.#clear();
    const delay = Math.min(Math.max(head.deadlineAt - this.#clock.now(), 0), MAX_TIMER_MS);
    this.#armedFor = head.deadlineAt;
    this.#timer = this.#clock.setTimeout(this.#fire, delay);
  }

  /** Stops the timer; nothing fires until the next `add`. */
  stop(): void {
    this.#disarm();
  }

  #clear(): void {
    this.#idle = false;
    if (this.#timer === undefined) return;
    if (this.#sliced) cancelEventLoopTurn(this.#timer);
    else this.#clock.clearTimeout(this.#timer);
    this.#sliced = false;
  }

  #disarm(): void {
    this.#clear();
    this.#timer = undefined;
    this.#armedFor = Number.POSITIVE_INFINITY;
  }

  #up(index: number): void {
    const heap = this.#heap;
    const entry = heap[index]!;
    while (index > 0) {
      const parentIndex = (index - 1) >> 1;
      const parent = heap[parentIndex]!;
      if (parent.deadlineAt <= entry.deadlineAt) break;
      heap[index] = parent;
      parent.heapIndex = index;
      index = parentIndex;
    }
    heap[index] = entry;
    entry.heapIndex = index;
  }

  #down(index: number): void {
    const heap = this.#heap;
    const entry = heap[index]!;
    const length = heap.length;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= length) break;
      const right = left + 1;
      const child =
        right < length && heap[right]!.deadlineAt < heap[left]!.deadlineAt ? right : left;
      if (heap[child]!.deadlineAt >= entry.deadlineAt) break;
      heap[index] = heap[child]!;
      heap[index]!.heapIndex = index;
      index = child;
    }
    heap[index] = entry;
    entry.heapIndex = index;
  }
}
