/**
 * The rules a question must satisfy, in one place: how many, distinct as people see them,
 * options and their limits, intents. The normalizer applies them to what a model or a caller
 * wrote; the form plan applies them to questions it receives (a client's hint data included).
 */
import type {
  AskUserOption,
  AskUserPlanReviewIntent,
  AskUserQuestion,
} from '../contracts/question.js';
import { AskUserQuestionSchema } from '../contracts/question.js';
import { compileCheck } from './compiled-check.js';
import { describe } from './describe.js';
import { UserInteractionError } from './errors.js';
import {
  MAX_FORM_HINT_BYTES,
  MAX_MULTI_SELECT_OPTIONS,
  MAX_QUESTIONS,
  utf8ByteLength,
} from './limits.js';
import { resolveToolApproval } from './tool-approval.js';

// Printable ASCII is already NFC and holds no default-ignorable code point: the common case
// skips the Unicode work.
const PLAIN_ASCII = /^[\x20-\x7e]*$/;
const IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;
const VISIBLE = /[^\s\p{Default_Ignorable_Code_Point}]/u;

/**
 * The key two texts are compared by, as people see them: default-ignorable code points
 * (U+200B, U+2060, U+00AD, U+FEFF, variation selectors, ...) removed, NFC, ignoring case.
 * `titleKey('Cafe\u0301') === titleKey('CAFÉ')`, `titleKey('Allow\u200b') === titleKey('allow')`.
 */
export function titleKey(text: string): string {
  if (PLAIN_ASCII.test(text)) return text.toLowerCase();
  return text.replace(IGNORABLE, '').normalize('NFC').toLowerCase().normalize('NFC');
}

/** True when the text shows something: a character that is neither white space nor ignorable. */
export function hasVisibleCharacter(text: string): boolean {
  // Most text starts with a printable ASCII character: no Unicode property lookup for it.
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x7f) return VISIBLE.test(text);
    // ASCII white space is tab to carriage return, and space; every other ASCII code shows
    // (a control character is written as an escape sequence).
    if (code !== 0x20 && (code < 0x09 || code > 0x0d)) return true;
  }
  return false;
}

/** `EMPTY_QUESTIONS` or `TOO_MANY_QUESTIONS` unless there are 1 to `MAX_QUESTIONS` questions. */
export function checkQuestionCount(count: number): void {
  if (count === 0) {
    throw new UserInteractionError(
      'EMPTY_QUESTIONS',
      `"questions" is empty; send 1-${MAX_QUESTIONS} questions, or one as "question".`,
    );
  }
  if (count > MAX_QUESTIONS) {
    throw new UserInteractionError(
      'TOO_MANY_QUESTIONS',
      `"questions" has ${count} entries; at most ${MAX_QUESTIONS} are allowed. Ask the most important ${MAX_QUESTIONS} now and the rest later.`,
      { limit: MAX_QUESTIONS, actual: count },
    );
  }
}

/**
 * Refuses option titles that show nothing or that look the same as an earlier one (compared by
 * `titleKey`): people could not tell them apart, and an answer could land on the wrong one.
 * `n` is the question's 1-based position; `note` says where the options came from.
 */
export function checkOptionTitles(options: readonly AskUserOption[], n: number, note = ''): void {
  const seen = new KeyPositions(options.length);
  for (let index = 0; index < options.length; index++) {
    const title = options[index]!.title;
    if (!hasVisibleCharacter(title)) {
      throw invalid(
        `Option ${index + 1} of question ${n}${note} has the title ${describe(title)}, which shows nothing; write a title people can read.`,
      );
    }
    const key = titleKey(title);
    const first = seen.find(key);
    if (first !== undefined) {
      const other = options[first]!.title;
      throw invalid(
        `Options ${first + 1} and ${index + 1} of question ${n}${note} have titles that look the same (${other === title ? describe(title) : `${describe(other)} and ${describe(title)}`}; titles are compared as people see them, ignoring case and invisible characters); give each option a distinct title.`,
      );
    }
    seen.add(key, index);
  }
}

/** Where keys were seen: a scan while there are few (no map to build), a map beyond. */
class KeyPositions {
  readonly #keys: string[] = [];
  readonly #map: Map<string, number> | undefined;

  constructor(size: number) {
    this.#map = size > SCANNED_KEYS ? new Map() : undefined;
  }

