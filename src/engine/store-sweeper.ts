/**
 * Deadlines fire from the store, not only from a process's timers: every service polls its
 * store for asks whose deadline passed (deferred asks, and pending asks whose service went
 * away) and claims them, so they time out as long as any service shares the store.
 */
import type { AskStore, AskWrite, StoredAsk } from '../stores/ask-store.js';
import type { Clock } from './clock.js';
import { eventLoopTurn } from './event-loop.js';

/** Due asks claimed per round; rounds follow each other, an event-loop turn apart. */
const CLAIM_LIMIT = 256;

export class StoreSweeper {
  readonly #store: AskStore;
  readonly #clock: Clock;
  readonly #intervalMs: number;
  readonly #settle: (ask: StoredAsk, now: number) => AskWrite | undefined;
  readonly #applied: (write: AskWrite) => void;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #sweeping = false;
  #stopped = false;

  /**
   * `settle` turns one due ask into its timeout write (or declines it); `applied` hears of each
   * write the store applied.
   */
  constructor(
    store: AskStore,
    clock: Clock,
    intervalMs: number,
    settle: (ask: StoredAsk, now: number) => AskWrite | undefined,
    applied: (write: AskWrite) => void,
  ) {
    this.#store = store;
    this.#clock = clock;
    this.#intervalMs = intervalMs;
    this.#settle = settle;
    this.#applied = applied;
    this.#arm();
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  #arm(): void {
    if (this.#stopped || !Number.isFinite(this.#intervalMs)) return;
    // Real time, not the service's clock: the sweep is a poll of the store, and the clock's
    // timers are the asks' own deadlines. It alone never keeps a process alive.
    this.#timer = setTimeout(() => {
      void this.#sweep().finally(() => this.#arm());
    }, this.#intervalMs);
    this.#timer.unref?.();
  }

  async #sweep(): Promise<void> {
    if (this.#sweeping || this.#stopped) return;
    this.#sweeping = true;
    try {
      for (;;) {
        const now = this.#clock.now();
        const applied = await this.#store.claimDue(now, CLAIM_LIMIT, (ask) =>
          this.#settle(ask, now),
        );
        for (const write of applied) this.#applied(write);
        if (applied.length < CLAIM_LIMIT || this.#stopped) return;
        await eventLoopTurn();
      }
    } catch {
      // A store that fails a sweep is tried again at the next one.
    } finally {
      this.#sweeping = false;
    }
  }
}
