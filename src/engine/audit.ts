/** The audit trail: one event per lifecycle transition, and one per attempt that changed nothing. */
import type { StateValueFrom } from 'xstate';
import {
  type AskMachine,
  type AskMachineQuorum,
  type AskMachineRefusalReason,
  askMachine,
} from '../../machines/ask.machine.js';
import type { AskUserQuestionAnswer } from '../contracts/answer.js';
import type { AnsweredBy, ToolInputEdit } from '../contracts/outcome.js';

/** A state of the ask machine, as the machine declares it. */
export type AskState = StateValueFrom<AskMachine>;

/** Every state of the ask machine, read from the machine itself (no list kept by hand). */
export const ASK_STATES: readonly AskState[] = Object.freeze(
  Object.keys(askMachine.root.states) as AskState[],
);

/** The state every ask starts in: the machine's initial state, read from the machine. */
export const INITIAL_ASK_STATE = askMachine.config.initial as AskState;

/** Answers as audit events carry them: `'[redacted]'` when the service redacts. */
export type AuditedAnswers = AskUserQuestionAnswer[] | '[redacted]';

/** Who tried to act on an ask that already had its outcome (or refused the attempt). */
export type AskAttemptSource = 'provider' | 'answer' | 'resume' | 'restore' | 'cancel' | 'start';

/** What every audit event has: its ask, its type, when it happened and its data. */
export interface AuditEventBase<TType extends string, TData> {
  askId: string;
  type: TType;
  /** Time on the service's clock, ms since the epoch. */
  at: number;
  data: TData;
}

/** An audit event that moved the ask from one state (`from`) to another (`to`). */
export interface Transition<TType extends string, TData> extends AuditEventBase<TType, TData> {
  /** State before the event. */
  from: AskState;
  to: AskState;
}

/**
 * One entry of an ask's audit trail: a transition (`type` is the event, `from` and `to` the
 * states) or a record that changed nothing (`late-answer`, `answer.refused`, `callback.failed`,
 * and the notifications of `ask-engine/notify`: `notified`, `reminded`, `escalated`).
 * Read them live from `events$`, or later from the store with `service.history(askId)`.
 */
export type AskAuditEvent =
  | (AuditEventBase<
      'start',
      {
        questions: number;
        deadlineAt?: number;
        toolCallId?: string;
        sessionId?: string;
        key?: string;
        /** The W3C trace context of the ask's span (ask-engine/otel): where its trace is. */
        traceparent?: string;
      }
    > & { from: null; to: AskState })
  | Transition<
      'provider.answered' | 'answer' | 'resume',
      /**
       * `answeredBy` is kept as given even when the answers are redacted, and so is `edited`
       * (a tool approval approved with edits: both input digests and the changed fields).
       */
      { answers: AuditedAnswers; answeredBy?: AnsweredBy; edited?: ToolInputEdit }
    >
  /**
   * A person's response to a quorum ask was counted (`service.respond`, a provider's answer with
   * `answeredBy`); `decided` when it ended the ask (the quorum, a veto, or no quorum left).
   */
  | Transition<
      'response.recorded',
      {
        by: string;
        answers: AuditedAnswers;
        decided?: 'quorum' | 'veto' | 'no-quorum';
        edited?: ToolInputEdit;
      }
    >
  /**
   * A response the quorum does not count: the person already responded (`duplicate`), is not in
   * `from` (`not-allowed`), the ask is not a quorum ask, or nobody said who responded
   * (`unidentified`, no `by`). The ask stays as it was.
   */
  | Transition<'response.refused', { by?: string; reason: ResponseRefusalReason }>
  | Transition<'provider.progress', { answered: number; total: number; answers: AuditedAnswers }>
  | Transition<'provider.cancelled' | 'cancel', { reason: string; message?: string }>
  | Transition<'provider.failed', { reason: 'invalid-answer' | 'provider-error'; message: string }>
  /** `quorum`: the rule a provider's route set with the deferral (returned with its deferral, `ProviderDeferral.quorum`). */
  | Transition<
      'provider.deferred',
      { interactionId: string; message?: string; quorum?: AskMachineQuorum }
    >
  | Transition<'abort', { message: string }>
  | Transition<'deadline', { at: number }>
  /** An answer, resume, restore or provider result that met an ask whose outcome was fixed. */
  | Transition<'late-answer', { source: AskAttemptSource; status?: string; by?: AnsweredBy }>
  /** `answer` / `resume` with answers that failed validation: refused, the ask stays open. */
  | Transition<'answer.refused', { source: 'answer' | 'resume'; message: string }>
  /** A host callback around the ask (the tool's `onUpdate`) threw; the ask went on. */
  | Transition<'callback.failed', { callback: string; message: string }>
  /** `restore` of a snapshot into this service (the ask is taken over as stored). */
  | Transition<'restore', { version: number }>
  /** A recipient was told of the ask (`created`) or of its outcome (`settled`); never the answer. */
  | Transition<'notified', NotifiedData & { kind: 'created' | 'settled' }>
  /** A recipient was reminded (`seq` 1, 2, ...), or an escalation step reached a new recipient. */
  | Transition<'reminded' | 'escalated', NotifiedData & { seq: number }>;

