/**
 * Settlement: how this service moves an ask on, and what a write the store now holds implies
 * here. `commit` writes an event through the compare-and-set writes (ask-commit.ts), which
 * return what they applied; one settle step (`settle`) then runs its effects, for writes made
 * here, rows heard from the store's news and the sweeper's writes alike: the replica caches the
 * row, the trail and observer hear of it, delivery stops when the ask no longer waits on this
 * service's provider, and the outcome is handed out once there is one. While the ask is held
 * here it stays wired to its deadline and the caller's abort signal. Effects run only after
 * the write that caused them succeeded.
 */
import type { AskMachineEvent } from '../../machines/ask.machine.js';
import type { AskOutcome } from '../contracts/outcome.js';
import { UserInteractionError } from '../rules/errors.js';
import type {
  AskLog,
  AskStoreChange,
  AskWrite,
  OutboxEntry,
  StoredAsk,
} from '../stores/ask-store.js';
import { type AskCommits, MAX_WRITE_ATTEMPTS } from './ask-commit.js';
import { abortEvent } from './ask-events.js';
import { restoreAskSnapshot } from './ask-logic.js';
import type { AskObserver } from './ask-observer.js';
import type { AskReplica } from './ask-replica.js';
import { deliversIn, type PersistedAskState } from './ask-table.js';
import { type AskWriteOf, basisOf } from './ask-write.js';
import type { AuditTrail } from './audit-trail.js';
import type { Clock } from './clock.js';
import { DeadlineScheduler } from './deadline-scheduler.js';
import { stopDelivery } from './delivery.js';
import type { AskInspection } from './inspection.js';
import type { OpenAsk } from './open-ask.js';
import { freezeOutcome } from './outcome-copy.js';
import { isStoreFailure, pause, storeRetryDelayMs } from './store-retry.js';
import { checkStoredAsk } from './stored-ask-check.js';

/** What the caller of an ask purged before this service heard how it ended is told. */
export function purgedError(askId: string): UserInteractionError {
  return new UserInteractionError(
    'UNKNOWN_INTERACTION',
    `Ask ${askId} was deleted from the store (purged) before this service heard how it ended; its outcome can no longer be read. Keep final asks longer than services take to hear of a settle (retention.finalAfterMs, purge's finalBefore).`,
    { askId },
  );
}

/** A write the store now holds, and how this service came to know it. */
export type Applied =
  /** The ask's first write, here (`start`). */
  | { how: 'created'; open: OpenAsk; write: AskWrite }
  /** This service took the ask over (`restore`); `first`: the ask's first event here. */
  | { how: 'claimed'; open: OpenAsk; write: AskWrite; first: boolean }
  /** An event this service wrote. */
  | { how: 'committed'; open: OpenAsk; write: AskWriteOf; event: AskMachineEvent }
  /**
   * A row another service wrote: heard from the store's news, read after a lost race, or read
   * by a command. Older than the one cached, it is nothing new.
   */
  | { how: 'heard'; open: OpenAsk; row: StoredAsk }
  /** A timeout this service's sweeper wrote, for whichever ask is held here. */
  | { how: 'swept'; write: AskWrite };

