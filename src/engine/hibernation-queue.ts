/** Asks waiting to hibernate, oldest first, behind one timer for the whole service. */
import type { Clock } from './clock.js';

export interface Hibernating {
  /** When the ask may release its live actor; owned by the queue. */
  hibernateAt: number;
  /** True while the ask has an entry in the queue. */
  queued: boolean;
}

/**
 * Every ask waits the same delay, so entries arrive in time order and a FIFO suffices. An ask
 * that settles leaves its entry behind (it is skipped when reached); once no queued ask is left
 * the timer is released, so nothing outlives the last ask.
 */
export class HibernationQueue<T extends Hibernating> {
  readonly #clock: Clock;
  readonly #delayMs: number;
  readonly #hibernate: (entry: T) => void;
  /** `at` is the entry's `hibernateAt` when queued; a newer `add` makes the old slot stale. */
  #entries: { entry: T; at: number }[] = [];
  #head = 0;
  #queued = 0;
  #timer: unknown;

  constructor(clock: Clock, delayMs: number, hibernate: (entry: T) => void) {
    this.#clock = clock;
    this.#delayMs = delayMs;
    this.#hibernate = hibernate;
  }

  add(entry: T): void {
    entry.hibernateAt = this.#clock.now() + this.#delayMs;
    if (!entry.queued) this.#queued++;
    entry.queued = true;
    this.#entries.push({ entry, at: entry.hibernateAt });
    if (this.#timer === undefined) this.#arm(entry.hibernateAt);
  }

  /** The entry's ask settled or woke for good: it no longer counts. */
  remove(entry: T): void {
    if (!entry.queued) return;
    entry.queued = false;
    this.#queued--;
    if (this.#queued === 0) this.#reset();
  }

  #fire = (): void => {
    this.#timer = undefined;
    const now = this.#clock.now();
    const entries = this.#entries;
    while (this.#head < entries.length) {
      const { entry, at } = entries[this.#head]!;
      // Stale: the ask settled or woke, or was queued again later with a newer time.
      if (!entry.queued || at !== entry.hibernateAt) {
        this.#head++;
        continue;
      }
      if (at > now) break;
      this.#head++;
      entry.queued = false;
      this.#queued--;
      this.#hibernate(entry);
    }
    if (this.#queued === 0) {
      this.#reset();
      return;
    }
    if (this.#head > 1024 && this.#head * 2 > entries.length) {
      this.#entries = entries.slice(this.#head);
      this.#head = 0;
    }
    const next = this.#entries[this.#head];
    if (next !== undefined) this.#arm(next.at);
  };

  #arm(at: number): void {
    const handle = this.#clock.setTimeout(this.#fire, Math.max(at - this.#clock.now(), 0));
    // Housekeeping must not keep a Node process alive on its own.
    (handle as { unref?: () => void } | null)?.unref?.();
    this.#timer = handle;
  }

  #reset(): void {
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#entries = [];
    this.#head = 0;
  }
}