/** Why a response to a quorum ask was not counted (see `response.refused`). */
export type ResponseRefusalReason = AskMachineRefusalReason | 'unidentified';

/** Whom a notification reached, through which channel, under which delivery id. */
export interface NotifiedData {
  /** The recipient's id (as `answeredBy.recipient` names them). */
  recipient: string;
  /** The channel's name. */
  channel: string;
  /** The message's stable id (its Message-ID / webhook-id). */
  deliveryId: string;
  /**
   * What the channel kept to find the message again (`NotifyReceipt.ref`: a chat message's
   * ids), when it kept anything; later notifications to the recipient carry it.
   */
  receipt?: string;
}

/** The `type` of an audit event: `start`, a machine event, or a record that changed nothing. */
export type AskAuditEventType = AskAuditEvent['type'];

/**
 * One entry per audit event type. `satisfies` makes this exhaustive and exact at compile time:
 * a type added to `AskAuditEvent` and missing here (or a name here that is not a type) fails
 * the build, so no store or surface needs a list of its own.
 */
const AUDIT_EVENT_TYPE_SET = {
  start: true,
  'provider.answered': true,
  answer: true,
  resume: true,
  'response.recorded': true,
  'response.refused': true,
  'provider.progress': true,
  'provider.cancelled': true,
  cancel: true,
  'provider.failed': true,
  'provider.deferred': true,
  abort: true,
  deadline: true,
  'late-answer': true,
  'answer.refused': true,
  'callback.failed': true,
  restore: true,
  notified: true,
  reminded: true,
  escalated: true,
} as const satisfies Record<AskAuditEventType, true>;

/** Every audit event type, derived once from the `AskAuditEvent` union. */
export const AUDIT_EVENT_TYPES: readonly AskAuditEventType[] = Object.freeze(
  Object.keys(AUDIT_EVENT_TYPE_SET) as AskAuditEventType[],
);

/** True for a string that names an audit event type. */
export function isAuditEventType(value: unknown): value is AskAuditEventType {
  return typeof value === 'string' && Object.hasOwn(AUDIT_EVENT_TYPE_SET, value);
}

const STATE_SET: ReadonlySet<string> = new Set(ASK_STATES);

/** True for a string that names a state of the ask machine. */
export function isAskState(value: unknown): value is AskState {
  return typeof value === 'string' && STATE_SET.has(value);
}

/** What a `start` event records of its ask. */
export type AskStartData = Extract<AskAuditEvent, { type: 'start' }>['data'];

/**
 * A `start` event's data, from what its ask keeps for good: the number of questions, the key,
 * and the machine's input in the snapshot's context. The one derivation: the service writes it
 * (engine/ask-write.ts), and the SQLite store rebuilds a start event's data from its row with it.
 */
export function startDataOf(ask: {
  readonly questions: readonly unknown[];
  readonly key?: string | undefined;
  readonly snapshot: { readonly context?: unknown };
}): AskStartData {
  const context = (ask.snapshot.context ?? {}) as Record<string, unknown>;
  const data: AskStartData = { questions: ask.questions.length };
  if (context.deadlineAt !== undefined) data.deadlineAt = context.deadlineAt as number;
  if (context.toolCallId !== undefined) data.toolCallId = context.toolCallId as string;
  if (context.sessionId !== undefined) data.sessionId = context.sessionId as string;
  if (ask.key !== undefined) data.key = ask.key;
  if (context.traceparent !== undefined) data.traceparent = context.traceparent as string;
  return data;
}
