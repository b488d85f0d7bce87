/**
 * A work claim held while its work runs: claimed in the store, renewed every third of its lease,
 * and a signal that aborts the moment the claim is lost, so the work stops when the lease that
 * guards it ends ("a lease must cover the work it guards, or the work must stop").
 */

import { renewalInterval } from '../stores/owner-lease.js';
import type { WorkClaim, WorkClaimStore } from '../stores/work-claims.js';

/** A work claim this host holds (see `holdWorkClaim`). */
export interface HeldWorkClaim {
  /** The claim's key in the store. */
  readonly key: string;
  /** Who holds it: the service's id and a random id of this claim. */
  readonly holder: string;
  /**
   * Aborts when the claim is lost: a renewal found it taken, or its lease ran out before a
   * renewal landed (the store was unreachable). Pass it to the work it guards, so the work stops
   * then: another host may take the claim over.
   */
  readonly signal: AbortSignal;
  /**
   * The work is done: the claim is never given to anyone again, and renewing stops. Rejects
   * when the claim was lost before (another host may have done the work too).
   */
  finish(): Promise<void>;
  /**
   * Gives the work back undone (it failed before doing anything that must not be repeated):
   * another host may claim it at once. Renewing stops; releasing a lost claim does nothing.
   */
  release(): Promise<void>;
}

/** What `holdWorkClaim` found: the claim held here, or who has it (`held`) or did it (`done`). */
export type HoldResult =
  | { held: HeldWorkClaim }
  | { held: undefined; claim: Exclude<WorkClaim, { status: 'claimed' }> };

/** What to claim, and for how long at a time. */
export interface HoldOptions {
  key: string;
  /** The service holding it: the holder is its id and a random id of this claim. */
  serviceId: string;
  /** The ask the work belongs to: a purge of that ask deletes the claim. */
  askId?: string;
  /** How long the lease runs unless renewed (ms); renewed every third of it. */
  leaseMs: number;
}

/** Claims `key` in `store` on the real clock (hosts compare their times) and keeps it renewed. */
export async function holdWorkClaim(
  store: WorkClaimStore,
  options: HoldOptions,
): Promise<HoldResult> {
  const { key, serviceId, askId, leaseMs } = options;
  const holder = `${serviceId}:${globalThis.crypto.randomUUID()}`;
  const now = Date.now();
  const claim = await store.claimWork(
    { key, holder, until: now + leaseMs, ...(askId === undefined ? {} : { askId }) },
    now,
  );
  if (claim.status !== 'claimed') return { held: undefined, claim };
  return { held: new Renewal(store, key, holder, claim.until, leaseMs) };
}

class Renewal implements HeldWorkClaim {
  readonly #controller = new AbortController();
  readonly #store: WorkClaimStore;
  readonly #leaseMs: number;
  #renewTimer: ReturnType<typeof setTimeout> | undefined;
  #expiryTimer: ReturnType<typeof setTimeout> | undefined;
  /** The last renewal's failure, named when the lease then runs out. */
  #lastFailure: unknown;
  #stopped = false;

  constructor(
    store: WorkClaimStore,
    readonly key: string,
    readonly holder: string,
    until: number,
    leaseMs: number,
  ) {
    this.#store = store;
    this.#leaseMs = leaseMs;
    this.#expireAt(until);
    this.#armRenewal();
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  async finish(): Promise<void> {
    const lost = this.#controller.signal.aborted;
    this.#stop();
    if (lost || !(await this.#store.finishWork(this.key, this.holder, Date.now()))) {
      throw new Error(
        `The claim ${JSON.stringify(this.key)} was lost before it was finished (its lease ran out or another host took it over), so it is not marked done: another host may have done this work too.`,
      );
    }
  }

  async release(): Promise<void> {
    const lost = this.#controller.signal.aborted;
    this.#stop();
    if (!lost) await this.#store.releaseWork(this.key, this.holder);
  }

  #armRenewal(): void {
    this.#renewTimer = setTimeout(() => void this.#renew(), renewalInterval(this.#leaseMs));
    unref(this.#renewTimer);
  }

  async #renew(): Promise<void> {
    const now = Date.now();
    const until = now + this.#leaseMs;
    let renewed: boolean;
    try {
      renewed = await this.#store.renewWork(this.key, this.holder, until, now);
    } catch (error) {
      // Tried again at the next renewal; the lease has room for it, and its end stops the work.
      this.#lastFailure = error;
      if (!this.#stopped) this.#armRenewal();
      return;
    }
    if (this.#stopped) return;
    if (!renewed) {
      this.#lose('a renewal found it taken over or run out');
      return;
    }
    this.#lastFailure = undefined;
    this.#expireAt(until);
    this.#armRenewal();
  }

  #expireAt(until: number): void {
    clearTimeout(this.#expiryTimer);
    this.#expiryTimer = setTimeout(
      () => this.#lose('its lease ran out before a renewal landed'),
      Math.max(0, until - Date.now()),
    );
    unref(this.#expiryTimer);
  }

  #lose(why: string): void {
    if (this.#stopped) return;
    this.#stop();
    const failure = this.#lastFailure;
    this.#controller.abort(
      new Error(
        `Lost the claim ${JSON.stringify(this.key)}: ${why}. Stop the work it guards: another host may take it over.`,
        failure === undefined ? undefined : { cause: failure },
      ),
    );
  }

  #stop(): void {
    this.#stopped = true;
    clearTimeout(this.#renewTimer);
    clearTimeout(this.#expiryTimer);
  }
}

function unref(timer: ReturnType<typeof setTimeout>): void {
  (timer as { unref?: () => void }).unref?.();
}
