/**
 * Who delivers an ask: its first write (or attaching to the ask a key names), waiting on
 * another service while that service's lease runs, and taking an ask over (`restore`, or once
 * its owner died). Writes go through the compare-and-set writes (ask-commit.ts), what they
 * applied through settlement's one settle step, then the ask is held and delivered here. The
 * only writer of an open ask's `ready` and `stored`.
 */
import { UserInteractionError } from '../rules/errors.js';
import type { AskCreateResult, AskLog, AskWrite, StoredAsk } from '../stores/ask-store.js';
import { type AskCommits, MAX_WRITE_ATTEMPTS } from './ask-commit.js';
import { checkStoredKey, retiredIdError } from './ask-intake.js';
import type { AskReplica } from './ask-replica.js';
import { deliversIn } from './ask-table.js';
import type { Clock } from './clock.js';
import type { Delivery } from './delivery.js';
import type { OpenAsk } from './open-ask.js';
import type { OwnerLease } from './owner-lease.js';
import { purgedError, type Settlement } from './settlement.js';
import { checkStoredAsk } from './stored-ask-check.js';

export class AskOwnership {
  readonly #store: AskLog;
  readonly #clock: Clock;
  readonly #serviceId: string;
  readonly #replica: AskReplica;
  readonly #commits: AskCommits;
  readonly #settlement: Settlement;
  readonly #delivery: Delivery;
  readonly #lease: OwnerLease;
  /** Asks this service waits on while another service's lease runs: their timers. */
  readonly #watched = new Map<OpenAsk, unknown>();
  readonly #report: (error: unknown, open: OpenAsk | undefined) => void;

  constructor(
    store: AskLog,
    clock: Clock,
    serviceId: string,
    replica: AskReplica,
    commits: AskCommits,
    settlement: Settlement,
    delivery: Delivery,
    lease: OwnerLease,
    report: (error: unknown, open: OpenAsk | undefined) => void,
  ) {
    this.#store = store;
    this.#clock = clock;
    this.#serviceId = serviceId;
    this.#replica = replica;
    this.#commits = commits;
    this.#settlement = settlement;
    this.#delivery = delivery;
    this.#lease = lease;
    this.#report = report;
  }

  /**
   * Writes a new ask; events wait for the write. On a key that exists, attaches to that ask, or
   * takes it over when nobody delivers it any more (its owner's lease ran out).
   */
  create(open: OpenAsk, deliver: boolean, signal: AbortSignal | undefined): void {
    const { write, created } = this.#commits.create(open);
    open.stored = created;
    open.ready = this.#created(open, write, created, deliver, signal);
  }

