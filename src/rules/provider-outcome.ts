/** Reads what a provider resolved with, once, into a valid `ProviderOutcome` or a failure. */
import type { AskUserQuestionAnswer } from '../contracts/answer.js';
import {
  type AnsweredBy,
  ProviderAnsweredSchema,
  ProviderCancelledSchema,
  ProviderDeferredSchema,
  type ProviderOutcome,
} from '../contracts/outcome.js';
import type { AskUserQuestion } from '../contracts/question.js';
import { readAnsweredBy } from './answered-by.js';
import { compileCheck } from './compiled-check.js';
import { describe, messageOf } from './describe.js';
import { isUserInteractionError } from './errors.js';
import { storeTextProblem } from './store-text.js';
import { isValidatedFor, validateAskUserAnswers } from './validate-answers.js';

/** A provider's outcome as read: valid (answers validated against the questions), or why not. */
export type ProviderOutcomeReading =
  | { ok: true; outcome: ProviderOutcome }
  | {
      ok: false;
      /** `invalid-answer`: the outcome is not one; `provider-error`: it could not even be read. */
      reason: 'invalid-answer' | 'provider-error';
      message: string;
    };

export interface ReadProviderOutcomeOptions {
  /** `false` keeps what the person typed or picked out of the message (redacted asks). */
  quoteInput?: boolean;
}

const answeredCheck = compileCheck(ProviderAnsweredSchema);
const cancelledCheck = compileCheck(ProviderCancelledSchema);
const deferredCheck = compileCheck(ProviderDeferredSchema);

/**
 * Reads a provider's result once, defensively: every property is read a single time into plain
 * data (a throwing getter or a Proxy trap ends as `provider-error`, never as an exception),
 * checked with compiled schemas, and an answer is validated against `questions` (answers the
 * form codec already validated for these questions are taken as they are). Never throws.
 *
 * @example
 * const read = readProviderOutcome(questions, await provider.ask(request, ctx));
 * if (read.ok) send(read.outcome); else fail(read.reason, read.message);
 */
export function readProviderOutcome(
  questions: readonly AskUserQuestion[],
  result: unknown,
  options: ReadProviderOutcomeOptions = {},
): ProviderOutcomeReading {
  let outcome: unknown;
  try {
    outcome = readPlain(result, 0, questions);
  } catch (error) {
    if (error instanceof TooLargeError) return invalid(error.message);
    return {
      ok: false,
      reason: 'provider-error',
      message: `The provider's outcome could not be read: ${messageOf(error)}.`,
    };
  }
  if (typeof outcome !== 'object' || outcome === null || Array.isArray(outcome)) {
    return invalid(
      `The provider resolved with ${describe(outcome)}; expected an outcome { status, ... }.`,
    );
  }
  const { status } = outcome as { status?: unknown };
  switch (status) {
    case 'answered':
      return readAnswered(questions, outcome, options.quoteInput !== false);
    case 'cancelled': {
      if (cancelledCheck.check(outcome)) return { ok: true, outcome };
      const { reason } = outcome as { reason?: unknown };
      if (reason !== 'user' && reason !== 'unavailable') {
        return invalid(
          `The provider cancelled with reason ${describe(reason)}; expected "user" or "unavailable".`,
        );
      }
      return schemaFailure(cancelledCheck, outcome);
    }
    case 'deferred': {
      if (deferredCheck.check(outcome)) {
        // The ask is found by it in the store.
        const problem = storeTextProblem(outcome.interactionId, 'interactionId');
        if (problem === undefined) return { ok: true, outcome };
        return invalid(
          `The provider deferred to an interaction id nothing could resume: ${problem}`,
        );
      }
      const { interactionId } = outcome as { interactionId?: unknown };
      if (typeof interactionId !== 'string' || interactionId.trim() === '') {
        return invalid(
          `The provider deferred without an interaction id (got ${describe(interactionId)}); nothing could resume the ask.`,
        );
      }
      return schemaFailure(deferredCheck, outcome);
    }
    default:
      return invalid(
        `The provider returned status ${describe(status)}; expected "answered", "cancelled" or "deferred".`,
      );
  }
}

