/** One timer for every deadline of a service, armed for the first deadline of one heap. */
import type { Clock } from './clock.js';
import { DeadlineHeap, type HeapSlot } from './deadline-heap.js';
import { afterEventLoopTurn, cancelEventLoopTurn, TurnSlicer } from './event-loop.js';

// Timers longer than this overflow to 1 ms in Node and browsers; re-arm instead.
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A timer per ask costs an allocation and a cancellation each; asks share one timer
 * armed for the earliest deadline. The callback gets every entry whose deadline is due.
 */
export class DeadlineScheduler<T extends HeapSlot> {
  readonly #clock: Clock;
  readonly #onDue: (entry: T, now: number) => void;
  readonly #heap = new DeadlineHeap<T>();
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
    return this.#heap.firstDeadline;
  }

  /** Schedules `entry` at `deadlineAt`, or moves it there if it is scheduled already. */
  add(entry: T, deadlineAt: number): void {
    if (this.#idle) {
      this.#idle = false;
      (this.#timer as { ref?: () => void }).ref?.();
    }
    this.#heap.set(entry, deadlineAt);
    if (deadlineAt < this.#armedFor) this.#arm();
  }

  remove(entry: T): void {
    if (entry.heapIndex < 0) return;
    this.#heap.delete(entry);
    // The timer stays armed for a removed earliest deadline: firing early is harmless
    // (nothing is due, it re-arms), and it saves a clear + set on every answered ask. With no
    // deadline left it no longer keeps the process alive (the next `add` takes it back).
    if (this.#heap.size === 0) this.#rest();
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
    this.#slicer.begin();
    while (this.#heap.firstDeadline <= now) {
      if (this.#slicer.full()) {
        // A storm of deadlines is settled in slices, so the event loop keeps turning.
        this.#armedFor = this.#heap.firstDeadline;
        this.#timer = afterEventLoopTurn(this.#fire);
        this.#sliced = true;
        return;
      }
      const due = this.#heap.popDue(now) as T;
      this.#onDue(due, now);
    }
    this.#slicer.end();
    if (this.#heap.size > 0) this.#arm();
  };

  #arm(): void {
    const first = this.#heap.firstDeadline;
    if (first === Number.POSITIVE_INFINITY) return;
    this.#clear();
    const delay = Math.min(Math.max(first - this.#clock.now(), 0), MAX_TIMER_MS);
    this.#armedFor = first;
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
}
