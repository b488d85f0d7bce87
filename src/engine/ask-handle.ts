/** What a caller holds of one ask: its handle, and the frozen snapshot it reads. */
import { Observable } from 'rxjs';
import type { AskUserQuestionAnswer } from '../contracts/answer.js';
import type { AskOutcome } from '../contracts/outcome.js';
import type { AskAuditEvent } from './audit.js';
import type { AuditTrail } from './audit-trail.js';
import type { OpenAsk } from './open-ask.js';
import { freezeOutcome } from './outcome-copy.js';
import type { AskHandle, AskSnapshot } from './service-contract.js';

/** The handle of `open`; `cancel` is the service's, the rest reads the ask. */
export function createAskHandle(
  open: OpenAsk,
  trail: AuditTrail,
  cancel: (reason: 'user' | 'unavailable', message: string | undefined) => void,
): AskHandle {
  return {
    id: open.id,
    outcome: open.outcome,
    get stored() {
      return storedOf(open);
    },
    get events$() {
      return new Observable<AskAuditEvent>((subscriber) => trail.subscribe(open, subscriber));
    },
    getSnapshot: () => snapshotOf(open),
    cancel: (reason = 'user', message) => cancel(reason, message),
  };
}

/**
 * Settles once the ask's row is in the store: its first write, or the row it attached to (the
 * write in flight may be followed by the check of the row a key found, which can refuse it).
 */
function storedOf(open: OpenAsk): Promise<void> {
  const pending = open.stored;
  if (pending === undefined) return Promise.resolve();
  return pending.then(() =>
    open.stored === pending || open.stored === undefined ? undefined : storedOf(open),
  );
}

/** What this service knows of the ask, at once and without the store; frozen. */
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
  return Object.freeze(snapshot);
}