  async #created(
    open: OpenAsk,
    write: AskWrite,
    created: Promise<AskCreateResult>,
    deliver: boolean,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    try {
      const result = await created;
      // A closed service let the ask go: it stays in the store, as written, for other services.
      if (this.#commits.closed) return;
      if (result.created) {
        open.stored = undefined;
        this.#settlement.settle({ how: 'created', open, write });
      } else if ('retired' in result) {
        throw retiredIdError(open);
      } else {
        const stored = checkStoredAsk(result.existing, 'the stored ask');
        checkStoredKey(open, stored);
        open.stored = undefined;
        this.#settlement.settle({ how: 'heard', open, row: stored });
        if (open.handedOut) return;
        // A pending ask whose owner went away is this service's to deliver; else it waits.
        const live = deliversIn(stored.state) ? await this.#claim(open, stored, false) : null;
        deliver = live === undefined;
        if (this.#commits.closed || open.handedOut) return;
        if (live) this.#watchOwner(open, live.until);
      }
      const held = this.#settlement.hold(open, signal);
      if (held !== undefined) await held;
      if (deliver && !open.handedOut) this.#delivery.start(open);
    } catch (error) {
      this.#replica.remove(open);
      open.stored = Promise.reject(error);
      open.stored.catch(ignore);
      open.fail(error);
    } finally {
      open.ready = undefined;
    }
  }

  /**
   * This service waits on `open` while another service's lease runs to `until`. Then, if the
   * ask still waits and that lease was not renewed (its process died), this service takes the
   * ask over and delivers it: a process restarted within the lease of one that died is asked
   * once the lease runs out, not at the deadline. A renewed lease is watched again.
   */
  #watchOwner(open: OpenAsk, until: number): void {
    const timer = this.#clock.setTimeout(
      () => {
        this.#watched.delete(open);
        if (this.#commits.closed || open.handedOut) return;
        // Events wait for the take-over, as for any write of the ask's own.
        const taking = (open.ready ?? Promise.resolve()).then(() => this.#takeOverFreed(open));
        const ready: Promise<void> = taking.then(ignore, (error: unknown) => {
          this.#report(error, open);
        });
        open.ready = ready;
        void ready.then(() => {
          if (open.ready === ready) open.ready = undefined;
        });
      },
      Math.max(until - this.#clock.now(), 0),
    );
    // It alone never keeps a process alive, nor outlives the ask here.
    (timer as { unref?: () => void }).unref?.();
    this.#watched.set(open, timer);
    const unwatch = () => {
      if (this.#watched.get(open) !== timer) return;
      this.#watched.delete(open);
      this.#clock.clearTimeout(timer);
    };
    void open.outcome.then(unwatch, unwatch);
  }

  async #takeOverFreed(open: OpenAsk): Promise<void> {
    if (
      this.#commits.closed ||
      open.handedOut ||
      open.owner ||
      this.#replica.get(open.id) !== open
    ) {
      return;
    }
    const row = await this.#store.get(open.id);
    // A purged ask is the replica's to give up (on the news of it).
    if (row === undefined || this.#commits.closed) return;
    const checked = checkStoredAsk(row, 'the stored ask');
    this.#settlement.settle({ how: 'heard', open, row: checked });
    if (open.handedOut || open.owner || !deliversIn(checked.state)) return;
    const live = await this.#claim(open, checked, false);
    if (this.#commits.closed || open.handedOut) return;
    if (live !== undefined) this.#watchOwner(open, live.until);
    else this.#delivery.start(open);
  }

  /**
   * `restore`: this service becomes the ask's owner with a write of its own, and delivers it
   * (or hands out its deferral). `row` is the stored ask `open` was read from; `held` is true
   * when this service already holds `open` (it waited on the ask). Rejects, saying why, when
   * the ask's owner is live.
   */
  takeOver(open: OpenAsk, row: StoredAsk, held: boolean): Promise<void> {
    const taking = this.#takeOver(open, row, held);
    // Events queued behind the take-over go on whether or not it happened.
    open.ready = taking.then(ignore, ignore).finally(() => {
      open.ready = undefined;
    });
    return taking;
  }

  async #takeOver(open: OpenAsk, row: StoredAsk, held: boolean): Promise<void> {
    const live = await this.#claim(open, row, !held);
    if (live !== undefined) throw ownerIsLive(open.id, live);
    if (open.handedOut) return;
    this.#replica.add(open);
    if (!held) {
      const hold = this.#settlement.hold(open, undefined);
      if (hold !== undefined) await hold;
      if (open.handedOut) return;
    }
    if (deliversIn(open.state.value)) this.#delivery.start(open);
    else this.#settlement.handOut(open);
  }

  /**
   * Takes the ask over when nobody delivers it: it is not delivered at all (deferred), it has
   * no owner, its owner's lease has run out, or its owner is this service (which does not
   * hold it). One compare-and-set write (`restore`, audited); a lost race settles the row that
   * won and decides again. Resolves `undefined` once this service owns the ask (or it has its
   * outcome), else the live owner. `first`: the `restore` is the first event of the ask here.
   */
  async #claim(open: OpenAsk, row: StoredAsk, first: boolean): Promise<LiveOwner | undefined> {
    for (let attempt = 1; ; attempt++) {
      const owner = row.owner;
      if (deliversIn(row.state) && owner !== undefined && owner !== this.#serviceId) {
        const until = await this.#lease.liveUntil(owner);
        if (until !== undefined) return { owner, until };
      }
      const result = await this.#commits.restore(open);
      if (result.type === 'applied') {
        this.#settlement.settle({ how: 'claimed', open, write: result.write, first });
        return undefined;
      }
      if (result.type === 'purged') {
        // Purged once it settled elsewhere: the caller is told so, and the provider stops.
        this.#settlement.purged(open);
        throw purgedError(open.id);
      }
      row = result.current;
      this.#settlement.settle({ how: 'heard', open, row });
      if (open.handedOut) return undefined;
      if (attempt >= MAX_WRITE_ATTEMPTS) throw this.#commits.gaveUp(open, attempt);
    }
  }

  /** Stops watching other services' leases: a closed service takes no ask over. */
  close(): void {
    for (const timer of this.#watched.values()) this.#clock.clearTimeout(timer);
    this.#watched.clear();
  }
}

/** Who delivers an ask while its lease runs. */
interface LiveOwner {
  owner: string;
  until: number;
}

/** `restore` of an ask another live service delivers: refused, with when it may be tried again. */
function ownerIsLive(askId: string, { owner, until }: LiveOwner): UserInteractionError {
  return new UserInteractionError(
    'INVALID_REQUEST',
    `Ask ${askId} is delivered by service ${owner}, whose lease runs until ${new Date(until).toISOString()}; restore takes over an ask only once its owner's lease has run out (that service closed or died). Close that service, or restore after then.`,
    { askId, owner, leaseUntil: until },
  );
}

function ignore(): void {}
