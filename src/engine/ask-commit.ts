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
  AskStore,
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
import type { Committer, Settlement } from './settlement.js';
import { storeFailed } from './store-retry.js';
import { checkStoredAsk } from './stored-ask-check.js';

/**
 * Writes tried per event before giving up. Each lost race means another service moved the ask
 * on, and an ask has only a few transitions, so a loop that gets here meets a broken store.
 */
export const MAX_WRITE_ATTEMPTS = 64;

export class AskCommits implements Committer {
  readonly #store: AskStore;
  readonly #clock: Clock;
  readonly #serviceId: string;
  readonly #replica: AskReplica;
  readonly #settlement: Settlement;
  readonly #trail: AuditTrail;
  readonly #delivery: Delivery;
  readonly #report: (error: unknown, open: OpenAsk | undefined) => void;
  #closed = false;

  constructor(
    store: AskStore,
    clock: Clock,
    serviceId: string,
    replica: AskReplica,
    settlement: Settlement,
    trail: AuditTrail,
    delivery: Delivery,
    report: (error: unknown, open: OpenAsk | undefined) => void,
  ) {
    this.#store = store;
    this.#clock = clock;
    this.#serviceId = serviceId;
    this.#replica = replica;
    this.#settlement = settlement;
    this.#trail = trail;
    this.#delivery = delivery;
    this.#report = report;
  }

  /** Writes a new ask; events wait for the write. On a key that exists, attaches to that ask. */
  create(open: OpenAsk, deliver: boolean, signal: AbortSignal | undefined): void {
    const write = startWrite(open, this.#clock.now(), this.#serviceId, this.#serviceId);
    const created = this.#store.create(write);
    open.stored = created;
    open.ready = this.#created(open, write, created, deliver, signal);
  }

  async #created(
    open: OpenAsk,
    write: AskWrite,
    created: ReturnType<AskStore['create']>,
    deliver: boolean,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    try {
      const result = await created;
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
        deliver = false;
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
      if (this.#closed) throw closedError();
      const write = nextAskWrite(
        open,
        event,
        this.#clock.now(),
        open.owner ? this.#serviceId : undefined,
        this.#serviceId,
      );
      if (write === undefined) return false;
      const expected = open.version;
      open.writing = write.ask.version;
      let result: Awaited<ReturnType<AskStore['update']>>;
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

  /** `restore`: this service becomes the ask's owner with a write of its own. */
  takeOver(open: OpenAsk): Promise<void> {
    open.ready = this.#takeOver(open);
    return open.ready;
  }

  async #takeOver(open: OpenAsk): Promise<void> {
    try {
      for (let attempt = 1; ; attempt++) {
        const expected = open.version;
        const write = restoreWrite(open, this.#clock.now(), this.#serviceId);
        const result = await this.#store.update(write, expected);
        if (result.ok) {
          this.#replica.wrote(open, write.ask.version);
          this.#replica.cache(open, write.ask);
          this.#trail.publish(open, write.event, true);
          break;
        }
        if (result.reason !== 'version') {
          throw new Error(`Ask ${open.id} could not be taken over: ${result.reason}.`);
        }
        this.#settlement.adoptRow(open, this.#lost(open, expected, result));
        if (open.handedOut) return;
        if (attempt >= MAX_WRITE_ATTEMPTS) throw this.#gaveUp(open, attempt);
      }
      this.#replica.add(open);
      const held = this.#settlement.hold(open, undefined);
      if (held !== undefined) await held;
      if (open.handedOut) return;
      if (deliversIn(open.state.value)) this.#delivery.start(open);
      else this.#settlement.handOut(open);
    } finally {
      open.ready = undefined;
    }
  }

  /** Stops writing: a closed service moves no ask on. */
  close(): void {
    this.#closed = true;
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
      throw new Error(`Ask ${open.id} is no longer in the store; it cannot change.`);
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

function closedError(): Error {
  return new Error('The interaction service is closed; it writes no more changes to its asks.');
}

function ignore(): void {}
