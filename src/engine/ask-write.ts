/**
 * The one write path: a stored ask and a machine event give the new row and its audit event.
 * Pure (no store, no service): start, commit, take-over and the sweeper all build their writes
 * here. Redaction happens here, once, from the flag kept with the ask, so every surface that
 * reads the store (history, web, operator view, MCP, adapters, CLI) reads redacted data.
 * Everything written is deep-frozen: a row or event handed out can never be changed through
 * the object the store keeps.
 */
import type { AskMachineEvent } from '../../machines/ask.machine.js';
import type { AskAttachment } from '../contracts/attachment.js';
import type { AskOutcome } from '../contracts/outcome.js';
import type { AskUserQuestion } from '../contracts/question.js';
import type { AskWrite, StoredAsk } from '../stores/ask-store.js';
import { deliversIn, type PersistedAskState, stepAsk } from './ask-table.js';
import { type AskAuditEvent, type AskState, INITIAL_ASK_STATE, startDataOf } from './audit.js';
import { deepFreeze } from './outcome-copy.js';
import { REDACTED } from './redact.js';

/** What a write is built from: a stored row, or what a service caches of one. */
export interface AskBasis {
  readonly askId: string;
  readonly version: number;
  readonly snapshot: PersistedAskState;
  readonly questions: AskUserQuestion[];
  readonly key?: string | undefined;
  readonly interactionId?: string | undefined;
  readonly attachment?: AskAttachment | undefined;
}

/** A checked stored row as the basis of its next write. */
export function basisOf(row: StoredAsk): AskBasis {
  return row as unknown as AskBasis;
}

/** A write and the snapshot it stores, typed (for the `delivering` tag and inspection). */
export interface AskWriteOf extends AskWrite {
  next: PersistedAskState;
}

/**
 * True when answers stay out of the ask's audit events, inspection and refusal messages, and
 * out of every surface that shows the ask to someone else: the one rule, of the ask's own flag.
 */
export function redacts(snapshot: {
  context: Pick<PersistedAskState['context'], 'redact'>;
}): boolean {
  return snapshot.context.redact === true;
}

/**
 * The first write of a new ask: its row at version 1 and its `start` event. `writer` is the
 * id of the service that writes it (see `AskWrite.writer`), here and in the builders below.
 */
export function startWrite(
  ask: AskBasis,
  at: number,
  owner: string | undefined,
  writer: string,
): AskWrite {
  const row = rowOf(ask, ask.snapshot, 1, at, owner, writer);
  return { ask: deepFreeze(row), event: deepFreeze(firstEvent(ask, 'start', 1)), writer };
}

/** Taking an ask over: the same snapshot, one version on, this service (`owner`) its writer. */
export function restoreWrite(ask: AskBasis, at: number, owner: string): AskWrite {
  const row = rowOf(ask, ask.snapshot, ask.version + 1, at, owner, owner);
  const event: AskAuditEvent = {
    askId: ask.askId,
    type: 'restore',
    at,
    from: row.state,
    to: row.state,
    data: { version: row.version },
  };
  return { ask: deepFreeze(row), event: deepFreeze(event), writer: owner };
}

/**
 * The write of `event` on `ask`, or `undefined` when the machine does not take the event in
 * the ask's state. `owner` is the ask's owner as its stored row names it (a write never
 * changes who delivers an ask: only a start or a take-over does), `writer` the service that
 * writes; see `rowOf` for the owner the new row names.
 */
export function nextAskWrite(
  ask: AskBasis,
  event: AskMachineEvent,
  at: number,
  owner: string | undefined,
  writer: string,
): AskWriteOf | undefined {
  const from = ask.snapshot;
  // The compiled table (ask-table.ts): the same step as XState's, on the persisted snapshot.
  const next = stepAsk(from, event);
  if (next === undefined) return undefined;
  const row = rowOf(ask, next, ask.version + 1, at, owner, writer);
  const data = auditData(event, ask.questions.length, redacts(from), next);
  // A literal, not a spread of a shared base: see createAskContext on hidden classes.
  const audit = {
    askId: ask.askId,
    type: auditType(event, next),
    at,
    from: from.value,
    to: row.state,
    data,
  };
  // The row holds `next` itself: frozen with it.
  return { ask: deepFreeze(row), event: deepFreeze(audit as AskAuditEvent), writer, next };
}

/** The `start` or `restore` event of an ask, as its first write (or a late subscriber) has it. */
export function firstEvent(
  ask: AskBasis,
  origin: 'start' | 'restore',
  version: number,
): AskAuditEvent {
  const { context, value } = ask.snapshot;
  if (origin === 'restore') {
    return {
      askId: ask.askId,
      type: 'restore',
      at: context.createdAt,
      from: value,
      to: value,
      data: { version },
    };
  }
  return {
    askId: ask.askId,
    type: 'start',
    at: context.createdAt,
    from: null,
    to: INITIAL_ASK_STATE,
    data: startDataOf(ask),
  };
}

/** The audit events that record something about an ask without changing its state. */
export type NoteEventType =
  | 'late-answer'
  | 'answer.refused'
  | 'callback.failed'
  | 'response.refused'
  | 'notified'
  | 'reminded'
  | 'escalated';

