/**
 * Deadlines fire from the store, not only from a process's timers: every service polls its
 * store for asks whose deadline passed (deferred asks, and pending asks whose service went
 * away) and claims them, so they time out as long as any service shares the store.
 */
import type { AskStore, AskWrite, StoredAsk } from '../stores/ask-store.js';
import type { AskObserver } from './ask-observer.js';
import { basisOf, nextAskWrite } from './ask-write.js';
import type { Clock } from './clock.js';
import { eventLoopTurn } from './event-loop.js';
import { checkStoredAsk } from './stored-ask-check.js';

/** Due asks claimed per round; rounds follow each other, an event-loop turn apart. */
const CLAIM_LIMIT = 256;

export class StoreSweeper {
  readonly #store: AskStore;
  readonly #clock: Clock;
  readonly #intervalMs: number;
  readonly #applied: (write: AskWrite) => void;
  readonly #report: (error: unknown) => void;
  readonly #observer: AskObserver | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #sweeping = false;
  #stopped = false;

  /**
   * `applied` hears of each timeout the store applied; `report` hears of a sweep that failed
   * (it is tried again at the next one) and of a due row that fails its check (skipped);
   * `observer` counts the sweeps.
   */
  constructor(
    store: AskStore,
    clock: Clock,
    intervalMs: number,
    applied: (write: AskWrite) => void,
    report: (error: unknown) => void,
    observer: AskObserver | undefined,
  ) {
    this.#observer = observer;
    this.#store = store;
    this.#clock = clock;
    this.#intervalMs = intervalMs;
    this.#applied = applied;
    this.#report = report;
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

  /** The timeout write of a due ask, or nothing for a row that fails its check (reported). */
  #timeout(stored: StoredAsk, now: number): AskWrite | undefined {
    let row: StoredAsk;
    try {
      row = checkStoredAsk(stored, 'the due ask');
    } catch (error) {
      this.#report(error);
      return undefined;
    }
    // The sweeper does not take the ask over: the owner stays as stored.
    const write = nextAskWrite(basisOf(row), { type: 'deadline', at: now }, now, row.owner);
    return write === undefined ? undefined : { ask: write.ask, event: write.event };
  }

  async #sweep(): Promise<void> {
    if (this.#sweeping || this.#stopped) return;
    this.#sweeping = true;
    let claimed = 0;
    try {
      for (;;) {
        const now = this.#clock.now();
        const applied = await this.#store.claimDue(now, CLAIM_LIMIT, (ask) =>
          this.#timeout(ask, now),
        );
        claimed += applied.length;
        for (const write of applied) this.#applied(write);
        if (applied.length < CLAIM_LIMIT || this.#stopped) break;
        await eventLoopTurn();
      }
      this.#observer?.swept(claimed);
    } catch (error) {
      // A store that fails a sweep is tried again at the next one; the host hears of each.
      this.#observer?.swept(claimed, error);
      this.#report(error);
    } finally {
      this.#sweeping = false;
    }
  }
}
