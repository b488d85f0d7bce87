/**
 * The compare-and-set writes against the store: the first write of an ask, the write of an
 * event, the `restore` that takes an ask over. Each is one attempt, and says what it came to:
 * the write the store applied, or the newer row it lost to (a stored version that went back, a
 * restored backup or a failover that lost writes, is reported and never written over). What a
 * write implies here is settlement's (settlement.ts); this file calls nothing back. The only
 * writer of an open ask's `writing`.
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
import { type AskWriteOf, nextAskWrite, restoreWrite, startWrite } from './ask-write.js';
import type { Clock } from './clock.js';
import type { OpenAsk } from './open-ask.js';
import type { OwnerLease } from './owner-lease.js';
import { storeFailed } from './store-retry.js';
import { checkStoredAsk } from './stored-ask-check.js';
import type { WriteLedger } from './write-ledger.js';

/**
 * Writes tried per event before giving up. Each lost race means another service moved the ask
 * on, and an ask has only a few transitions, so a loop that gets here meets a broken store.
 */
export const MAX_WRITE_ATTEMPTS = 64;

/** What one compare-and-set write of an ask came to. */
export type WriteResult<W extends AskWrite = AskWrite> =
  /** The store holds `write` now. */
  | { type: 'applied'; write: W }
  /** Another service wrote first: the newer row the store holds (checked). */
  | { type: 'lost'; current: StoredAsk }
  /** The ask is no longer in the store: it settled elsewhere and was purged. */
  | { type: 'purged' }
  /** The event's interaction id names another open ask, `holder`: nothing was written. */
  | { type: 'held'; holder: string };

/** The first write of a new ask, sent: the write, and the store's answer once it lands. */
export interface FirstWrite {
  write: AskWrite;
  created: Promise<AskCreateResult>;
}

export class AskCommits {
  readonly #store: AskLog;
  readonly #clock: Clock;
  readonly #serviceId: string;
  readonly #lease: OwnerLease;
  readonly #ledger: WriteLedger;
  readonly #report: (error: unknown, open: OpenAsk | undefined) => void;
  #closed = false;

  constructor(
    store: AskLog,
    clock: Clock,
    serviceId: string,
    lease: OwnerLease,
    ledger: WriteLedger,
    report: (error: unknown, open: OpenAsk | undefined) => void,
  ) {
    this.#lease = lease;
    this.#ledger = ledger;
    this.#store = store;
    this.#clock = clock;
    this.#serviceId = serviceId;
    this.#report = report;
  }

  /** True once the service closed: it moves no ask on. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Sends the first write of a new ask. The row names this service as its owner only once its lease is in the store. */
  create(open: OpenAsk): FirstWrite {
    const write = startWrite(open, this.#clock.now(), this.#serviceId, this.#serviceId);
    const leased = this.#lease.ready;
    this.#ledger.begin();
    const created =
      leased === undefined
        ? this.#store.create(write)
        : leased.then(() => this.#store.create(write));
    // Counted until it lands, before whoever waits for it hears the answer.
    const end = () => this.#ledger.end();
    created.then(end, end);
    return { write, created };
  }

  /**
   * One write of `event` on the ask as cached here (with `outbox` in it: see `AskWrite.outbox`),
   * or `undefined` when the machine does not take the event. Events that race (here or in other
   * services) need no lock: the loser's write fails its version check and is told what won.
   */
  async write(
    open: OpenAsk,
    event: AskMachineEvent,
    outbox: readonly OutboxEntry[] | undefined,
  ): Promise<WriteResult<AskWriteOf> | undefined> {
    const write = nextAskWrite(open, event, this.#clock.now(), open.storedOwner, this.#serviceId);
    if (write === undefined) return undefined;
    const expected = open.version;
    this.#ledger.begin();
    open.writing = write.ask.version;
    let result: AskUpdateResult;
    try {
      result = await this.#store.update(
        outbox === undefined
          ? write
          : { ask: write.ask, event: write.event, outbox, writer: this.#serviceId },
        expected,
      );
    } catch (error) {
      // A write that failed may still have landed: news of that version is news again.
      open.writing = 0;
      throw storeFailed(error);
    } finally {
      this.#ledger.end();
    }
    // Applied, the version stays this service's own: the store's news of it is old.
    if (result.ok) return { type: 'applied', write };
    open.writing = 0;
    if (result.reason === 'interaction-id') return { type: 'held', holder: result.holder };
    return this.#lost(open, expected, result);
  }

  /** One `restore` write: this service becomes the ask's owner. */
  async restore(open: OpenAsk): Promise<Exclude<WriteResult, { type: 'held' }>> {
    const expected = open.version;
    const write = restoreWrite(open, this.#clock.now(), this.#serviceId);
    this.#ledger.begin();
    let result: AskUpdateResult;
    try {
      result = await this.#store.update(write, expected);
    } finally {
      this.#ledger.end();
    }
    if (result.ok) return { type: 'applied', write };
    if (result.reason !== 'version') {
      throw new Error(`Ask ${open.id} could not be taken over: ${result.reason}.`);
    }
    return this.#lost(open, expected, result);
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
  }

  /** The write loop of `open` gave up after `attempts` lost races: reported, and its error. */
  gaveUp(open: OpenAsk, attempts: number): Error {
    const error = new Error(
      `Ask ${open.id} was not written after ${attempts} attempts: the store refused every compare-and-set.`,
    );
    this.#report(error, open);
    return error;
  }

  /**
   * The newer row a compare-and-set at `expected` lost to. A stored version that is not newer
   * went back (or the store refused the version it holds): reported, and never written over.
   */
  #lost(
    open: OpenAsk,
    expected: number,
    result: AskUpdateResult & { ok: false; reason: 'version' },
  ): { type: 'lost'; current: StoredAsk } | { type: 'purged' } {
    if (result.current === undefined) return { type: 'purged' };
    const current = checkStoredAsk(result.current, 'the stored ask');
    if (current.version > expected) return { type: 'lost', current };
    const error = new UserInteractionError(
      'INVALID_REQUEST',
      `Ask ${open.id} went back in the store from version ${expected} to ${current.version} (a restored backup, or a failover that lost writes); it is not written over. Check the store, then restore the ask or answer it again.`,
      { askId: open.id, version: expected, stored: current.version },
    );
    this.#report(error, open);
    throw error;
  }
}
