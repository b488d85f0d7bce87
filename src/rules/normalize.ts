/** Turns tool or service input into the normalized request every provider sees, in one pass. */
import type { AskUserIntent, AskUserOption, AskUserQuestion } from '../contracts/question.js';
import type { AskUserRequest } from '../contracts/request.js';
import {
  type AskUserHints,
  AskUserHintsSchema,
  type AskUserQuestionEntry,
  AskUserQuestionEntrySchema,
  type AskUserToolInput,
  AskUserToolInputSchema,
} from '../contracts/tool-input.js';
import { describe, messageOf } from './describe.js';
import { isUserInteractionError, UserInteractionError } from './errors.js';
import { MAX_FORM_HINT_BYTES, MAX_QUESTIONS } from './limits.js';
import { normalizeAskUserOption } from './normalize-option.js';
import {
  checkDistinctQuestions,
  checkFormHintSize,
  checkMultiSelectLimit,
  checkOptionTitles,
  checkQuestionCount,
  hasVisibleCharacter,
  resolvePlanReview,
} from './question-rules.js';
import { getReservedKeyProblem } from './reserved-keys.js';
import { checkStoreText } from './store-text.js';
import { checkTimeoutMs } from './timeout.js';
import { resolveToolApproval } from './tool-approval.js';

/** A request ready for delivery: normalized questions, the asking agent, hints and the timeout. */
export interface NormalizedAskRequest extends AskUserRequest {
  /** From the input's `timeout`: milliseconds to wait, finite and at least `MIN_TIMEOUT_MS`. */
  timeoutMs?: number;
}

/** Options of `normalizeAskUserRequest`: which path the request came by. */
export interface NormalizeAskUserRequestOptions {
  /**
   * The service path: question entries may carry caller-chosen `id` strings and the request may
   * name its `agent`. The tool leaves it off: a model's questions are always `q1`..`q4`, and
   * which agent asks is for the host to say, not the model.
   */
  allowIds?: boolean;
  /** The asking agent, as the host names it (the tool's `agent` option); wins over the input's. */
  agent?: string;
}

/** The normalized request, or the `UserInteractionError` naming what is wrong with the input. */
export type NormalizeAskUserRequestResult =
  | { ok: true; value: NormalizedAskRequest }
  | { ok: false; error: UserInteractionError };

// Every request this module returned, so an inner layer (the service behind the tool) can take
// it as it is instead of normalizing it again. Module-private: nothing else can add to it.
const normalizedRequests = new WeakSet<object>();

/**
 * True only for a request returned by `normalizeAskUserRequest` (in this copy of ask-engine):
 * the service skips normalizing such a request again.
 */
export function isNormalizedAskRequest(value: unknown): value is NormalizedAskRequest {
  return typeof value === 'object' && value !== null && normalizedRequests.has(value);
}

/**
 * Checks and normalizes one question (`question` at the top level) or a wizard (`questions[]`,
 * 1-4 entries, top-level fields as their defaults). Never throws: an unusable request comes back
 * as `{ ok: false, error }` whose message names the field or entry, the value and the fix.
 * A request it already returned comes back as it is.
 *
 * @example
 * const result = normalizeAskUserRequest({ question: 'Which database?', options: ['Postgres', 'SQLite'] });
 * if (result.ok) result.value.questions[0]; // { id: 'q1', header: 'Q1', options: [{ title: 'Postgres' }, ...], ... }
 */
export function normalizeAskUserRequest(
  input: unknown,
  options: NormalizeAskUserRequestOptions = {},
): NormalizeAskUserRequestResult {
  const result = readAskRequest(input, options);
  if (result.ok && result.value !== input) normalizedRequests.add(result.value);
  return result;
}

/**
 * `normalizeAskUserRequest` for a caller that keeps only the parts of the result (the service's
 * intake): the result is not remembered as normalized, which costs a weak-set entry per ask.
 */
export function readAskRequest(
  input: unknown,
  options: NormalizeAskUserRequestOptions = {},
): NormalizeAskUserRequestResult {
  const normalized = isNormalizedAskRequest(input);
  if (normalized && options.agent === undefined) return { ok: true, value: input };
  try {
    // Naming the agent of a request already normalized only sets the agent, on a copy.
    const value = normalized ? { ...input } : normalize(input, options.allowIds === true);
    if (options.agent !== undefined) {
      value.agent = requireText(
        options.agent,
        'The `agent` option',
        'the name of the asking agent',
      );
      checkStoreText(value.agent, 'agent');
    }
    return { ok: true, value };
  } catch (error) {
    if (isUserInteractionError(error)) return { ok: false, error };
    // A hostile object (a Proxy, a throwing getter) must not escape as some other exception.
    return {
      ok: false,
      error: new UserInteractionError(
        'INVALID_REQUEST',
        `The request could not be read: ${messageOf(error)}. Send plain JSON data.`,
      ),
    };
  }
}

