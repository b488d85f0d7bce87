/** Between the outside world and the ask machine: provider results in; audit events and abort reasons out. */
import type { AskMachineEvent } from '../../machines/ask.machine.js';
import type { AskUserQuestion } from '../contracts/question.js';
import { describe } from '../rules/describe.js';
import { UserInteractionError } from '../rules/errors.js';
import {
  type ValidateAskUserAnswersOptions,
  validateAskUserAnswers,
} from '../rules/validate-answers.js';
import type { AskAuditEvent, AskState, AuditedAnswers } from './audit.js';
import { REDACTED } from './redact.js';

/**
 * Turns whatever a provider resolved with into the one machine event it stands for. The result
 * is read once, field by field, inside one try: a throwing getter or a hostile Proxy becomes
 * `provider.failed` / `provider-error`, never an exception out of the engine.
 */
export function providerEvent(
  questions: readonly AskUserQuestion[],
  result: unknown,
  quoteInput: boolean,
): AskMachineEvent {
  let fields: {
    status: unknown;
    answers: unknown;
    reason: unknown;
    message: unknown;
    interactionId: unknown;
  };
  try {
    if (typeof result !== 'object' || result === null) {
      return failed(
        'invalid-answer',
        `The provider returned ${describe(result)}; expected an outcome object { status, ... }.`,
      );
    }
    const value = result as Record<string, unknown>;
    fields = {
      status: value.status,
      answers: value.answers,
      reason: value.reason,
      message: value.message,
      interactionId: value.interactionId,
    };
  } catch (error) {
    return failed('provider-error', `The provider's result could not be read: ${messageOf(error)}`);
  }
  const withMessage = typeof fields.message === 'string' ? { message: fields.message } : {};
  switch (fields.status) {
    case 'answered':
      try {
        const answers = validateAskUserAnswers(questions, fields.answers, answerCheck(quoteInput));
        return { type: 'provider.answered', answers };
      } catch (error) {
        return failed('invalid-answer', messageOf(error));
      }
    case 'cancelled':
      if (fields.reason === 'user' || fields.reason === 'unavailable') {
        return { type: 'provider.cancelled', reason: fields.reason, ...withMessage };
      }
      return failed(
        'invalid-answer',
        `The provider cancelled with reason ${describe(fields.reason)}; expected "user" or "unavailable".`,
      );
    case 'deferred':
      if (typeof fields.interactionId === 'string' && fields.interactionId.trim() !== '') {
        return { type: 'provider.deferred', interactionId: fields.interactionId, ...withMessage };
      }
      return failed(
        'invalid-answer',
        `The provider deferred without an interaction id (got ${describe(fields.interactionId)}); nothing could resume the ask.`,
      );
    default:
      return failed(
        'invalid-answer',
        `The provider returned status ${describe(fields.status)}; expected "answered", "cancelled" or "deferred".`,
      );
  }
}

/** How answers are checked: with `quoteInput: false` (redacting) messages never quote the person. */
export function answerCheck(quoteInput: boolean, partial = false): ValidateAskUserAnswersOptions {
  void quoteInput;
  return partial ? { partial } : {};
}

function failed(reason: 'invalid-answer' | 'provider-error', message: string): AskMachineEvent {
  return { type: 'provider.failed', reason, message };
}

/** The audit event of one accepted machine event. */
export function auditEventOf(
  askId: string,
  event: AskMachineEvent,
  from: AskState,
  to: AskState,
  at: number,
  questionCount: number,
  redact: boolean,
): AskAuditEvent {
  const answers = (value: AskMachineEvent & { answers: unknown }): AuditedAnswers =>
    redact ? REDACTED : (value.answers as Exclude<AuditedAnswers, string>);
  const base = { askId, at, from, to };
  switch (event.type) {
    case 'provider.answered':
    case 'answer':
    case 'resume':
      return { ...base, type: event.type, data: { answers: answers(event) } };
    case 'provider.progress':
      return {
        ...base,
        type: event.type,
        data: {
          answered: event.answers.filter((answer) => answer.response !== null).length,
          total: questionCount,
          answers: answers(event),
        },
      };
    case 'provider.cancelled':
    case 'cancel':
      return {
        ...base,
        type: event.type,
        data:
          event.message === undefined
            ? { reason: event.reason }
            : { reason: event.reason, message: event.message },
      };
    case 'provider.failed':
      return { ...base, type: event.type, data: { reason: event.reason, message: event.message } };
    case 'provider.deferred':
      return {
        ...base,
        type: event.type,
        data:
          event.message === undefined
            ? { interactionId: event.interactionId }
            : { interactionId: event.interactionId, message: event.message },
      };
    case 'abort':
      return { ...base, type: event.type, data: { message: event.message } };
    case 'deadline':
      return { ...base, type: event.type, data: { at: event.at } };
  }
}

/** The reason a provider's signal is aborted with when the ask leaves `pending`. */
export function exitCause(askId: string, event: AskMachineEvent | undefined): unknown {
  if (event?.type === 'abort') return event.cause;
  if (event?.type === 'deadline') {
    return new DOMException(`Ask ${askId} reached its deadline without an answer.`, 'TimeoutError');
  }
  return new UserInteractionError(
    'ASK_SETTLED',
    event === undefined
      ? `Ask ${askId} was settled or taken over by another service.`
      : `Ask ${askId} left pending on "${event.type}".`,
    { askId, ...(event === undefined ? {} : { event: event.type }) },
  );
}

export function settledError(askId: string, state: AskState): UserInteractionError {
  return new UserInteractionError(
    'ASK_SETTLED',
    `Ask ${askId} is already ${state}; its outcome is fixed and this answer changes nothing.`,
    { askId, state },
  );
}

/** `AbortError` by name, as DOMException and `AbortSignal.abort()` reasons spell it across realms. */
export function isAbortError(error: unknown): boolean {
  try {
    return (
      typeof error === 'object' &&
      error !== null &&
      (error as { name?: unknown }).name === 'AbortError'
    );
  } catch {
    return false;
  }
}

/** The original cause's own text. */
export function messageOf(cause: unknown): string {
  try {
    if (typeof cause === 'object' && cause !== null && 'message' in cause) {
      const message = (cause as { message?: unknown }).message;
      if (typeof message === 'string' && message !== '') return message;
    }
    if (typeof cause === 'string' && cause !== '') return cause;
    if (cause === undefined) return 'aborted';
    return String(cause);
  } catch {
    return 'aborted (the cause could not be read)';
  }
}

/**
 * What of an abort cause a store can keep: JSON has no errors, so an error is kept as its name
 * and message. The caller in this process still gets the original cause.
 */
export function storableCause(cause: unknown): unknown {
  if (cause === undefined || cause === null) return null;
  if (typeof cause !== 'object') return typeof cause === 'function' ? String(cause) : cause;
  try {
    const { name, message } = cause as { name?: unknown; message?: unknown };
    if (typeof message === 'string') {
      return { name: typeof name === 'string' ? name : 'Error', message };
    }
    return JSON.parse(JSON.stringify(cause)) as unknown;
  } catch {
    return { name: 'Error', message: messageOf(cause) };
  }
}
