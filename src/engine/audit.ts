/** The audit trail: one event per lifecycle transition, and one per attempt that changed nothing. */
import type { StateValueFrom } from 'xstate';
import type { AskMachine } from '../../machines/ask.machine.js';
import type { AskUserQuestionAnswer } from '../contracts/answer.js';

/** A state of the ask machine, as the machine declares it. */
export type AskState = StateValueFrom<AskMachine>;

/** Answers as audit events carry them: `'[redacted]'` when the service redacts. */
export type AuditedAnswers = AskUserQuestionAnswer[] | '[redacted]';

/** Who tried to act on an ask that already had its outcome (or refused the attempt). */
export type AskAttemptSource = 'provider' | 'answer' | 'resume' | 'restore' | 'cancel' | 'start';

interface AuditEventBase<TType extends string, TData> {
  askId: string;
  type: TType;
  /** Time on the service's clock, ms since the epoch. */
  at: number;
  data: TData;
}

interface Transition<TType extends string, TData> extends AuditEventBase<TType, TData> {
  /** State before the event. */
  from: AskState;
  to: AskState;
}

export type AskAuditEvent =
  | (AuditEventBase<
      'start',
      {
        questions: number;
        deadlineAt?: number;
        toolCallId?: string;
        sessionId?: string;
        key?: string;
      }
    > & { from: null; to: AskState })
  | Transition<'provider.answered' | 'answer' | 'resume', { answers: AuditedAnswers }>
  | Transition<'provider.progress', { answered: number; total: number; answers: AuditedAnswers }>
  | Transition<'provider.cancelled' | 'cancel', { reason: string; message?: string }>
  | Transition<'provider.failed', { reason: 'invalid-answer' | 'provider-error'; message: string }>
  | Transition<'provider.deferred', { interactionId: string; message?: string }>
  | Transition<'abort', { message: string }>
  | Transition<'deadline', { at: number }>
  /** An answer, resume, restore or provider result that met an ask whose outcome was fixed. */
  | Transition<'late-answer', { source: AskAttemptSource; status?: string }>
  /** `answer` / `resume` with answers that failed validation: refused, the ask stays open. */
  | Transition<'answer.refused', { source: 'answer' | 'resume'; message: string }>
  /** A host callback around the ask (the tool's `onUpdate`) threw; the ask went on. */
  | Transition<'callback.failed', { callback: string; message: string }>
  /** `restore` of a snapshot into this service (the ask is taken over as stored). */
  | Transition<'restore', { version: number }>;

export type AskAuditEventType = AskAuditEvent['type'];
