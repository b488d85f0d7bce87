/**
 * Deadlines fire from the store, not only from a process's timers: every service polls its
 * store for asks whose deadline passed (deferred asks, and pending asks whose service went
 * away) and claims them, so they time out as long as any service shares the store.
 *
 * A sweep is sliced: each round claims a batch sized so that it takes about one slice of the
 * event loop (`SLICE_MS`), and rounds follow each other an event-loop turn apart. A local
 * store's round also ends once it has run for a slice (an ask can suddenly cost far more than
 * the ones it was sized from); the asks it left are the next round's. A store that writes its
 * claims beside the loop (SQLite's worker) instead lets the loop turn and goes on, so its
 * rounds are not sized to a slice: each is one transaction of up to `MAX_CLAIM_BESIDE` asks,
 * two in flight (one read while the other is written). Whatever a round applied is told to the
 * service in slices too. The stores
 * find due asks by deadline (a heap, an index range), so a sweep with nothing due costs the
 * same with 10 or 1,000,000 asks pending. A service does not sweep while its own deadline
 * timers have due work (a storm they are settling, a deadline write in flight): every due ask
 * a sweep finds is then one this service does not time out itself, so the two never race for
 * it (and each write is a compare-and-set, so an ask still has exactly one outcome).
 */
import type { AskLog, AskWrite, StoredAsk } from '../stores/ask-store.js';
import { writesClaimsBeside } from '../stores/claim-lanes.js';
import type { AskObserver } from './ask-observer.js';
import { basisOf, nextAskWrite } from './ask-write.js';
import type { Clock } from './clock.js';
import {
  eventLoopTurn,
  forEachSliced,
  SLICE_MS,
  startBusyTimer,
  startCpuTimer,
} from './event-loop.js';
import { checkStoredAsk } from './stored-ask-check.js';
import type { WriteLedger } from './write-ledger.js';

/** At most this many due asks are claimed per round. */
const MAX_CLAIM = 256;
/**
 * A store that writes its claims beside the loop spreads a round over slices of the loop
 * itself, so its rounds are not sized to one slice: at most this many asks, one transaction.
 */
const MAX_CLAIM_BESIDE = 512;
/** Rounds claim at least this many due asks: a round has a cost of its own (a transaction). */
const MIN_CLAIM = 8;
/** How many slices a round that mostly waited for its database may keep the loop busy. */
const NETWORK_SLICES = 4;
/** The first round's batch (its code is not optimized yet); later ones are sized from the time per ask so far. */
const FIRST_CLAIM = MIN_CLAIM;
/** A remote store's first batch: its rounds cost round trips, which a small batch multiplies. */
const FIRST_REMOTE_CLAIM = 64;

export class StoreSweeper {
  readonly #store: AskLog;
  readonly #writer: string;
  readonly #clock: Clock;
  readonly #intervalMs: number;
  readonly #applied: (write: AskWrite) => void;
  readonly #report: (error: unknown) => void;
  readonly #observer: AskObserver | undefined;
  readonly #ownDeadlinesDue: (now: number) => boolean;
  /** Counts the claim in flight: a closed service's `close()` waits for it. */
  readonly #ledger: WriteLedger;
  /** The next round's batch size, and the time per ask it was sized from (a moving average). */
  #claim = FIRST_CLAIM;
  #msPerAsk: number | undefined;
  /** Set once a round was timed and ignored (its code was not optimized yet). */
  #warm = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #sweeping = false;
  #stopped = false;