// The field lists come from the schemas: a field added there is read here.
type EntryField = keyof AskUserQuestionEntry;
type TopField = keyof AskUserToolInput;
const ENTRY_FIELDS: ReadonlySet<string> = new Set(
  Object.keys(AskUserQuestionEntrySchema.properties),
);
const TOP_FIELDS: ReadonlySet<string> = new Set(Object.keys(AskUserToolInputSchema.properties));
const HINT_FIELDS = Object.keys(AskUserHintsSchema.properties) as (keyof AskUserHints)[];

/** The fields a question can take, read from one object's own properties only. */
type QuestionFields = { [K in EntryField | 'id']?: unknown };
type TopLevelFields = { [K in TopField | 'id' | 'agent']?: unknown };

function normalize(input: unknown, allowIds: boolean): NormalizedAskRequest {
  if (!isRecord(input)) {
    throw invalid(
      `The request must be an object with "question" or "questions", got ${describe(input)}.`,
    );
  }
  const top = readTopLevel(input, allowIds);

  let entries: readonly unknown[];
  let single = false;
  if (top.questions !== undefined) {
    if (top.question !== undefined) {
      throw invalid(
        'The request has both "question" and "questions"; send one question as "question" or 1-4 as "questions", not both.',
      );
    }
    if (!Array.isArray(top.questions)) {
      throw invalid(
        `"questions" must be an array of 1-${MAX_QUESTIONS} question objects, got ${describe(top.questions)}.`,
      );
    }
    entries = top.questions;
    if (top.id !== undefined) {
      throw invalid(
        'The request has a top-level "id" and "questions"; give each entry of "questions" its own "id".',
        { field: 'id' },
      );
    }
  } else if (top.question !== undefined) {
    entries = [input];
    single = true;
  } else {
    throw new UserInteractionError(
      'EMPTY_QUESTIONS',
      'The request has no question; send "question" (one question) or "questions" (1-4).',
    );
  }
  checkQuestionCount(entries.length);

  const questions: AskUserQuestion[] = new Array(entries.length);
  // Characters of every shown text, for a cheap upper bound on the form hint's size.
  const size = { chars: 0 };
  for (let index = 0; index < entries.length; index++) {
    const entry = entries[index];
    let fields: QuestionFields;
    if (single) fields = top;
    else {
      if (!isRecord(entry)) {
        throw invalid(
          `Question ${index + 1} must be an object with a "question" string, got ${describe(entry)}.`,
        );
      }
      fields = readEntry(entry, index, allowIds);
    }
    questions[index] = normalizeQuestion(fields, single ? undefined : top, index, allowIds, size);
  }
  checkDistinctQuestions(questions);
  checkHintSize(questions, size.chars);

  const value: NormalizedAskRequest = { questions };
  if (top.agent !== undefined) {
    value.agent = requireText(top.agent, '"agent"', 'the name of the asking agent');
    // Kept in a store column of its own, and filtered on.
    checkStoreText(value.agent, 'agent');
  }
  const hints = readHints(top);
  if (hints !== undefined) value.hints = hints;
  if (top.timeout !== undefined) value.timeoutMs = checkTimeoutMs(top.timeout, '"timeout"');
  return value;
}

/** The header of question `n` (from 1) when none was given: `Q<n>`, a tab label, no title. */
export function defaultHeader(n: number): string {
  return `Q${n}`;
}

