/**
 * The audit trail as a service sees it: events that change no state (late answers, refusals,
 * failed callbacks) appended to the store, every event sent to `events$`, and each ask's own
 * stream (the first event rebuilt on demand, later ones kept for late subscribers until the
 * outcome is handed out). The only writer of an open ask's stream fields.
 */

import { type Observable, Subject, type Subscriber } from 'rxjs';
import type { AnsweredBy } from '../contracts/outcome.js';
import type { AskLog } from '../stores/ask-store.js';
import type { PersistedAskState } from './ask-logic.js';
import type { AskObserver } from './ask-observer.js';
import { firstEvent, noteEvent } from './ask-write.js';
import type { AskAttemptSource, AskAuditEvent } from './audit.js';
import type { Clock } from './clock.js';
import type { OpenAsk } from './open-ask.js';
import { deepFreeze } from './outcome-copy.js';
import type { WriteLedger } from './write-ledger.js';

export class AuditTrail {
  readonly events$: Observable<AskAuditEvent>;
  readonly #events = new Subject<AskAuditEvent>();
  readonly #store: AskLog;
  readonly #ledger: WriteLedger;
  readonly #clock: Clock;
  readonly #observer: AskObserver | undefined;

  constructor(store: AskLog, clock: Clock, observer: AskObserver | undefined, ledger: WriteLedger) {
    this.#ledger = ledger;
    this.#store = store;
    this.#clock = clock;
    this.#observer = observer;
    this.events$ = this.#events.asObservable();
  }

  /**
   * Sends an audit event this service wrote to its observer and `events$`, and a later one
   * (not the first) to the ask's stream. `snapshot` is the ask as the event left it.
   */
  publish(
    open: OpenAsk | undefined,
    event: AskAuditEvent,
    first: boolean,
    snapshot: PersistedAskState | undefined = open?.state,
  ): void {
    if (this.#observer !== undefined && snapshot !== undefined) {
      this.#observer.written(event, snapshot);
    }
    if (open !== undefined && !first) {
      if (!open.handedOut) {
        // A literal, not `[]` and a push: an ask's trail mostly holds one event.
        if (open.trail === undefined) open.trail = [event];
        else open.trail.push(event);
      }
      if (open.listeners !== undefined) {
        for (const listener of open.listeners) listener.next(event);
      }
    }
    // A throwing subscriber is reported by RxJS asynchronously; it never breaks the ask.
    this.#events.next(event);
  }

  /**
   * An attempt on an ask whose outcome is fixed: audited, changes nothing. `by`: who tried,
   * when the caller named them (a stale click on a chat card, a replayed push action).
   */
  attempt(
    open: OpenAsk,
    source: AskAttemptSource,
    result?: unknown,
    by?: AnsweredBy,
  ): Promise<void> {
    const status = statusOf(result);
    const data: { source: AskAttemptSource; status?: string; by?: AnsweredBy } = { source };
    if (typeof status === 'string') data.status = status;
    if (by !== undefined) data.by = by;
    return this.#append(
      open,
      noteEvent(open.id, 'late-answer', open.state.value, this.#clock.now(), data),
    );
  }

  /** `answer` / `resume` refused for answers that failed their check; the ask stays open. */
  refused(open: OpenAsk, source: 'answer' | 'resume', message: string): Promise<void> {
    return this.#append(
      open,
      noteEvent(open.id, 'answer.refused', open.state.value, this.#clock.now(), {
        source,
        message,
      }),
    );
  }

  /** A provider's answer to a quorum ask that named nobody: not counted; the ask stays open. */
  unidentifiedResponse(open: OpenAsk): Promise<void> {
    return this.#append(
      open,
      noteEvent(open.id, 'response.refused', open.state.value, this.#clock.now(), {
        reason: 'unidentified',
      }),
    );
  }

  /** A host callback around the ask (the tool's `onUpdate`) threw; the ask went on. */
  callbackFailed(open: OpenAsk, callback: string, message: string): Promise<void> {
    return this.#append(
      open,
      noteEvent(open.id, 'callback.failed', open.state.value, this.#clock.now(), {
        callback,
        message,
      }),
    );
  }

  async #append(open: OpenAsk, event: AskAuditEvent): Promise<void> {
    this.#ledger.begin();
    try {
      await this.#store.append(event);
    } finally {
      this.#ledger.end();
    }
    this.publish(open, event, false);
  }

  /** The ask's first event is a `restore` from now on (the ask was taken over here). */
  restored(open: OpenAsk): void {
    open.origin = 'restore';
  }

  /** The ask's own stream for one subscriber: its first event, the ones kept, then live. */
  subscribe(open: OpenAsk, subscriber: Subscriber<AskAuditEvent>): (() => void) | undefined {
    subscriber.next(deepFreeze(firstEvent(open, open.origin, 1)));
    for (const event of open.trail ?? []) subscriber.next(event);
    if (open.handedOut) {
      subscriber.complete();
      return undefined;
    }
    open.listeners ??= new Set();
    open.listeners.add(subscriber);
    return () => open.listeners?.delete(subscriber);
  }

  /** Ends the ask's own stream (its outcome is handed out, or the service closed). */
  complete(open: OpenAsk): void {
    if (open.listeners === undefined) return;
    for (const listener of open.listeners) listener.complete();
    open.listeners = undefined;
  }

  close(): void {
    this.#events.complete();
  }
}

/** The status or type a late provider result names, for the audit; never throws. */
function statusOf(result: unknown): unknown {
  try {
    return typeof result === 'object' && result !== null
      ? ((result as { status?: unknown; type?: unknown }).status ??
          (result as { type?: unknown }).type)
      : undefined;
  } catch {
    return undefined;
  }
}
