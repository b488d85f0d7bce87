/**
 * What a caller holds of one ask (its handle) and the ask's own audit stream: the first event
 * rebuilt on demand, later events kept for late subscribers until the outcome is handed out.
 */
import { Observable } from 'rxjs';
import type { AskUserQuestionAnswer } from '../contracts/answer.js';
import type { AskOutcome } from '../contracts/outcome.js';
import type { AskAuditEvent } from './audit.js';
import type { OpenAsk } from './open-ask.js';
import { freezeOutcome } from './outcome-copy.js';
import type { AskHandle, AskSnapshot } from './service-contract.js';

/** The handle of `open`; `cancel` is the service's, the rest reads the ask. */
export function createAskHandle(
  open: OpenAsk,
  cancel: (reason: 'user' | 'unavailable', message: string | undefined) => void,
): AskHandle {
  return {
    id: open.id,
    outcome: open.outcome,
    get events$() {
      return new Observable<AskAuditEvent>((subscriber) => {
        subscriber.next(firstEventOf(open, 1));
        for (const event of open.trail ?? []) subscriber.next(event);
        if (open.handedOut) {
          subscriber.complete();
          return undefined;
        }
        open.listeners ??= new Set();
        open.listeners.add(subscriber);
        return () => open.listeners?.delete(subscriber);
      });
    },
    getSnapshot: () => snapshotOf(open),
    cancel: (reason = 'user', message) => cancel(reason, message),
  };
}

/**
 * Sends a later audit event (not the first) to the ask's own subscribers, and keeps it for
 * those who subscribe before the outcome is handed out.
 */
export function publishToAsk(open: OpenAsk, event: AskAuditEvent): void {
  if (!open.handedOut) {
    open.trail ??= [];
    open.trail.push(event);
  }
  if (open.listeners !== undefined) {
    for (const listener of open.listeners) listener.next(event);
  }
}

/** Ends the ask's own audit stream (its outcome is handed out, or the service closed). */
export function completeAsk(open: OpenAsk): void {
  if (open.listeners === undefined) return;
  for (const listener of open.listeners) listener.complete();
  open.listeners = undefined;
}

/** The `start` / `restore` event, rebuilt on demand rather than kept per pending ask. */
export function firstEventOf(open: OpenAsk, version: number): AskAuditEvent {
  const { context } = open.state;
  if (open.origin === 'restore') {
    const state = open.state.value;
    return {
      askId: open.id,
      type: 'restore',
      at: context.createdAt,
      from: state,
      to: state,
      data: { version },
    };
  }
  const data: Extract<AskAuditEvent, { type: 'start' }>['data'] = {
    questions: open.questions.length,
  };
  if (context.deadlineAt !== undefined) data.deadlineAt = context.deadlineAt;
  if (context.toolCallId !== undefined) data.toolCallId = context.toolCallId;
  if (context.sessionId !== undefined) data.sessionId = context.sessionId;
  if (open.key !== undefined) data.key = open.key;
  return {
    askId: open.id,
    type: 'start',
    at: context.createdAt,
    from: null,
    to: 'pending',
    data,
  };
}

/** What this service knows of the ask, at once and without the store. */
export function snapshotOf(open: OpenAsk): AskSnapshot {
  const { context } = open.state;
  const snapshot: AskSnapshot = {
    askId: open.id,
    state: open.state.value,
    questions: open.questions,
    createdAt: context.createdAt,
    progress: context.progress as AskUserQuestionAnswer[],
  };
  if (context.deadlineAt !== undefined) snapshot.deadlineAt = context.deadlineAt;
  if (context.outcome !== undefined) {
    snapshot.outcome = freezeOutcome(context.outcome as AskOutcome, open.localCause);
  }
  return snapshot;
}
