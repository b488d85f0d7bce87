/** Checks a provider's (or a client's) answers against the questions before they count. */
import {
  AskUserFreeformResponseSchema,
  type AskUserQuestionAnswer,
  AskUserQuestionAnswerSchema,
  type AskUserResponse,
  AskUserSelectionResponseSchema,
} from '../contracts/answer.js';
import type { AskUserQuestion } from '../contracts/question.js';
import { describe, describeKind } from './describe.js';
import { UserInteractionError } from './errors.js';
import { MAX_ANSWER_BYTES, utf8ByteLength } from './limits.js';
import { titleKey } from './question-rules.js';
import { checkEditedInput } from './tool-approval.js';

/** Options of `validateAskUserAnswers`. */
export interface ValidateAskUserAnswersOptions {
  /**
   * Answers so far (progress): questions may be missing, `null` marks a question skipped so far,
   * and nothing needs to be answered yet. Every answer given is checked as strictly as ever.
   */
  partial?: boolean;
  /**
   * `false` keeps what the person typed or picked out of every message: it names the question
   * and what was wrong, never the text, the selection or the comment (for redacted asks).
   * Default `true`.
   */
  quoteInput?: boolean;
}

/** Which part of a response an answer error is about, for a form to point at its field. */
export type AnswerPart = 'response' | 'selection' | 'text' | 'comment' | 'input';

/** The data of an `INVALID_ANSWER` (or `LIMIT_EXCEEDED`) error about one question's response. */
export interface AnswerErrorData extends Record<string, unknown> {
  questionId: string;
  part: AnswerPart;
  /** `input`: where in the edited input (a JSON Pointer), when the schema refused a value. */
  path?: string;
  /** `input`: what the schema refused there, in words (never the value). */
  problem?: string;
}

/**
 * Returns the answers in question order, with every selection spelled as its option's title
 * (selections match titles as people see them: ignoring case, invisible characters and the
 * Unicode normalization form). Throws `UserInteractionError` (`INVALID_ANSWER`, or
 * `LIMIT_EXCEEDED` for oversized text) whose message names the question and what was wrong.
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
  const quote = options.quoteInput !== false;
  const shown = quote ? describe : describeKind;
  if (!Array.isArray(answers)) {
    throw invalid(`Expected answers to be an array, got ${shown(answers)}.`);
  }
  // By question position: an ask has at most a few questions, so a scan beats a map.
  const byQuestion: (AskUserQuestionAnswer | undefined)[] = new Array(questions.length);
  for (let index = 0; index < answers.length; index++) {
    const answer: unknown = answers[index];
    if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) {
      throw invalid(
        `Answer ${index + 1} must be an object { questionId, response }, got ${shown(answer)}.`,
      );
    }
    checkKeys(`Answer ${index + 1}`, answer, ANSWER_KEYS, shown);
    const { questionId } = answer as { questionId?: unknown };
    if (typeof questionId !== 'string') {
      throw invalid(`Answer ${index + 1} has no string questionId, got ${shown(questionId)}.`);
    }
    const position = questionPosition(questions, questionId);
    if (position < 0) {
      throw invalid(
        `Answer ${index + 1} is for unknown question ${shown(questionId)}; the questions are ${questions.map((q) => describe(q.id)).join(', ')}.`,
      );
    }
    if (byQuestion[position] !== undefined) {
      throw invalid(`Question "${questionId}" is answered twice; send one answer per question.`);
    }
    byQuestion[position] = answer as AskUserQuestionAnswer;
  }

  const isWizard = questions.length > 1;
  // Sized up front: these arrays are kept with the ask, and one grown by `push` keeps spare room.
  const result: AskUserQuestionAnswer[] = new Array(questions.length);
  let kept = 0;
  let answered = 0;
  for (let position = 0; position < questions.length; position++) {
    const question = questions[position] as AskUserQuestion;
    const answer = byQuestion[position];
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
      result[kept++] = { questionId: question.id, response: null };
      continue;
    }
    result[kept++] = {
      questionId: question.id,
      response: validateResponse(question, response, quote),
    };
    answered++;
  }
  if (answered === 0 && !partial) throw everySkipped();
  result.length = kept;
  return result;
}

function questionPosition(questions: readonly AskUserQuestion[], id: string): number {
  for (let position = 0; position < questions.length; position++) {
    if ((questions[position] as AskUserQuestion).id === id) return position;
  }
  return -1;
}

/** The error for a wizard whose every question was skipped. */
export function everySkipped(): UserInteractionError {
  return invalid('Every question was skipped; at least one question of a wizard must be answered.');
}