function normalizeQuestion(
  own: QuestionFields,
  defaults: QuestionFields | undefined,
  index: number,
  allowIds: boolean,
  size: { chars: number },
): AskUserQuestion {
  const n = index + 1;
  const where = `Question ${n}`;
  const pick = <K extends keyof QuestionFields>(key: K): unknown =>
    own[key] !== undefined ? own[key] : defaults?.[key];

  const text = own.question;
  if (typeof text !== 'string') {
    throw invalid(`${where} needs a "question" string, got ${describe(text)}.`);
  }
  const questionText = text.trim();
  if (questionText === '') {
    throw invalid(`${where} has an empty "question"; write the question to ask.`);
  }
  if (!hasVisibleCharacter(questionText)) {
    throw invalid(
      `${where} has the "question" ${describe(questionText)}, which shows nothing (only invisible characters); write the question to ask.`,
    );
  }

  let id = `q${n}`;
  if (allowIds && own.id !== undefined) {
    if (typeof own.id !== 'string' || own.id === '') {
      throw invalid(`${where} has "id" ${describe(own.id)}; an id must be a non-empty string.`);
    }
    id = own.id;
  }

  // A header or context that shows nothing is left out, like a blank one.
  const headerInput = pick('header');
  let header = defaultHeader(n);
  if (headerInput !== undefined) {
    if (typeof headerInput !== 'string') {
      throw invalid(`${where} has "header" ${describe(headerInput)}; a header is a short string.`);
    }
    const trimmed = headerInput.trim();
    if (hasVisibleCharacter(trimmed)) header = trimmed;
  }

  const contextInput = pick('context');
  let context: string | undefined;
  if (contextInput !== undefined) {
    if (typeof contextInput !== 'string') {
      throw invalid(`${where} has "context" ${describe(contextInput)}; context is a string.`);
    }
    const trimmed = contextInput.trim();
    if (hasVisibleCharacter(trimmed)) context = trimmed;
  }

  const inherited = own.options === undefined && defaults?.options !== undefined;
  const options = readOptions(inherited ? defaults?.options : own.options, n, inherited, size);
  const hasOptions = options.length > 0;
  const allowMultiple = readFlag(pick('allowMultiple'), where, 'allowMultiple');
  const allowFreeform = readFlag(pick('allowFreeform'), where, 'allowFreeform');
  const allowComment = readFlag(pick('allowComment'), where, 'allowComment');
  if (allowMultiple) checkMultiSelectLimit(n, id, options.length);

  size.chars += questionText.length + header.length + id.length + (context?.length ?? 0);
  const question: AskUserQuestion = {
    id,
    question: questionText,
    header,
    options,
    // Without options there is nothing to select or comment on: the person types the answer.
    allowMultiple: hasOptions && allowMultiple,
    allowFreeform: !hasOptions || allowFreeform,
    allowComment: hasOptions && allowComment,
  };
  if (context !== undefined) question.context = context;

  const intentInput = pick('intent');
  if (intentInput !== undefined) {
    question.intent = readIntent(intentInput, n, question, allowIds);
    size.chars += intentChars(question.intent);
  }
  return question;
}

function readOptions(
  input: unknown,
  n: number,
  inherited: boolean,
  size: { chars: number },
): AskUserOption[] {
  if (input === undefined) return [];
  const note = inherited ? ' (from the top-level "options")' : '';
  if (!Array.isArray(input)) {
    throw invalid(
      `Question ${n} has "options" ${describe(input)}; options are an array of { title, description? }.`,
    );
  }
  const options: AskUserOption[] = new Array(input.length);
  for (let index = 0; index < input.length; index++) {
    let option: AskUserOption;
    try {
      option = normalizeAskUserOption(input[index]);
    } catch (error) {
      if (!isUserInteractionError(error)) throw error;
      const reason = typeof error.data.reason === 'string' ? error.data.reason : error.message;
      throw invalid(`Option ${index + 1} of question ${n}${note} is unusable: ${reason}`);
    }
    size.chars += option.title.length + (option.description?.length ?? 0);
    options[index] = option;
  }
  checkOptionTitles(options, n, note);
  return options;
}

function readIntent(
  input: unknown,
  n: number,
  question: AskUserQuestion,
  servicePath: boolean,
): AskUserIntent {
  const where = `Question ${n}`;
  if (!isRecord(input)) {
    throw invalid(
      `${where} has "intent" ${describe(input)}; an intent is { kind: 'plan-review', approve }.`,
    );
  }
  if (input.kind === 'tool-approval') {
    // A model never approves a tool call: only the host asks that (askToolApproval).
    if (!servicePath) {
      throw new UserInteractionError(
        'BAD_INTENT',
        `${where} has intent kind "tool-approval", which only the host asks (askToolApproval), never the ask_user tool.`,
      );
    }
    return resolveToolApproval(n, input, question);
  }
  let kind: unknown;
  let approve: unknown;
  for (const key of Object.keys(input)) {
    if (key === 'kind') kind = input[key];
    else if (key === 'approve') approve = input[key];
    else {
      throw invalid(
        `${where} has unknown intent field ${JSON.stringify(key)}; an intent is { kind, approve }.`,
      );
    }
  }
  if (kind !== 'plan-review') {
    throw new UserInteractionError(
      'BAD_INTENT',
      `${where} has intent kind ${describe(kind)}; the intents are "plan-review" and, through askToolApproval, "tool-approval".`,
    );
  }
  return resolvePlanReview(n, approve, question.options, question.context);
}

/** What an intent adds to the form hint, in characters (for the cheap size bound). */
function intentChars(intent: AskUserIntent): number {
  if (intent.kind === 'plan-review') return intent.approve.length;
  return JSON.stringify(intent).length;
}