function readAnswered(
  questions: readonly AskUserQuestion[],
  outcome: object,
  quote: boolean,
): ProviderOutcomeReading {
  const { answers, answeredBy } = outcome as { answers?: unknown; answeredBy?: unknown };
  const shapeOk = answeredCheck.check(outcome);
  let by: AnsweredBy | undefined;
  try {
    // Who answered names a person, never what they answered: its message may quote it.
    if (answeredBy !== undefined) by = readAnsweredBy(answeredBy, 'answeredBy');
  } catch (error) {
    return invalid(`The provider's outcome is not valid: ${messageOf(error)}`);
  }
  const answered = (valid: AskUserQuestionAnswer[]): ProviderOutcomeReading => ({
    ok: true,
    outcome:
      by === undefined
        ? { status: 'answered', answers: valid }
        : { status: 'answered', answers: valid, answeredBy: by },
  });
  if (shapeOk && isValidatedFor(answers, questions)) {
    return answered(answers as AskUserQuestionAnswer[]);
  }
  try {
    // The semantic rules, and the readable message when the shape is wrong.
    const valid = validateAskUserAnswers(questions, answers, { quoteInput: quote });
    if (shapeOk) return answered(valid);
  } catch (error) {
    return invalid(isUserInteractionError(error) ? error.message : messageOf(error));
  }
  return schemaFailure(answeredCheck, outcome);
}

function schemaFailure(
  check: { firstError(value: unknown): { path: string; message: string } | undefined },
  outcome: unknown,
): ProviderOutcomeReading {
  const error = check.firstError(outcome);
  return invalid(
    `The provider's outcome is not valid: ${error === undefined ? 'it does not match its schema' : `${error.path || '/'}: ${error.message}`}.`,
  );
}

function invalid(message: string): ProviderOutcomeReading {
  return { ok: false, reason: 'invalid-answer', message };
}

// Far more than any valid outcome holds (4 answers of at most 64 selections), far less than a
// hostile length could cost.
const MAX_ENTRIES = 10_000;
const MAX_DEPTH = 6;
const TOO_DEEP = Symbol('too deep');

class TooLargeError extends Error {}

/**
 * Plain data read from `value`: own enumerable properties and array entries, each read once.
 * Answers the codec validated for `questions` (frozen, ours) are kept as they are.
 */
function readPlain(value: unknown, depth: number, questions: readonly AskUserQuestion[]): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (depth > MAX_DEPTH) return TOO_DEEP;
  if (depth === 1 && isValidatedFor(value, questions)) return value;
  if (Array.isArray(value)) {
    const length = value.length;
    if (length > MAX_ENTRIES) {
      throw new TooLargeError(
        `The provider's outcome holds an array of ${length} entries; no valid outcome has more than ${MAX_ENTRIES}.`,
      );
    }
    const copy: unknown[] = new Array(length);
    for (let index = 0; index < length; index++) {
      copy[index] = readPlain(value[index], depth + 1, questions);
    }
    return copy;
  }
  const keys = Object.keys(value);
  if (keys.length > MAX_ENTRIES) {
    throw new TooLargeError(
      `The provider's outcome holds an object of ${keys.length} fields; no valid outcome has more than ${MAX_ENTRIES}.`,
    );
  }
  const copy: Record<string, unknown> = {};
  for (const key of keys) {
    const item = readPlain((value as Record<string, unknown>)[key], depth + 1, questions);
    // `undefined` is how a writer says "not given"; a key `__proto__` stays data.
    if (item === undefined) continue;
    if (key === '__proto__') {
      Object.defineProperty(copy, key, {
        value: item,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else copy[key] = item;
  }
  return copy;
}