/**
 * Up to this many options or selections, a scan finds a title or a duplicate more cheaply than
 * a map or set built for the purpose; past it, one is built.
 */
const SCANNED = 8;

/**
 * One question's response, checked: the response spelled with its options' own titles, or a
 * `UserInteractionError` whose data names the question and the part at fault (`AnswerErrorData`).
 */
export function validateResponse(
  question: AskUserQuestion,
  response: unknown,
  quote: boolean,
): AskUserResponse {
  const id = question.id;
  const where = `Question "${id}"`;
  const shown = quote ? describe : describeKind;
  const fail = (part: AnswerPart, message: string) => invalid(message, { questionId: id, part });
  if (typeof response !== 'object' || response === null || Array.isArray(response)) {
    throw fail(
      'response',
      `${where} has a response that is not an object, got ${shown(response)}.`,
    );
  }
  const { kind } = response as { kind?: unknown };
  if (kind === 'freeform') {
    const { text } = response as { text?: unknown };
    checkKeys(`${where} response`, response, FREEFORM_KEYS, shown, id, 'text');
    if (!question.allowFreeform) {
      throw fail('text', `${where} does not allow a typed answer; pick one of its options.`);
    }
    if (typeof text !== 'string' || text.trim() === '') {
      throw fail('text', `${where} has an empty typed answer; a typed answer needs text.`);
    }
    checkSize(`${where} typed answer`, text, id, 'text');
    return { kind: 'freeform', text };
  }
  if (kind !== 'selection') {
    throw fail(
      'response',
      `${where} has response kind ${shown(kind)}; expected "selection" or "freeform".`,
    );
  }
  checkKeys(`${where} response`, response, SELECTION_KEYS, shown, id, 'selection');
  const { selections, comment, input } = response as {
    selections?: unknown;
    comment?: unknown;
    input?: unknown;
  };
  if (question.options.length === 0) {
    throw fail(
      'selection',
      `${where} has no options, so it takes a typed answer, not a selection.`,
    );
  }
  if (!Array.isArray(selections) || selections.length === 0) {
    throw fail(
      'selection',
      `${where} has no selections; pick at least one option or skip the question.`,
    );
  }
  if (!question.allowMultiple && selections.length > 1) {
    throw fail('selection', `${where} allows one selection, got ${selections.length}.`);
  }
  const chosen: string[] = new Array(selections.length);
  // Duplicates by a scan while there are few (as `optionTitle` finds titles); past that a set,
  // or 64 selections would compare each with all before it.
  const taken = selections.length > SCANNED ? new Set<string>() : undefined;
  for (let at = 0; at < selections.length; at++) {
    const selection: unknown = selections[at];
    const title = typeof selection === 'string' ? optionTitle(question, selection) : undefined;
    if (title === undefined) {
      throw fail(
        'selection',
        `${where} has ${quote ? `selection ${describe(selection)}` : `a selection (${describeKind(selection)})`}, which is not one of its option titles (${question.options.map((o) => describe(o.title)).join(', ')}).`,
      );
    }
    if (taken === undefined ? chosen.includes(title) : taken.has(title)) {
      throw fail(
        'selection',
        quote ? `${where} selects ${describe(title)} twice.` : `${where} selects one option twice.`,
      );
    }
    chosen[at] = title;
    taken?.add(title);
  }
  // A tool approval approved with edits: checked against the tool's input schema here, before
  // the answer can count anywhere.
  const edited = input === undefined ? undefined : checkEditedInput(question, chosen, input);
  if (comment === undefined) {
    return edited === undefined
      ? { kind: 'selection', selections: chosen }
      : { kind: 'selection', selections: chosen, input: edited };
  }
  if (!question.allowComment) {
    throw fail('comment', `${where} does not allow a comment; leave the comment out.`);
  }
  if (typeof comment !== 'string' || comment.trim() === '') {
    throw fail('comment', `${where} has an empty comment; leave the comment out instead.`);
  }
  checkSize(`${where} comment`, comment, id, 'comment');
  return edited === undefined
    ? { kind: 'selection', selections: chosen, comment }
    : { kind: 'selection', selections: chosen, comment, input: edited };
}