  /**
   * `writer` is the id of the service that sweeps (its writes name it); `applied` hears of each
   * timeout the store applied; `report` hears of a sweep that failed
   * (it is tried again at the next one) and of a due row that fails its check (skipped);
   * `observer` counts the sweeps; `ownDeadlinesDue` says whether this service's own deadline
   * timers have work at a time (the sweep waits for them); `ledger` counts its claims.
   */
  constructor(
    store: AskLog,
    writer: string,
    clock: Clock,
    intervalMs: number,
    applied: (write: AskWrite) => void,
    report: (error: unknown) => void,
    observer: AskObserver | undefined,
    ownDeadlinesDue: (now: number) => boolean,
    ledger: WriteLedger,
  ) {
    this.#ledger = ledger;
    this.#ownDeadlinesDue = ownDeadlinesDue;
    this.#observer = observer;
    this.#store = store;
    this.#writer = writer;
    this.#clock = clock;
    this.#intervalMs = intervalMs;
    this.#applied = applied;
    this.#report = report;
    if (store.remote === true) this.#claim = FIRST_REMOTE_CLAIM;
    // The first sweep comes at once: asks may have come due while no service was up.
    this.#arm(0);
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  #arm(delayMs = this.#intervalMs): void {
    if (this.#stopped || !Number.isFinite(this.#intervalMs)) return;
    // Real time, not the service's clock: the sweep is a poll of the store, and the clock's
    // timers are the asks' own deadlines. It alone never keeps a process alive.
    this.#timer = setTimeout(() => {
      void this.#sweep().finally(() => this.#arm());
    }, delayMs);
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
    const deadline = { type: 'deadline', at: now } as const;
    const write = nextAskWrite(basisOf(row), deadline, now, row.owner, this.#writer);
    return write === undefined
      ? undefined
      : { ask: write.ask, event: write.event, writer: this.#writer };
  }

  /**
   * Sizes the next round from the time per ask so far: this round's `applied` asks kept the
   * event loop busy `busyMs` (store and callbacks; waiting for a database's reply does not
   * count) out of `wallMs`, averaged with earlier rounds so one round slowed by a collection or
   * a busy machine does not shrink the next ones to nothing. A round that mostly waited for its
   * database (a network store) may be busy for `NETWORK_SLICES` slices: its round trips, not
   * its work, would otherwise bound how fast a storm of due asks is swept.
   */
  #resize(limit: number, applied: number, busyMs: number, wallMs: number, beside: boolean): void {
    const perAsk = Math.max(busyMs, 0.01) / applied;
    const most = beside ? MAX_CLAIM_BESIDE : MAX_CLAIM;
    if (!this.#warm) {
      // The first round runs code not optimized yet: its time says little about the next.
      this.#warm = true;
      this.#claim = Math.min(most, limit * 2);
      return;
    }
    this.#msPerAsk = this.#msPerAsk === undefined ? perAsk : (this.#msPerAsk + perAsk) / 2;
    const remote = this.#store.remote === true || wallMs > 2 * busyMs;
    const budget = remote ? SLICE_MS * NETWORK_SLICES : SLICE_MS;
    // A store that spreads its claims over slices needs no round sized to one.
    const fits = beside ? most : Math.floor(budget / this.#msPerAsk);
    // Grows at most twofold per round, so one fast round after slow ones is not trusted alone.
    this.#claim = Math.max(MIN_CLAIM, Math.min(most, limit * 2, fits));
  }

  async #sweep(): Promise<void> {
    if (this.#sweeping || this.#stopped) return;
    this.#sweeping = true;
    const sweep: Sweep = { claimed: 0, polled: false, over: false };
    try {
      // A store whose claims are written beside the loop gets two rounds in flight: one is read
      // and settled here while the other is written. Both end before the sweep does.
      const beside = writesClaimsBeside(this.#store);
      const lanes = beside ? 2 : 1;
      const ended = await Promise.allSettled(
        Array.from({ length: lanes }, () => this.#rounds(sweep, lanes, beside)),
      );
      for (const lane of ended) if (lane.status === 'rejected') throw lane.reason;
      // A sweep left to this service's own timers polled nothing: it is not counted.
      if (sweep.polled) this.#observer?.swept(sweep.claimed);
    } catch (error) {
      // A store that fails a sweep is tried again at the next one; the host hears of each.
      this.#observer?.swept(sweep.claimed, error);
      this.#report(error);
    } finally {
      this.#sweeping = false;
    }
  }

  /**
   * Claims rounds until one finds fewer due asks than it asked for (in any lane of the sweep);
   * `lanes` rounds are in flight at once and share the event loop's time.
   */
  async #rounds(sweep: Sweep, lanes: number, beside: boolean): Promise<void> {
    try {
      while (!sweep.over && !this.#stopped) {
        const now = this.#clock.now();
        // Asks this service times out itself are left to its timers; the next sweep comes.
        if (this.#ownDeadlinesDue(now)) break;
        const limit = this.#claim;
        const remote = this.#store.remote === true;
        const busy = remote ? startCpuTimer() : startBusyTimer();
        const started = performance.now();
        // A local store's round ends once it has run for a slice, whatever slowed it (code
        // deoptimized, a collection, a busy machine): the asks left stay due for the next round.
        // A store that lets the loop turn and goes on asking starts a new slice.
        let sliceStarted = started;
        let spent = false;
        const enough = remote
          ? undefined
          : () => {
              const at = performance.now();
              if (spent) sliceStarted = at;
              spent = at - sliceStarted > SLICE_MS;
              return spent;
            };
        this.#ledger.begin();
        let applied: AskWrite[];
        try {
          applied = await this.#store.claimDue(
            now,
            limit,
            (ask) => this.#timeout(ask, now),
            enough,
          );
        } finally {
          this.#ledger.end();
        }
        const ended = spent;
        sweep.polled = true;
        sweep.claimed += applied.length;
        // Told in slices too: a round of hundreds of asks ends in one commit.
        await forEachSliced(applied, (write) => {
          this.#applied(write);
          return undefined;
        });
        if (applied.length > 0) {
          // The loop's busy time of a round in flight beside others is theirs too.
          this.#resize(limit, applied.length, busy() / lanes, performance.now() - started, beside);
        }
        if ((applied.length < limit && !ended) || this.#stopped) break;
        await eventLoopTurn();
      }
    } finally {
      sweep.over = true;
    }
  }
}

/** What the rounds of one sweep share. */
interface Sweep {
  claimed: number;
  polled: boolean;
  /** Set once a round found the last due asks, or the sweeper stopped: every lane ends. */
  over: boolean;
}
