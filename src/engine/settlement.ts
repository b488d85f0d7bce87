/**
 * Settlement effects: what a snapshot the store now holds implies in this service. Stop
 * delivering when the ask no longer waits on this service's provider, hand the outcome out once
 * there is one, and, while the ask is held here, keep it wired to its deadline and the caller's
 * abort signal. Effects run only after the write that caused them succeeded.
 */
import type { AskMachineEvent } from '../../machines/ask.machine.js';
import type { AskOutcome } from '../contracts/outcome.js';
import { UserInteractionError } from '../rules/errors.js';
import type { StoredAsk } from '../stores/ask-store.js';
import { abortEvent } from './ask-events.js';
import { restoreAskSnapshot } from './ask-logic.js';
import type { AskObserver } from './ask-observer.js';
import type { AskReplica } from './ask-replica.js';
import { deliversIn, type PersistedAskState } from './ask-table.js';
import { basisOf } from './ask-write.js';
import type { AskAuditEvent } from './audit.js';
import type { AuditTrail } from './audit-trail.js';
import type { Clock } from './clock.js';
import { DeadlineScheduler } from './deadline-scheduler.js';
import type { Delivery } from './delivery.js';
import type { AskInspection } from './inspection.js';
import type { OpenAsk } from './open-ask.js';
import { freezeOutcome } from './outcome-copy.js';
import { isStoreFailure, storeRetryDelayMs } from './store-retry.js';

/** What the caller of an ask purged before this service heard how it ended is told. */
export function purgedError(askId: string): UserInteractionError {
  return new UserInteractionError(
    'UNKNOWN_INTERACTION',
    `Ask ${askId} was deleted from the store (purged) before this service heard how it ended; its outcome can no longer be read. Keep final asks longer than services take to hear of a settle (retention.finalAfterMs, purge's finalBefore).`,
    { askId },
  );
}

/**
 * How settlement moves an ask on: `commit` queues behind a write in flight, `commitNow` does
 * not; `acknowledgeSettled` tells the store this service, the ask's owner, heard it settle.
 */
export interface Committer {
  commit(open: OpenAsk, event: AskMachineEvent): Promise<boolean>;
  commitNow(open: OpenAsk, event: AskMachineEvent): Promise<boolean>;
  acknowledgeSettled(open: OpenAsk): void;
}