// Lookup from a selection to the option's own spelling, built once per question: a selection
// spelled exactly as a title (what forms and pickers send) needs no comparison key; any other
// is matched by its key, as people see it.
interface TitleIndex {
  exact: Map<string, string>;
  seen: Map<string, string>;
}
/**
 * The option title a selection names: spelled exactly, else the same title under `titleKey`
 * (case and spacing). A few options are scanned (cheaper than indexing the fresh questions of
 * each ask); many are indexed once per question.
 */
function optionTitle(question: AskUserQuestion, selection: string): string | undefined {
  const { options } = question;
  if (options.length > SCANNED) {
    const titles = titleIndex(question);
    return titles.exact.get(selection) ?? titles.seen.get(titleKey(selection));
  }
  for (const option of options) if (option.title === selection) return option.title;
  const key = titleKey(selection);
  for (const option of options) if (titleKey(option.title) === key) return option.title;
  return undefined;
}

const titleIndexes = new WeakMap<AskUserQuestion, TitleIndex>();
function titleIndex(question: AskUserQuestion): TitleIndex {
  let index = titleIndexes.get(question);
  if (index === undefined) {
    const { options } = question;
    index = {
      exact: new Map(options.map((option) => [option.title, option.title])),
      seen: new Map(options.map((option) => [titleKey(option.title), option.title])),
    };
    titleIndexes.set(question, index);
  }
  return index;
}

// The allowed fields come from the schemas.
const ANSWER_KEYS = Object.keys(AskUserQuestionAnswerSchema.properties);
const FREEFORM_KEYS = Object.keys(AskUserFreeformResponseSchema.properties);
const SELECTION_KEYS = Object.keys(AskUserSelectionResponseSchema.properties);

function checkKeys(
  where: string,
  value: object,
  allowed: readonly string[],
  shown: (value: unknown) => string,
  questionId?: string,
  part?: AnswerPart,
): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      throw invalid(
        `${where} has unknown field ${shown(key)}; allowed: ${allowed.join(', ')}.`,
        questionId === undefined ? {} : { questionId, part },
      );
    }
  }
}

function checkSize(what: string, text: string, questionId: string, part: AnswerPart): void {
  const bytes = utf8ByteLength(text);
  if (bytes > MAX_ANSWER_BYTES) {
    throw new UserInteractionError(
      'LIMIT_EXCEEDED',
      `${what} is ${bytes} bytes of UTF-8; the limit is ${MAX_ANSWER_BYTES} bytes. It is refused, not shortened.`,
      { limit: MAX_ANSWER_BYTES, actual: bytes, questionId, part },
    );
  }
}

function invalid(message: string, data: Record<string, unknown> = {}): UserInteractionError {
  return new UserInteractionError('INVALID_ANSWER', message, data);
}

// Answers validated against a questions array, frozen so they stay as validated: a later reader
// of the same answers for the same questions (the engine reading a form provider's outcome)
// takes them as they are instead of validating them again.
const validated = new WeakMap<object, readonly AskUserQuestion[]>();

/** Freezes `answers` (validated against `questions`) and remembers that they are. */
export function markValidated(
  answers: AskUserQuestionAnswer[],
  questions: readonly AskUserQuestion[],
): AskUserQuestionAnswer[] {
  for (const answer of answers) {
    const { response } = answer;
    if (response !== null) {
      if (response.kind === 'selection') Object.freeze(response.selections);
      Object.freeze(response);
    }
    Object.freeze(answer);
  }
  validated.set(Object.freeze(answers), questions);
  return answers;
}

/** True when `answers` came out of `markValidated` for this very `questions` array. */
export function isValidatedFor(answers: unknown, questions: readonly AskUserQuestion[]): boolean {
  return typeof answers === 'object' && answers !== null && validated.get(answers) === questions;
}
