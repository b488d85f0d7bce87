/**
 * This service's owner lease: one record in the store (its id, until when it is live), written
 * when the service starts and renewed on an interval of real time while it is open, released
 * when it closes. An ask whose owner's lease has run out (the process died) is anyone's: a keyed
 * start or a `restore` takes it over, and the sweeper times it out. One write per renewal,
 * however many asks the service owns.
 */
import type { AskLog } from '../stores/ask-store.js';
import { leaseRuns } from '../stores/owner-lease.js';
import type { Clock } from './clock.js';

/** How long a lease runs, and how often it is renewed (resolved by `leaseTimes`). */
export interface LeaseTimes {
  leaseMs: number;
  renewMs: number;
}

export class OwnerLease {
  readonly #store: AskLog;
  readonly #clock: Clock;
  readonly #owner: string;
  readonly #times: LeaseTimes;
  readonly #report: (error: unknown) => void;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** The renewal in flight, if any: `stop` waits for it before it releases the lease. */
  #renewing: Promise<void> | undefined;
  #stopped = false;
  /**
   * The first lease write while it is in flight: a new ask's row waits for it, so no service
   * ever reads an ask whose owner holds no lease yet (and takes it over).
   */
  ready: Promise<void> | undefined;

  constructor(
    store: AskLog,
    clock: Clock,
    owner: string,
    times: LeaseTimes,
    report: (error: unknown) => void,
  ) {
    this.#store = store;
    this.#clock = clock;
    this.#owner = owner;
    this.#times = times;
    this.#report = report;
    this.ready = this.#renew().finally(() => {
      this.ready = undefined;
    });
  }

  /**
   * Until when `owner`'s lease runs, read from the store, or `undefined` when it has run out
   * (or `owner` never held one): the ask is then anyone's to take over.
   */
  async liveUntil(owner: string): Promise<number | undefined> {
    const until = await this.#store.ownerLeaseUntil(owner);
    return leaseRuns(until, this.#clock.now()) ? until : undefined;
  }

  /** Stops renewing and releases the lease, once a renewal in flight has landed. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#renewing;
    await this.#store.releaseOwnerLease(this.#owner).catch(this.#report);
  }

  #renew(): Promise<void> {
    const until = this.#clock.now() + this.#times.leaseMs;
    // A renewal the store fails is reported and tried again at the next one: the lease has
    // room for it (the renewal interval is shorter than the lease).
    this.#renewing = this.#store
      .renewOwnerLease(this.#owner, until)
      .catch(this.#report)
      .finally(() => {
        this.#renewing = undefined;
        this.#arm();
      });
    return this.#renewing;
  }

  #arm(): void {
    if (this.#stopped) return;
    // Real time, as the sweeper's poll: the clock says until when, not how often. It alone
    // never keeps a process alive.
    this.#timer = setTimeout(() => void this.#renew(), this.#times.renewMs);
    this.#timer.unref?.();
  }
}
