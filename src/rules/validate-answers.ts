/** Checks a provider's (or a client's) answers against the questions before they count. */
import type { AskUserQuestionAnswer, AskUserResponse } from '../contracts/answer.js';
import type { AskUserQuestion } from '../contracts/question.js';
import { describe } from './describe.js';
import { UserInteractionError } from './errors.js';
import { MAX_ANSWER_BYTES, utf8ByteLength } from './limits.js';

export interface ValidateAskUserAnswersOptions {
  /**
   * Answers so far (progress): questions may be missing, `null` marks a question skipped so far,
   * and nothing needs to be answered yet. Every answer given is checked as strictly as ever.
   */
  partial?: boolean;
}

/**
 * Returns the answers in question order, with every selection spelled as its option's title.
 * Throws `UserInteractionError` (`INVALID_ANSWER`, or `LIMIT_EXCEEDED` for oversized text)
 * whose message names the question and what was wrong.
 *
 * @example
 * const answers = validateAskUserAnswers(questions, [{ questionId: 'q1', response: { kind: 'selection', selections: ['yes'] } }]);
 */
export function validateAskUserAnswers(
  questions: readonly AskUserQuestion[],
  answers: unknown,
  options: ValidateAskUserAnswersOptions = {},
): AskUserQuestionAnswer[] {
  const partial = options.partial === true;
  if (!Array.isArray(answers)) {
    throw invalid(`Expected answers to be an array, got ${describe(answers)}.`);
  }
  const byId = new Map<string, AskUserQuestionAnswer>();
  for (let index = 0; index < answers.length; index++) {
    const answer: unknown = answers[index];
    if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) {
      throw invalid(
        `Answer ${index + 1} must be an object { questionId, response }, got ${describe(answer)}.`,
      );
    }
    checkKeys(`Answer ${index + 1}`, answer, ANSWER_KEYS);
    const { questionId } = answer as { questionId?: unknown };
    if (typeof questionId !== 'string') {
      throw invalid(`Answer ${index + 1} has no string questionId, got ${describe(questionId)}.`);
    }
    if (!questions.some((question) => question.id === questionId)) {
      throw invalid(
        `Answer ${index + 1} is for unknown question "${questionId}"; the questions are ${questions.map((q) => `"${q.id}"`).join(', ')}.`,
      );
    }
    if (byId.has(questionId)) {
      throw invalid(`Question "${questionId}" is answered twice; send one answer per question.`);
    }
    byId.set(questionId, answer as AskUserQuestionAnswer);
  }

  const isWizard = questions.length > 1;
  const result: AskUserQuestionAnswer[] = [];
  let answered = 0;
  for (const question of questions) {
    const answer = byId.get(question.id);
    if (answer === undefined) {
      if (partial) continue;
      throw invalid(
        `Question "${question.id}" has no answer; every question needs one${isWizard ? ' (response: null skips it)' : ''}.`,
      );
    }
    const response = (answer as { response?: unknown }).response;
    if (response === null) {
      if (!isWizard && !partial) {
        throw invalid(
          `Question "${question.id}" was skipped, but only a question of a wizard can be skipped; cancel the ask instead.`,
        );
      }
      result.push({ questionId: question.id, response: null });
      continue;
    }
    result.push({ questionId: question.id, response: validateResponse(question, response) });
    answered++;
  }
  if (answered === 0 && !partial) {
    throw invalid(
      'Every question was skipped; at least one question of a wizard must be answered.',
    );
  }
  return result;
}

function validateResponse(question: AskUserQuestion, response: unknown): AskUserResponse {
  const where = `Question "${question.id}"`;
  if (typeof response !== 'object' || response === null || Array.isArray(response)) {
    throw invalid(`${where} has a response that is not an object, got ${describe(response)}.`);
  }
  const { kind } = response as { kind?: unknown };
  if (kind === 'freeform') {
    const { text } = response as { text?: unknown };
    checkKeys(`${where} response`, response, ['kind', 'text']);
    if (!question.allowFreeform) {
      throw invalid(`${where} does not allow a typed answer; pick one of its options.`);
    }
    if (typeof text !== 'string' || text.trim() === '') {
      throw invalid(`${where} has an empty typed answer; a typed answer needs text.`);
    }
    checkSize(`${where} typed answer`, text);
    return { kind: 'freeform', text };
  }
  if (kind !== 'selection') {
    throw invalid(
      `${where} has response kind ${describe(kind)}; expected "selection" or "freeform".`,
    );
  }
  checkKeys(`${where} response`, response, ['kind', 'selections', 'comment']);
  const { selections, comment } = response as { selections?: unknown; comment?: unknown };
  if (question.options.length === 0) {
    throw invalid(`${where} has no options, so it takes a typed answer, not a selection.`);
  }
  if (!Array.isArray(selections) || selections.length === 0) {
    throw invalid(`${where} has no selections; pick at least one option or skip the question.`);
  }
  if (!question.allowMultiple && selections.length > 1) {
    throw invalid(`${where} allows one selection, got ${selections.length}.`);
  }
  const titles = titleIndex(question);
  const chosen: string[] = [];
  for (const selection of selections) {
    const title = typeof selection === 'string' ? titles.get(selection.toLowerCase()) : undefined;
    if (title === undefined) {
      throw invalid(
        `${where} has selection ${describe(selection)}, which is not one of its option titles (${question.options.map((o) => JSON.stringify(o.title)).join(', ')}).`,
      );
    }
    if (chosen.includes(title)) {
      throw invalid(`${where} selects "${title}" twice.`);
    }
    chosen.push(title);
  }
  if (comment === undefined) return { kind: 'selection', selections: chosen };
  if (!question.allowComment) {
    throw invalid(`${where} does not allow a comment; leave the comment out.`);
  }
  if (typeof comment !== 'string' || comment.trim() === '') {
    throw invalid(`${where} has an empty comment; leave the comment out instead.`);
  }
  checkSize(`${where} comment`, comment);
  return { kind: 'selection', selections: chosen, comment };
}

// Case-insensitive lookup from a selection to the option's own spelling, built once per question.
const titleIndexes = new WeakMap<AskUserQuestion, Map<string, string>>();
function titleIndex(question: AskUserQuestion): Map<string, string> {
  let index = titleIndexes.get(question);
  if (index === undefined) {
    index = new Map(question.options.map((option) => [option.title.toLowerCase(), option.title]));
    titleIndexes.set(question, index);
  }
  return index;
}

const ANSWER_KEYS = ['questionId', 'response'] as const;

function checkKeys(where: string, value: object, allowed: readonly string[]): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      throw invalid(`${where} has unknown field ${describe(key)}; allowed: ${allowed.join(', ')}.`);
    }
  }
}

function checkSize(what: string, text: string): void {
  const bytes = utf8ByteLength(text);
  if (bytes > MAX_ANSWER_BYTES) {
    throw new UserInteractionError(
      'LIMIT_EXCEEDED',
      `${what} is ${bytes} bytes of UTF-8; the limit is ${MAX_ANSWER_BYTES} bytes. It is refused, not shortened.`,
      { limit: MAX_ANSWER_BYTES, actual: bytes },
    );
  }
}

function invalid(message: string): UserInteractionError {
  return new UserInteractionError('INVALID_ANSWER', message);
}
