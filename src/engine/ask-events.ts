/** Between the outside world and the ask machine: provider results in, audit data and abort reasons out. */
import type { AskMachineEvent } from '../../machines/ask.machine.js';
import type { AskUserQuestion } from '../contracts/question.js';
import { describe } from '../rules/describe.js';
import { UserInteractionError } from '../rules/errors.js';
import { validateAskUserAnswers } from '../rules/validate-answers.js';
import type { AskState } from './audit.js';

const EMPTY: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;

/** Turns whatever the provider resolved with into the one machine event it stands for. */
export function providerEvent(
  questions: readonly AskUserQuestion[],
  result: unknown,
): AskMachineEvent {
  const status =
    typeof result === 'object' && result !== null
      ? (result as { status?: unknown }).status
      : undefined;
  const message = (result as { message?: unknown } | null)?.message;
  const withMessage = typeof message === 'string' ? { message } : {};
  switch (status) {
    case 'answered':
      try {
        const answers = validateAskUserAnswers(
          questions,
          (result as { answers?: unknown }).answers,
        );
        return { type: 'provider.answered', answers };
      } catch (error) {
        return { type: 'provider.failed', reason: 'invalid-answer', message: messageOf(error) };
      }
    case 'cancelled': {
      const reason = (result as { reason?: unknown }).reason;
      if (reason === 'user' || reason === 'unavailable') {
        return { type: 'provider.cancelled', reason, ...withMessage };
      }
      return {
        type: 'provider.failed',
        reason: 'invalid-answer',
        message: `The provider cancelled with reason ${describe(reason)}; expected "user" or "unavailable".`,
      };
    }
    case 'deferred': {
      const interactionId = (result as { interactionId?: unknown }).interactionId;
      if (typeof interactionId === 'string' && interactionId.trim() !== '') {
        return { type: 'provider.deferred', interactionId, ...withMessage };
      }
      return {
        type: 'provider.failed',
        reason: 'invalid-answer',
        message: `The provider deferred without an interaction id (got ${describe(interactionId)}); nothing could resume the ask.`,
      };
    }
    default:
      return {
        type: 'provider.failed',
        reason: 'invalid-answer',
        message: `The provider returned status ${describe(status)}; expected "answered", "cancelled" or "deferred".`,
      };
  }
}

export function eventData(event: AskMachineEvent, total: number): Record<string, unknown> {
  switch (event.type) {
    case 'provider.answered':
    case 'resume':
      return { answers: event.answers };
    case 'provider.progress':
      return {
        answered: event.answers.filter((answer) => answer.response !== null).length,
        total,
        answers: event.answers,
      };
    case 'abort':
      return { message: event.message };
    case 'deadline':
      return { at: event.at };
    default: {
      const { type: _type, ...data } = event;
      return Object.keys(data).length === 0 ? EMPTY : data;
    }
  }
}

/** The reason a provider's signal is aborted with when the ask leaves `pending`. */
export function exitCause(askId: string, event: AskMachineEvent): unknown {
  if (event.type === 'abort') return event.cause;
  if (event.type === 'deadline') {
    return new DOMException(`Ask ${askId} reached its deadline without an answer.`, 'TimeoutError');
  }
  // A stack trace would cost more than the whole ask, and this reason marks no bug site.
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new UserInteractionError(
      'ASK_SETTLED',
      `Ask ${askId} left pending on "${event.type}".`,
      {
        askId,
        event: event.type,
      },
    );
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
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
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { name?: unknown }).name === 'AbortError'
  );
}

/** The original cause's own text. */
export function messageOf(cause: unknown): string {
  if (
    cause instanceof Error ||
    (typeof cause === 'object' && cause !== null && 'message' in cause)
  ) {
    const message = (cause as { message?: unknown }).message;
    if (typeof message === 'string' && message !== '') return message;
  }
  if (typeof cause === 'string' && cause !== '') return cause;
  if (cause === undefined) return 'aborted';
  return String(cause);
}