/**
 * An audit event that changes no state (a late answer, a refusal, a failed callback, a
 * notification sent): the one builder of such events, for the engine and the notify outbox.
 */
export function noteEvent<T extends NoteEventType>(
  askId: string,
  type: T,
  state: AskState,
  at: number,
  data: Extract<AskAuditEvent, { type: T }>['data'],
): AskAuditEvent {
  return deepFreeze({ askId, type, at, from: state, to: state, data } as AskAuditEvent);
}

/**
 * The row for `state` at `version`: everything the store keeps of the ask. `owner` is the
 * service that delivers it, `writer` the one that writes the row.
 */
function rowOf(
  ask: AskBasis,
  state: PersistedAskState,
  version: number,
  at: number,
  owner: string | undefined,
  writer: string,
): StoredAsk {
  const { context } = state;
  const interactionId =
    context.outcome?.status === 'deferred' ? context.outcome.interactionId : ask.interactionId;
  const row: StoredAsk = {
    askId: ask.askId,
    state: state.value,
    version,
    snapshot: state,
    questions: ask.questions,
    final: state.status === 'done',
    createdAt: context.createdAt,
    updatedAt: at,
  };
  if (context.outcome !== undefined) row.outcome = context.outcome as AskOutcome;
  if (interactionId !== undefined) row.interactionId = interactionId;
  if (ask.key !== undefined) row.key = ask.key;
  if (ask.attachment !== undefined) row.attachment = ask.attachment;
  if (context.deadlineAt !== undefined) row.deadlineAt = context.deadlineAt;
  const named = ownerNamed(state, owner, writer);
  if (named !== undefined) row.owner = named;
  return row;
}

/**
 * The owner a row in `state` names, the one rule: an ask that is delivered names its owner,
 * whoever writes (an answer counted by another service leaves it its owner's). A deferred ask
 * is nobody's to deliver, so no lease keeps the sweeper (or a take-over) away from it. A final
 * ask another service settled still names its owner, which has not heard of the settle yet:
 * its caller waits for the outcome, so `purge` leaves the ask until the owner acknowledges it
 * (`AskStore.acknowledgeSettled`) or its lease runs out. The owner's own final write names
 * none: it has seen the settle.
 */
function ownerNamed(
  state: PersistedAskState,
  owner: string | undefined,
  writer: string,
): string | undefined {
  if (deliversIn(state.value)) return owner;
  return state.status === 'done' && owner !== writer ? owner : undefined;
}

/**
 * The audit event type of a write: the machine event's own, but for `respond`, which the
 * machine either counted (`response.recorded`) or refused (its context then names why).
 */
function auditType(event: AskMachineEvent, next: PersistedAskState): AskAuditEvent['type'] {
  if (event.type !== 'respond') return event.type;
  return next.context.refused === undefined ? 'response.recorded' : 'response.refused';
}

function auditData(
  event: AskMachineEvent,
  questionCount: number,
  redact: boolean,
  next: PersistedAskState,
): unknown {
  switch (event.type) {
    case 'respond': {
      const { refused, outcome } = next.context;
      if (refused !== undefined) return { by: event.by, reason: refused.reason };
      const data: { by: string; answers: unknown; decided?: string; edited?: unknown } = {
        by: event.by,
        answers: redact ? REDACTED : event.answers,
      };
      // The digests name what ran, not what was typed: kept when the values are redacted.
      if (event.edited !== undefined) data.edited = event.edited;
      if (outcome?.status === 'answered') {
        data.decided = outcome.vetoedBy === undefined ? 'quorum' : 'veto';
      } else if (outcome?.status === 'cancelled') data.decided = 'no-quorum';
      return data;
    }
    case 'provider.answered':
    case 'answer':
    case 'resume': {
      // Who answered names a person, and an edit's digests what will run, not what was typed:
      // neither is redacted.
      const data: { answers: unknown; answeredBy?: unknown; edited?: unknown } = {
        answers: redact ? REDACTED : event.answers,
      };
      if (event.answeredBy !== undefined) data.answeredBy = event.answeredBy;
      if (event.edited !== undefined) data.edited = event.edited;
      return data;
    }
    case 'provider.progress':
      return {
        answered: event.answers.filter((answer) => answer.response !== null).length,
        total: questionCount,
        answers: redact ? REDACTED : event.answers,
      };
    case 'provider.cancelled':
    case 'cancel':
      return event.message === undefined
        ? { reason: event.reason }
        : { reason: event.reason, message: event.message };
    case 'provider.failed':
      return { reason: event.reason, message: event.message };
    case 'provider.deferred': {
      const data: { interactionId: string; message?: string; quorum?: unknown } = {
        interactionId: event.interactionId,
      };
      if (event.message !== undefined) data.message = event.message;
      // A quorum the provider's route set: recorded where it starts to count.
      if (event.quorum !== undefined) data.quorum = event.quorum;
      return data;
    }
    case 'abort':
      return { message: event.message };
    case 'deadline':
      return { at: event.at };
  }
}
