/** Between the outside world and the ask machine: provider results in; audit events and abort reasons out. */
import type { AskMachineAnswer, AskMachineEvent } from '../../machines/ask.machine.js';
import type { AnsweredBy } from '../contracts/outcome.js';
import type { AskUserQuestion } from '../contracts/question.js';
import { messageOf } from '../rules/describe.js';
import { isUserInteractionError, UserInteractionError } from '../rules/errors.js';
import { readProviderOutcome } from '../rules/provider-outcome.js';
import { toolInputEdit } from '../rules/tool-approval.js';
import type { ValidateAskUserAnswersOptions } from '../rules/validate-answers.js';
import type { AskState } from './audit.js';

/**
 * The one machine event a provider's result stands for. The result is read once by the rule
 * that reads provider outcomes; this only turns its reading into an event.
 */
export function providerEvent(
  questions: readonly AskUserQuestion[],
  result: unknown,
  quoteInput: boolean,
): AskMachineEvent {
  const reading = readProviderOutcome(questions, result, { quoteInput });
  if (!reading.ok)
    return { type: 'provider.failed', reason: reading.reason, message: reading.message };
  const { outcome } = reading;
  switch (outcome.status) {
    case 'answered':
      return answeredEvent('provider.answered', questions, outcome.answers, outcome.answeredBy);
    case 'cancelled':
      return outcome.message === undefined
        ? { type: 'provider.cancelled', reason: outcome.reason }
        : { type: 'provider.cancelled', reason: outcome.reason, message: outcome.message };
    case 'deferred':
      return outcome.message === undefined
        ? { type: 'provider.deferred', interactionId: outcome.interactionId }
        : {
            type: 'provider.deferred',
            interactionId: outcome.interactionId,
            message: outcome.message,
          };
  }
}

/**
 * Validated answers as the machine event that records them, with who answered and, for a tool
 * approval approved with edits, what the edit changed (both input digests).
 */
export function answeredEvent(
  type: 'provider.answered' | 'answer' | 'resume',
  questions: readonly AskUserQuestion[],
  answers: AskMachineAnswer[],
  answeredBy: AnsweredBy | undefined,
): AskMachineEvent {
  const event: Extract<AskMachineEvent, { type: typeof type }> = { type, answers };
  if (answeredBy !== undefined) event.answeredBy = answeredBy;
  const edited = toolInputEdit(questions, answers);
  if (edited !== undefined) event.edited = edited;
  return event;
}

/** A person's response to a quorum ask: counted under their recipient id. */
export function respondEvent(
  questions: readonly AskUserQuestion[],
  answers: AskMachineAnswer[],
  by: AnsweredBy,
  at: number,
): AskMachineEvent {
  const edited = toolInputEdit(questions, answers);
  return edited === undefined
    ? { type: 'respond', answers, by: by.recipient, at }
    : { type: 'respond', answers, by: by.recipient, at, edited };
}

/** How answers are checked: redacting, messages never quote what the person typed or picked. */
export function answerCheck(quoteInput: boolean, partial = false): ValidateAskUserAnswersOptions {
  return partial ? { partial, quoteInput } : { quoteInput };
}

/**
 * The reason a provider's signal is aborted with when the ask leaves `pending`. Made without a
 * stack: it would only name the engine's own frames (the deadline timer, the store's news), and
 * capturing one is most of an error's cost. A storm of 100,000 timeouts makes one per ask whose
 * provider listens to its signal, and each is kept on that signal.
 */
export function exitCause(askId: string, event: AskMachineEvent | undefined): unknown {
  if (event?.type === 'abort') return event.cause;
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    if (event?.type === 'deadline') {
      return new DOMException(
        `Ask ${askId} reached its deadline without an answer.`,
        'TimeoutError',
      );
    }
    return new UserInteractionError(
      'ASK_SETTLED',
      event === undefined
        ? `Ask ${askId} was settled or taken over by another service.`
        : `Ask ${askId} left pending on "${event.type}".`,
      { askId, ...(event === undefined ? {} : { event: event.type }) },
    );
  } finally {
    Error.stackTraceLimit = limit;
  }
}

export function settledError(askId: string, state: AskState): UserInteractionError {
  return new UserInteractionError(
    'ASK_SETTLED',
    `Ask ${askId} was already ${state}: its outcome is fixed, so nothing changed.`,
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

/** The abort of an ask: the machine keeps what JSON can hold of the cause. */
export function abortEvent(cause: unknown): AskMachineEvent {
  return { type: 'abort', cause: storableCause(cause), message: messageOf(cause) };
}

/** A provider that threw: aborted by its host, refused the person's answer, or failed. */
export function failureEvent(error: unknown): AskMachineEvent {
  if (isAbortError(error)) {
    // The host drained or restarted under the provider: aborted with the host's original cause.
    const cause = (error as { cause?: unknown }).cause ?? error;
    return abortEvent(cause);
  }
  // A provider that checked the person's answer itself (the form codec does) and refused it.
  const refused =
    isUserInteractionError(error, 'INVALID_ANSWER') ||
    isUserInteractionError(error, 'LIMIT_EXCEEDED');
  return {
    type: 'provider.failed',
    reason: refused ? 'invalid-answer' : 'provider-error',
    message: refused ? messageOf(error) : `The provider failed: ${messageOf(error)}`,
  };
}
