/**
 * The compare-and-set loops against the store: create (or attach to the ask a key names),
 * commit an event, take an ask over. A loop that loses a race takes what the store holds and
 * tries again, a bounded number of times; a stored version that went back (a restored backup,
 * a failover that lost writes) is reported and never written over. The only writer of an open
 * ask's write state (`ready`, `writing`, `stored`).
 */
import type { AskMachineEvent } from '../../machines/ask.machine.js';
import { UserInteractionError } from '../rules/errors.js';
import type {
  AskCreateResult,
  AskLog,
  AskUpdateResult,
  AskWrite,
  OutboxEntry,
  StoredAsk,
} from '../stores/ask-store.js';
import { checkStoredKey, retiredIdError } from './ask-intake.js';
import type { AskReplica } from './ask-replica.js';
import { deliversIn } from './ask-table.js';
import { nextAskWrite, restoreWrite, startWrite } from './ask-write.js';
import type { AuditTrail } from './audit-trail.js';
import type { Clock } from './clock.js';
import type { Delivery } from './delivery.js';
import type { OpenAsk } from './open-ask.js';
import type { OwnerLease } from './owner-lease.js';
import { type Committer, purgedError, type Settlement } from './settlement.js';
import { storeFailed } from './store-retry.js';
import { checkStoredAsk } from './stored-ask-check.js';
import type { WriteLedger } from './write-ledger.js';

/**
 * Writes tried per event before giving up. Each lost race means another service moved the ask
 * on, and an ask has only a few transitions, so a loop that gets here meets a broken store.
 */
export const MAX_WRITE_ATTEMPTS = 64;

export class AskCommits implements Committer {
  readonly #store: AskLog;
  readonly #clock: Clock;
  readonly #serviceId: string;
  readonly #replica: AskReplica;
  readonly #settlement: Settlement;
  readonly #trail: AuditTrail;
  readonly #delivery: Delivery;
  readonly #lease: OwnerLease;
  readonly #ledger: WriteLedger;
  /** Asks this service waits on while another service's lease runs: their timers. */
  readonly #watched = new Map<OpenAsk, unknown>();
  readonly #report: (error: unknown, open: OpenAsk | undefined) => void;
  #closed = false;

  constructor(
    store: AskLog,
    clock: Clock,
    serviceId: string,
    replica: AskReplica,
    settlement: Settlement,
    trail: AuditTrail,
    delivery: Delivery,
    lease: OwnerLease,
    ledger: WriteLedger,
    report: (error: unknown, open: OpenAsk | undefined) => void,
  ) {
    this.#lease = lease;
    this.#ledger = ledger;
    this.#store = store;
    this.#clock = clock;
    this.#serviceId = serviceId;
    this.#replica = replica;
    this.#settlement = settlement;
    this.#trail = trail;
    this.#delivery = delivery;
    this.#report = report;
  }