export class Settlement {
  readonly #clock: Clock;
  readonly #replica: AskReplica;
  readonly #trail: AuditTrail;
  readonly #delivery: Delivery;
  readonly #inspection: AskInspection | undefined;
  readonly #scheduler: DeadlineScheduler<OpenAsk>;
  readonly #committer: () => Committer;
  readonly #observer: AskObserver | undefined;
  readonly #report: (error: unknown) => void;
  /** Asks whose deadline write the store failed, and how many times in a row. */
  readonly #deadlineRetries = new Map<OpenAsk, number>();
  #stopped = false;
  /** Deadline writes this service's timers started that have not settled yet. */
  #deadlineWrites = 0;
  readonly #deadlineWritten = (): void => {
    this.#deadlineWrites--;
  };

  constructor(
    clock: Clock,
    replica: AskReplica,
    trail: AuditTrail,
    delivery: Delivery,
    inspection: AskInspection | undefined,
    committer: () => Committer,
    observer: AskObserver | undefined,
    report: (error: unknown) => void,
  ) {
    this.#observer = observer;
    this.#clock = clock;
    this.#replica = replica;
    this.#trail = trail;
    this.#delivery = delivery;
    this.#inspection = inspection;
    this.#committer = committer;
    this.#report = report;
    this.#scheduler = new DeadlineScheduler<OpenAsk>(clock, (open, now) => {
      this.#deadlineWrites++;
      this.#committer()
        .commit(open, { type: 'deadline', at: now })
        .then(
          () => {
            this.#deadlineWritten();
            if (this.#deadlineRetries.size > 0) this.#deadlineRetries.delete(open);
          },
          (error) => {
            this.#deadlineWritten();
            if (!this.#retryDeadline(open, error)) open.fail(error);
          },
        );
    });
  }

  /**
   * True while this service's own deadline timers have work at `now`: a deadline due and not
   * fired yet, or a deadline write in flight. The store sweeper waits for them, so it never
   * times out an ask this service is timing out itself.
   */
  deadlinesDue(now: number): boolean {
    return this.#deadlineWrites > 0 || this.#scheduler.nextDeadline <= now;
  }

  /**
   * Takes a row the store now holds (written here: with its event and audit) and does what it
   * implies here.
   */
  adopt(
    open: OpenAsk,
    next: PersistedAskState,
    row: StoredAsk,
    event: AskMachineEvent | undefined,
    audit: AskAuditEvent | undefined,
  ): void {
    this.#replica.cache(open, row);
    if (audit !== undefined) this.#trail.publish(open, audit, false);
    const inspection = this.#inspection;
    if (open.actorRef !== undefined && inspection !== undefined) {
      // XState's own snapshot, made only for an inspector: the inspector sees XState's view.
      const snapshot = restoreAskSnapshot(next);
      if (event !== undefined) inspection.transition(open.actorRef, event, snapshot);
      else inspection.changed(open.actorRef, snapshot);
    }
    if (!(open.owner && deliversIn(next.value))) this.#delivery.stop(open, event, undefined);
    if (next.context.outcome !== undefined) this.handOut(open);
  }

  /** A row another service wrote (or the store handed back after a lost race). */
  adoptRow(open: OpenAsk, row: StoredAsk): void {
    if (row.version <= open.version) return;
    this.adopt(open, basisOf(row).snapshot, row, undefined, undefined);
    this.#observer?.learned(open.state);
    // Another service settled the ask this one delivers: the row keeps this service's name
    // until it says it heard (see ask-write.ts, `ownerNamed`), so no purge took the outcome
    // away before its caller here had it.
    if (row.final && open.owner) this.#committer().acknowledgeSettled(open);
  }

  handOut(open: OpenAsk): void {
    if (open.handedOut) return;
    const outcome = open.state.context.outcome;
    if (outcome === undefined) return;
    open.handedOut = true;
    this.#scheduler.remove(open);
    if (this.#deadlineRetries.size > 0) this.#deadlineRetries.delete(open);
    this.#release(open);
    this.#replica.remove(open);
    this.#trail.complete(open);
    open.resolve(freezeOutcome(outcome as AskOutcome, open.localCause));
  }

  /**
   * The ask is held here from now on: inspected, and wired to its deadline and the caller's
   * abort signal. Runs inside the ask's write queue: a deadline already passed (a restored ask)
   * or a signal already aborted ends the ask here, before any provider is asked. Returns that
   * write to wait for, or `undefined` when there is none (the usual case: no promise to await).
   */
  hold(open: OpenAsk, signal: AbortSignal | undefined): Promise<boolean> | undefined {
    if (this.#inspection !== undefined && open.actorRef === undefined) {
      open.actorRef = this.#inspection.actorOf(open.id, () => restoreAskSnapshot(open.state));
    }
    const { deadlineAt } = open.state.context;
    if (deadlineAt !== undefined) {
      const now = this.#clock.now();
      if (deadlineAt <= now)
        return this.#committer().commitNow(open, { type: 'deadline', at: now });
      this.#scheduler.add(open, deadlineAt);
    }
    if (signal === undefined) return undefined;
    if (signal.aborted) {
      open.localCause = signal.reason;
      return this.#committer().commitNow(open, abortEvent(signal.reason));
    }
    const abort = () => {
      this.abort(open, signal.reason).catch((error) => open.fail(error));
    };
    open.signal = signal;
    open.onAbort = abort;
    signal.addEventListener('abort', abort, { once: true });
    return undefined;
  }

  /**
   * Ends the ask as `aborted`; the caller here gets `cause` itself, the store a JSON copy.
   * `event` is `abortEvent(cause)`, given when many asks end with one cause (a drain): they
   * then share its copy of the cause instead of keeping one each.
   */
  abort(open: OpenAsk, cause: unknown, event = abortEvent(cause)): Promise<boolean> {
    open.localCause = cause;
    return this.#committer().commit(open, event);
  }

  /**
   * The ask held here is no longer in the store: it settled elsewhere and was purged before this
   * service heard how. Its outcome cannot be read any more: the caller is told so, the provider
   * stops asking, and the ask is forgotten here.
   */
  purged(open: OpenAsk): void {
    if (open.handedOut) return;
    open.handedOut = true;
    this.#scheduler.remove(open);
    if (this.#deadlineRetries.size > 0) this.#deadlineRetries.delete(open);
    this.#replica.remove(open);
    this.letGo(open, purgedError(open.id));
  }

  /** The service closed: the ask is let go here (it stays in the store for others). */
  letGo(open: OpenAsk, error: Error): void {
    this.#delivery.stop(open, undefined, error);
    this.#release(open);
    this.#trail.complete(open);
    open.fail(error);
  }

  stop(): void {
    this.#stopped = true;
    this.#scheduler.stop();
    this.#deadlineRetries.clear();
  }

  /**
   * The store failed the deadline write of an ask held here: reported, and tried again later
   * (see store-retry.ts). False when it is not to be tried again: the engine refused it, or the
   * ask is no longer held here.
   */
  #retryDeadline(open: OpenAsk, error: unknown): boolean {
    if (
      !isStoreFailure(error) ||
      this.#stopped ||
      open.handedOut ||
      this.#replica.get(open.id) !== open
    ) {
      this.#deadlineRetries.delete(open);
      return false;
    }
    const attempt = this.#deadlineRetries.get(open) ?? 0;
    this.#deadlineRetries.set(open, attempt + 1);
    this.#report(error);
    this.#scheduler.add(open, this.#clock.now() + storeRetryDelayMs(attempt));
    return true;
  }

  #release(open: OpenAsk): void {
    if (open.signal !== undefined && open.onAbort !== undefined) {
      open.signal.removeEventListener('abort', open.onAbort);
    }
    open.signal = undefined;
    open.onAbort = undefined;
  }
}