function readHints(top: TopLevelFields): AskUserHints | undefined {
  let hints: Record<string, string> | undefined;
  for (const name of HINT_FIELDS) {
    const value = top[name];
    if (value === undefined) continue;
    const allowed = (AskUserHintsSchema.properties[name] as { enum?: readonly string[] }).enum;
    if (allowed !== undefined) {
      if (typeof value !== 'string' || !allowed.includes(value)) {
        throw invalid(
          `"${name}" must be ${allowed.map((item) => `"${item}"`).join(' or ')}, got ${describe(value)}.`,
        );
      }
    } else if (typeof value !== 'string' || value === '') {
      // Key names are kept as written (the shortcut parser reads them).
      throw invalid(`"${name}" must be a non-empty key name, got ${describe(value)}.`);
    } else {
      // The person's way out (Esc, Ctrl+C, Enter, ...) is never the caller's to take.
      const reserved = getReservedKeyProblem(value);
      if (reserved !== undefined) throw invalid(`"${name}": ${reserved}.`);
    }
    hints ??= {};
    hints[name] = value;
  }
  return hints as AskUserHints | undefined;
}

// The generic form carries the questions as its hint data; refuse before delivery what the form
// could not carry. Each UTF-16 unit takes at most 6 bytes once JSON-escaped (`\u0000`), so the
// exact size is only computed when that bound comes near the limit.
const HINT_OVERHEAD_PER_QUESTION = 256;
function checkHintSize(questions: readonly AskUserQuestion[], chars: number): void {
  let options = 0;
  for (const question of questions) options += question.options.length;
  const bound = chars * 6 + questions.length * HINT_OVERHEAD_PER_QUESTION + options * 48 + 32;
  if (bound > MAX_FORM_HINT_BYTES) checkFormHintSize({ questions });
}

function readTopLevel(input: Record<string, unknown>, allowIds: boolean): TopLevelFields {
  // Own keys only, copied into a fixed shape: an input key never lands in an open object.
  const fields: TopLevelFields = {};
  for (const key of Object.keys(input)) {
    if (TOP_FIELDS.has(key)) {
      fields[key as TopField] = input[key];
    } else if (key === 'id') {
      // A caller-chosen id for the one question at the top level (service path only).
      if (!allowIds) {
        throw invalid(
          `The request has field "id"; leave it out, questions are numbered q1-q${MAX_QUESTIONS} in order.`,
          { field: key },
        );
      }
      fields.id = input[key];
    } else if (key === 'agent') {
      if (!allowIds) {
        throw invalid(
          'The request has field "agent"; leave it out, the host says which agent asks.',
          { field: key },
        );
      }
      fields.agent = input[key];
    } else {
      throw invalid(
        `The request has unknown field ${JSON.stringify(key)}${suggest(key)}; allowed: ${[...TOP_FIELDS].join(', ')}${allowIds ? ', id, agent' : ''}.`,
        { field: key },
      );
    }
  }
  return fields;
}

function readEntry(
  entry: Record<string, unknown>,
  index: number,
  allowIds: boolean,
): QuestionFields {
  const fields: QuestionFields = {};
  for (const key of Object.keys(entry)) {
    if (ENTRY_FIELDS.has(key)) {
      fields[key as EntryField] = entry[key];
    } else if (key === 'id') {
      if (!allowIds) {
        throw invalid(
          `Question ${index + 1} has field "id"; leave it out, questions are numbered q1-q${MAX_QUESTIONS} in order.`,
          { field: key },
        );
      }
      fields.id = entry[key];
    } else {
      throw invalid(
        `Question ${index + 1} has unknown field ${JSON.stringify(key)}${suggest(key)}; allowed: ${allowIds ? 'id, ' : ''}${[...ENTRY_FIELDS].join(', ')}.`,
        { field: key },
      );
    }
  }
  return fields;
}

// The misspellings models actually make, pointed at the field they meant.
function suggest(key: string): string {
  switch (key.toLowerCase()) {
    case 'multiselect':
    case 'multiple':
    case 'multi':
      return ' (did you mean "allowMultiple"?)';
    case 'choices':
    case 'answers':
      return ' (did you mean "options"?)';
    case 'title':
    case 'label':
    case 'text':
    case 'prompt':
      return ' (did you mean "question"?)';
    case 'timeoutms':
      return ' (did you mean "timeout"?)';
    default:
      return '';
  }
}

function readFlag(value: unknown, where: string, name: string): boolean {
  if (value === undefined) return false;
  if (typeof value !== 'boolean') {
    throw invalid(`${where} has "${name}" ${describe(value)}; it must be true or false.`);
  }
  return value;
}

function requireText(value: unknown, name: string, what: string): string {
  if (typeof value !== 'string' || !hasVisibleCharacter(value)) {
    throw invalid(`${name} must be a non-empty string (${what}), got ${describe(value)}.`);
  }
  return value.trim();
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(message: string, data: Record<string, unknown> = {}): UserInteractionError {
  return new UserInteractionError('INVALID_REQUEST', message, data);
}