  /**
   * Writes a new ask; events wait for the write. On a key that exists, attaches to that ask, or
   * takes it over when nobody delivers it any more (its owner's lease ran out).
   */
  create(open: OpenAsk, deliver: boolean, signal: AbortSignal | undefined): void {
    const write = startWrite(open, this.#clock.now(), this.#serviceId, this.#serviceId);
    // The row names this service as its owner only once its lease is in the store.
    const leased = this.#lease.ready;
    this.#ledger.begin();
    const created =
      leased === undefined
        ? this.#store.create(write)
        : leased.then(() => this.#store.create(write));
    open.stored = created;
    open.ready = this.#created(open, write, created, deliver, signal);
  }

  async #created(
    open: OpenAsk,
    write: AskWrite,
    created: ReturnType<AskLog['create']>,
    deliver: boolean,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    try {
      let result: AskCreateResult;
      try {
        result = await created;
      } finally {
        this.#ledger.end();
      }
      // A closed service let the ask go: it stays in the store, as written, for other services.
      if (this.#closed) return;
      if (result.created) {
        open.stored = undefined;
        this.#replica.cache(open, write.ask);
        this.#trail.publish(open, write.event, true);
      } else if ('retired' in result) {
        throw retiredIdError(open);
      } else {
        const stored = checkStoredAsk(result.existing, 'the stored ask');
        checkStoredKey(open, stored);
        open.stored = undefined;
        this.#settlement.adoptRow(open, stored);
        if (open.handedOut) return;
        // A pending ask whose owner went away is this service's to deliver; else it waits.
        const live = deliversIn(stored.state) ? await this.#claim(open, stored, false) : null;
        deliver = live === undefined;
        if (this.#closed || open.handedOut) return;
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
   * Applies `event` to the ask once the store has it; true if the machine took it. Events that
   * race (here or in other services) need no lock: the loser's write fails its version check,
   * and it tries again on what the store holds.
   */
  commit(open: OpenAsk, event: AskMachineEvent, outbox?: readonly OutboxEntry[]): Promise<boolean> {
    return open.ready === undefined
      ? this.commitNow(open, event, outbox)
      : open.ready.then(() => this.commitNow(open, event, outbox));
  }

  /** `outbox`: entries written with this event's write (see `AskWrite.outbox`). */
  async commitNow(
    open: OpenAsk,
    event: AskMachineEvent,
    outbox?: readonly OutboxEntry[],
  ): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      const write = nextAskWrite(open, event, this.#clock.now(), open.storedOwner, this.#serviceId);
      if (write === undefined) return false;
      const expected = open.version;
      this.#ledger.begin();
      open.writing = write.ask.version;
      let result: Awaited<ReturnType<AskLog['update']>>;
      try {
        result = await this.#store.update(
          outbox === undefined
            ? write
            : { ask: write.ask, event: write.event, outbox, writer: this.#serviceId },
          expected,
        );
      } catch (error) {
        throw storeFailed(error);
      } finally {
        // A write that failed may still have landed: news of that version is news again.
        open.writing = 0;
        this.#ledger.end();
      }
      if (result.ok) {
        this.#replica.wrote(open, write.ask.version);
        this.#settlement.adopt(open, write.next, write.ask, event, write.event);
        return true;
      }
      if (result.reason === 'interaction-id') {
        // One chat thread, one open question: a second deferral to it is the provider's bug.
        outbox = undefined;
        event = {
          type: 'provider.failed',
          reason: 'provider-error',
          message: `The provider deferred to interaction id "${(event as { interactionId?: string }).interactionId}", which ask ${result.holder} already waits on; an interaction id names one open ask.`,
        };
      } else {
        // Another service wrote first: take what it wrote, then see if the event still applies.
        this.#settlement.adoptRow(open, this.#lost(open, expected, result));
      }
      if (attempt >= MAX_WRITE_ATTEMPTS) throw this.#gaveUp(open, attempt);
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
        if (this.#closed || open.handedOut) return;
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
    if (this.#closed || open.handedOut || open.owner || this.#replica.get(open.id) !== open) {
      return;
    }
    const row = await this.#store.get(open.id);
    // A purged ask is the replica's to give up (on the news of it).
    if (row === undefined || this.#closed) return;
    const checked = checkStoredAsk(row, 'the stored ask');
    this.#settlement.adoptRow(open, checked);
    if (open.handedOut || open.owner || !deliversIn(checked.state)) return;
    const live = await this.#claim(open, checked, false);
    if (this.#closed || open.handedOut) return;
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
   * hold it). One compare-and-set write (`restore`, audited); a lost race reads the row that
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
      const expected = open.version;
      const write = restoreWrite(open, this.#clock.now(), this.#serviceId);
      this.#ledger.begin();
      let result: AskUpdateResult;
      try {
        result = await this.#store.update(write, expected);
      } finally {
        this.#ledger.end();
      }
      if (result.ok) {
        this.#replica.wrote(open, write.ask.version);
        this.#replica.cache(open, write.ask);
        this.#trail.publish(open, write.event, first);
        return undefined;
      }
      if (result.reason !== 'version') {
        throw new Error(`Ask ${open.id} could not be taken over: ${result.reason}.`);
      }
      row = this.#lost(open, expected, result);
      this.#settlement.adoptRow(open, row);
      if (open.handedOut) return undefined;
      if (attempt >= MAX_WRITE_ATTEMPTS) throw this.#gaveUp(open, attempt);
    }
  }

  /**
   * This service, the ask's owner, heard that another service settled it: the row stops naming
   * it, so a purge may delete the ask. A failure is reported; the ask then waits for a purge
   * until this service's lease runs out (it closes or dies).
   */
  acknowledgeSettled(open: OpenAsk): void {
    if (this.#closed || this.#ledger.closed) return;
    this.#ledger.begin();
    this.#store
      .acknowledgeSettled(open.id, this.#serviceId)
      .catch((error: unknown) => this.#report(error, open))
      .finally(() => this.#ledger.end());
  }

  /** Stops writing: a closed service moves no ask on. */
  close(): void {
    this.#closed = true;
    for (const timer of this.#watched.values()) this.#clock.clearTimeout(timer);
    this.#watched.clear();
  }

  /**
   * The newer row a compare-and-set at `expected` lost to. A stored version that is not newer
   * went back (or the store refused the version it holds): reported, and never written over.
   */
  #lost(
    open: OpenAsk,
    expected: number,
    result: AskUpdateResult & { ok: false; reason: 'version' },
  ): StoredAsk {
    if (result.current === undefined) {
      // Purged once it settled elsewhere: the caller is told so, and the provider stops.
      this.#settlement.purged(open);
      throw purgedError(open.id);
    }
    const current = checkStoredAsk(result.current, 'the stored ask');
    if (current.version > expected) return current;
    const error = new UserInteractionError(
      'INVALID_REQUEST',
      `Ask ${open.id} went back in the store from version ${expected} to ${current.version} (a restored backup, or a failover that lost writes); it is not written over. Check the store, then restore the ask or answer it again.`,
      { askId: open.id, version: expected, stored: current.version },
    );
    this.#report(error, open);
    throw error;
  }

  #gaveUp(open: OpenAsk, attempts: number): Error {
    const error = new Error(
      `Ask ${open.id} was not written after ${attempts} attempts: the store refused every compare-and-set.`,
    );
    this.#report(error, open);
    return error;
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