export class Settlement {
  readonly #clock: Clock;
  readonly #store: AskLog;
  readonly #replica: AskReplica;
  readonly #trail: AuditTrail;
  readonly #inspection: AskInspection | undefined;
  readonly #scheduler: DeadlineScheduler<OpenAsk>;
  readonly #commits: AskCommits;
  readonly #observer: AskObserver | undefined;
  readonly #report: (error: unknown, open?: OpenAsk) => void;
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
    store: AskLog,
    replica: AskReplica,
    trail: AuditTrail,
    inspection: AskInspection | undefined,
    commits: AskCommits,
    observer: AskObserver | undefined,
    report: (error: unknown, open?: OpenAsk) => void,
  ) {
    this.#observer = observer;
    this.#clock = clock;
    this.#store = store;
    this.#replica = replica;
    this.#trail = trail;
    this.#inspection = inspection;
    this.#commits = commits;
    this.#report = report;
    this.#scheduler = new DeadlineScheduler<OpenAsk>(clock, (open, now) => {
      this.#deadlineWrites++;
      this.commit(open, { type: 'deadline', at: now }).then(
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
   * Applies `event` to the ask once the store has it (after a first write or a take-over in
   * flight), with `outbox` in its write; true if the machine took it.
   */
  commit(open: OpenAsk, event: AskMachineEvent, outbox?: readonly OutboxEntry[]): Promise<boolean> {
    return open.ready === undefined
      ? this.#commitNow(open, event, outbox)
      : open.ready.then(() => this.#commitNow(open, event, outbox));
  }

  /**
   * `commit` inside the ask's write queue. A lost race takes the row that won, then tries the
   * event again on it, a bounded number of times.
   */
  async #commitNow(
    open: OpenAsk,
    event: AskMachineEvent,
    outbox?: readonly OutboxEntry[],
  ): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      const result = await this.#commits.write(open, event, outbox);
      if (result === undefined) return false;
      switch (result.type) {
        case 'applied':
          this.settle({ how: 'committed', open, write: result.write, event });
          return true;
        case 'held':
          // One chat thread, one open question: a second deferral to it is the provider's bug.
          outbox = undefined;
          event = {
            type: 'provider.failed',
            reason: 'provider-error',
            message: `The provider deferred to interaction id "${(event as { interactionId?: string }).interactionId}", which ask ${result.holder} already waits on; an interaction id names one open ask.`,
          };
          break;
        case 'lost':
          // Another service wrote first: take what it wrote, then see if the event still applies.
          this.settle({ how: 'heard', open, row: result.current });
          break;
        case 'purged':
          // Purged once it settled elsewhere: the caller is told so, and the provider stops.
          this.purged(open);
          throw purgedError(open.id);
      }
      if (attempt >= MAX_WRITE_ATTEMPTS) throw this.#commits.gaveUp(open, attempt);
    }
  }

  /**
   * The settle step: does what a write the store now holds implies here, wherever it came from
   * (see `Applied`). The replica caches its row, the trail and observer hear of it, the
   * inspector sees it, delivery stops once the ask no longer waits on this service's provider,
   * and its outcome, once it has one, is handed out.
   */
  settle(applied: Applied): void {
    switch (applied.how) {
      case 'created':
        this.#replica.cache(applied.open, applied.write.ask);
        this.#trail.publish(applied.open, applied.write.event, true);
        return;
      case 'claimed': {
        const { open, write } = applied;
        this.#wrote(open, write.ask.version);
        this.#replica.cache(open, write.ask);
        this.#trail.publish(open, write.event, applied.first);
        return;
      }
      case 'committed': {
        const { open, write, event } = applied;
        this.#wrote(open, write.ask.version);
        this.#replica.cache(open, write.ask);
        this.#trail.publish(open, write.event, false);
        this.#effects(open, write.next, event);
        return;
      }
      case 'heard': {
        const { open, row } = applied;
        if (row.version <= open.version) return;
        this.#replica.cache(open, row);
        this.#effects(open, basisOf(row).snapshot, undefined);
        this.#observer?.learned(open.state);
        // Another service settled the ask this one delivers: the row keeps this service's name
        // until it says it heard (see ask-write.ts, `ownerNamed`), so no purge took the outcome
        // away before its caller here had it.
        if (row.final && open.owner) this.#commits.acknowledgeSettled(open);
        return;
      }
      case 'swept': {
        const { ask, event } = applied.write;
        // The store leaves this service's own writes out of its news: an ask held here reads it.
        const open = this.#replica.get(ask.askId);
        if (open !== undefined) this.#refresh(open, ask.version);
        this.#trail.publish(undefined, event, false, ask.snapshot as PersistedAskState);
        return;
      }
    }
  }

  /** What the ask's state `next` (reached by `event`, when written here) implies here. */
  #effects(open: OpenAsk, next: PersistedAskState, event: AskMachineEvent | undefined): void {
    const inspection = this.#inspection;
    if (open.actorRef !== undefined && inspection !== undefined) {
      // XState's own snapshot, made only for an inspector: the inspector sees XState's view.
      const snapshot = restoreAskSnapshot(next);
      if (event !== undefined) inspection.transition(open.actorRef, event, snapshot);
      else inspection.changed(open.actorRef, snapshot);
    }
    if (!(open.owner && deliversIn(next.value))) stopDelivery(open, event, undefined);
    if (next.context.outcome !== undefined) this.handOut(open);
  }

  /** News from the store: an ask was written elsewhere, or changes may have been missed. */
  onChange(change: AskStoreChange): void {
    if (change.type === 'missed') {
      for (const open of this.#replica.values()) this.#refresh(open, Number.POSITIVE_INFINITY);
      return;
    }
    const open = this.#replica.get(change.askId);
    // A store may tell this service of its own write (one that ignores `writer`), even before
    // the write has returned here.
    if (open !== undefined && change.version > open.version && change.version !== open.writing) {
      this.#refresh(open, change.version);
    }
  }

  /**
   * This service wrote `version` of the ask through `open`. The store leaves a writer's own
   * writes out of its news, so another copy of the ask held here (opened while `open`, a
   * one-off read for an answer, was writing) would never hear of it: it reads the ask again.
   */
  #wrote(open: OpenAsk, version: number): void {
    const held = this.#replica.get(open.id);
    if (held !== undefined && held !== open && held.version < version) this.#refresh(held, version);
  }

  /**
   * Reads the ask again once the store has a version newer than `version - 1`, and settles
   * what it reads. A read the store fails is reported and tried again while the ask is held
   * here (see store-retry.ts); a row that fails its check fails the ask; an ask the store no
   * longer has (purged once it settled elsewhere) is given up here, saying so (`purged`).
   */
  #refresh(open: OpenAsk, version: number): void {
    const stale = () =>
      version <= open.version || open.handedOut || this.#replica.get(open.id) !== open;
    const run = async () => {
      for (let attempt = 0; ; attempt++) {
        if (open.ready !== undefined) await open.ready;
        if (stale()) return;
        let row: StoredAsk | undefined;
        try {
          row = await this.#store.get(open.id);
        } catch (error) {
          this.#report(error, open);
          await pause(storeRetryDelayMs(attempt));
          continue;
        }
        if (stale()) return;
        if (row === undefined) this.purged(open);
        else this.settle({ how: 'heard', open, row: checkStoredAsk(row, 'the stored ask') });
        return;
      }
    };
    run().catch((error) => {
      this.#report(error, open);
      open.fail(error);
    });
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
      if (deadlineAt <= now) return this.#commitNow(open, { type: 'deadline', at: now });
      this.#scheduler.add(open, deadlineAt);
    }
    if (signal === undefined) return undefined;
    if (signal.aborted) {
      open.localCause = signal.reason;
      return this.#commitNow(open, abortEvent(signal.reason));
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
    return this.commit(open, event);
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
    stopDelivery(open, undefined, error);
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