  find(key: string): number | undefined {
    if (this.#map !== undefined) return this.#map.get(key);
    const index = this.#keys.indexOf(key);
    return index < 0 ? undefined : index;
  }

  /** Adds `key`, seen at `index` (keys are added in index order). */
  add(key: string, index: number): void {
    if (this.#map !== undefined) this.#map.set(key, index);
    else this.#keys.push(key);
  }
}
const SCANNED_KEYS = 8;

/** `LIMIT_EXCEEDED` for a multi-select question with more than `MAX_MULTI_SELECT_OPTIONS` options. */
export function checkMultiSelectLimit(n: number, questionId: string, optionCount: number): void {
  if (optionCount > MAX_MULTI_SELECT_OPTIONS) {
    throw new UserInteractionError(
      'LIMIT_EXCEEDED',
      `Question ${n} allows several selections and has ${optionCount} options; a multi-select question has at most ${MAX_MULTI_SELECT_OPTIONS}. Group the options or split the question.`,
      { questionId, limit: MAX_MULTI_SELECT_OPTIONS, actual: optionCount },
    );
  }
}

/**
 * The plan-review intent of question `n`: `approve` must name one of its options (matched by
 * `titleKey`, returned in the option's own spelling) and the question must have `context`.
 * Throws `BAD_INTENT` otherwise.
 */
export function resolvePlanReview(
  n: number,
  approve: unknown,
  options: readonly AskUserOption[],
  context: string | undefined,
): AskUserPlanReviewIntent {
  const where = `Question ${n}`;
  if (typeof approve !== 'string' || !hasVisibleCharacter(approve)) {
    throw new UserInteractionError(
      'BAD_INTENT',
      `${where} is a plan review whose "approve" is ${approve === null ? 'null' : describe(approve)}; name the option that approves the plan.`,
    );
  }
  const wanted = titleKey(approve.trim());
  const match = options.find((option) => titleKey(option.title) === wanted);
  if (match === undefined) {
    throw new UserInteractionError(
      'BAD_INTENT',
      `${where} is a plan review whose "approve" ${describe(approve)} is not one of its options (${options.length === 0 ? 'it has none' : options.map((option) => describe(option.title)).join(', ')}); name the approving option's title.`,
    );
  }
  if (context === undefined || !hasVisibleCharacter(context)) {
    throw new UserInteractionError(
      'BAD_INTENT',
      `${where} is a plan review without "context"; put the plan under review in "context".`,
    );
  }
  return { kind: 'plan-review', approve: match.title };
}

/** Refuses two questions with the same id, or that ask the same thing as people see it. */
export function checkDistinctQuestions(questions: readonly AskUserQuestion[]): void {
  if (questions.length < 2) return;
  const ids = new KeyPositions(questions.length);
  const texts = new KeyPositions(questions.length);
  for (let index = 0; index < questions.length; index++) {
    const { id, question } = questions[index]!;
    const sameId = ids.find(id);
    if (sameId !== undefined) {
      throw invalid(
        `Questions ${sameId + 1} and ${index + 1} have the same id ${describe(id)}; ids must be unique.`,
      );
    }
    ids.add(id, index);
    const key = titleKey(question);
    const sameText = texts.find(key);
    if (sameText !== undefined) {
      throw invalid(
        `Questions ${sameText + 1} and ${index + 1} ask the same thing (${describe(question)}); ask each question once.`,
      );
    }
    texts.add(key, index);
  }
}

const questionCheck = compileCheck(AskUserQuestionSchema);

/**
 * Checks questions that claim to be normalized (the form plan's input, a client's hint data):
 * the shape, then every rule the normalizer applies. Throws `UserInteractionError`.
 */
export function checkNormalizedQuestions(
  questions: unknown,
): asserts questions is readonly AskUserQuestion[] {
  if (!Array.isArray(questions)) {
    throw new UserInteractionError(
      'EMPTY_QUESTIONS',
      `Expected an array of 1-${MAX_QUESTIONS} questions, got ${describe(questions)}.`,
    );
  }
  checkQuestionCount(questions.length);
  for (let index = 0; index < questions.length; index++) {
    const n = index + 1;
    const question: unknown = questions[index];
    if (!questionCheck.check(question)) {
      const error = questionCheck.firstError(question);
      throw new UserInteractionError(
        'INVALID_REQUEST',
        `Question ${n} is not a normalized question: ${error?.path || '/'} ${error?.message ?? ''}; pass it through the normalizer first.`,
        { position: n },
      );
    }
    const { id, options, allowFreeform, allowMultiple, intent, context } = question;
    if (!hasVisibleCharacter(question.question)) {
      throw invalid(`Question ${n} has a "question" that shows nothing; write the question.`);
    }
    if (options.length === 0 && !allowFreeform) {
      throw invalid(
        `Question ${n} (${describe(id)}) has no options and does not allow a typed answer; set allowFreeform: true.`,
      );
    }
    checkOptionTitles(options, n);
    if (allowMultiple) checkMultiSelectLimit(n, id, options.length);
    if (intent?.kind === 'plan-review') resolvePlanReview(n, intent.approve, options, context);
    else if (intent?.kind === 'tool-approval') {
      resolveToolApproval(n, intent as unknown as Record<string, unknown>, question);
    }
  }
  checkDistinctQuestions(questions);
}

// Encoding into a buffer one byte wider than the limit counts exactly up to the limit and stops
// early past it, with no allocation per call: several times faster than counting in a loop.
let scratch: Uint8Array | undefined;
let encoder: TextEncoder | undefined;

/**
 * The size rule of the questions a form carries as its hint data (`{ questions }`): at most
 * `MAX_FORM_HINT_BYTES` of UTF-8 as JSON. Returns the bytes; throws `LIMIT_EXCEEDED` past it.
 */
export function checkFormHintSize(data: unknown): number {
  const json = JSON.stringify(data);
  const bytes = json.length > MAX_FORM_HINT_BYTES ? MAX_FORM_HINT_BYTES + 1 : jsonBytes(json);
  if (bytes > MAX_FORM_HINT_BYTES) {
    const actual = utf8ByteLength(json);
    throw new UserInteractionError(
      'LIMIT_EXCEEDED',
      `The questions take ${actual} bytes of UTF-8 as JSON; the limit is ${MAX_FORM_HINT_BYTES} bytes. They are refused, not shortened: move long text out of the questions, or split them over several asks.`,
      { limit: MAX_FORM_HINT_BYTES, actual },
    );
  }
  return bytes;
}

/** Exact up to the limit; some number above it past the limit. */
function jsonBytes(json: string): number {
  encoder ??= new TextEncoder();
  scratch ??= new Uint8Array(MAX_FORM_HINT_BYTES + 4);
  const { read, written } = encoder.encodeInto(json, scratch);
  // JSON.stringify escapes lone surrogates, so every character encodes as itself.
  return read === json.length ? written : MAX_FORM_HINT_BYTES + 1;
}

function invalid(message: string): UserInteractionError {
  return new UserInteractionError('INVALID_REQUEST', message);
}
