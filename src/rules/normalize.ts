/** Turns tool or service input into the normalized request every provider sees, in one pass. */
import type { AskUserIntent, AskUserOption, AskUserQuestion } from '../contracts/question.js';
import type { AskUserRequest } from '../contracts/request.js';
import type { AskUserHints } from '../contracts/tool-input.js';
import { describe } from './describe.js';
import { isUserInteractionError, UserInteractionError } from './errors.js';
import {
  MAX_FORM_HINT_BYTES,
  MAX_MULTI_SELECT_OPTIONS,
  MAX_QUESTIONS,
  utf8ByteLength,
} from './limits.js';
import { normalizeAskUserOption } from './normalize-option.js';

/** A request ready for delivery: normalized questions, the asking agent, hints and the timeout. */
export interface NormalizedAskRequest extends AskUserRequest {
  /** From the input's `timeout`: milliseconds to wait, a finite number > 0. */
  timeoutMs?: number;
}

export interface NormalizeAskUserRequestOptions {
  /**
   * The service path: question entries may carry caller-chosen `id` strings and the request may
   * name its `agent`. The tool leaves it off: a model's questions are always `q1`..`q4`, and
   * which agent asks is for the host to say, not the model.
   */
  allowIds?: boolean;
}

export type NormalizeAskUserRequestResult =
  | { ok: true; value: NormalizedAskRequest }
  | { ok: false; error: UserInteractionError };

/**
 * Checks and normalizes one question (`question` at the top level) or a wizard (`questions[]`,
 * 1-4 entries, top-level fields as their defaults). Never throws: an unusable request comes back
 * as `{ ok: false, error }` whose message names the field or entry, the value and the fix.
 *
 * @example
 * const result = normalizeAskUserRequest({ question: 'Which database?', options: ['Postgres', 'SQLite'] });
 * if (result.ok) result.value.questions[0]; // { id: 'q1', header: 'Q1', options: [{ title: 'Postgres' }, ...], ... }
 */
export function normalizeAskUserRequest(
  input: unknown,
  options: NormalizeAskUserRequestOptions = {},
): NormalizeAskUserRequestResult {
  try {
    return { ok: true, value: normalize(input, options.allowIds === true) };
  } catch (error) {
    if (isUserInteractionError(error)) return { ok: false, error };
    // A hostile object (a Proxy, a throwing getter) must not escape as some other exception.
    return {
      ok: false,
      error: new UserInteractionError(
        'INVALID_REQUEST',
        `The request could not be read: ${error instanceof Error ? error.message : String(error)}. Send plain JSON data.`,
      ),
    };
  }
}

/** The fields a question can take, read from one object's own properties only. */
interface QuestionFields {
  id: unknown;
  question: unknown;
  header: unknown;
  context: unknown;
  options: unknown;
  allowMultiple: unknown;
  allowFreeform: unknown;
  allowComment: unknown;
  intent: unknown;
}

interface TopLevelFields extends QuestionFields {
  questions: unknown;
  agent: unknown;
  timeout: unknown;
  displayMode: unknown;
  singleSelectLayout: unknown;
  overlayToggleKey: unknown;
  commentToggleKey: unknown;
}

const DISPLAY_MODES: readonly unknown[] = ['overlay', 'inline'];
const SINGLE_SELECT_LAYOUTS: readonly unknown[] = ['auto', 'list'];

function normalize(input: unknown, allowIds: boolean): NormalizedAskRequest {
  if (!isRecord(input)) {
    throw invalid(
      `The request must be an object with "question" or "questions", got ${describeValue(input)}.`,
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
        `"questions" must be an array of 1-${MAX_QUESTIONS} question objects, got ${describeValue(top.questions)}.`,
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
  if (entries.length === 0) {
    throw new UserInteractionError(
      'EMPTY_QUESTIONS',
      '"questions" is empty; send 1-4 questions, or one as "question".',
    );
  }
  if (entries.length > MAX_QUESTIONS) {
    throw new UserInteractionError(
      'TOO_MANY_QUESTIONS',
      `"questions" has ${entries.length} entries; at most ${MAX_QUESTIONS} are allowed. Ask the most important ${MAX_QUESTIONS} now and the rest later.`,
      { limit: MAX_QUESTIONS, actual: entries.length },
    );
  }

  const questions: AskUserQuestion[] = [];
  // Characters of every shown text, for a cheap upper bound on the form hint's size.
  const size = { chars: 0 };
  for (let index = 0; index < entries.length; index++) {
    const entry = entries[index];
    let fields: QuestionFields;
    if (single) fields = top;
    else {
      if (!isRecord(entry)) {
        throw invalid(
          `Question ${index + 1} must be an object with a "question" string, got ${describeValue(entry)}.`,
        );
      }
      fields = readEntry(entry, index, allowIds);
    }
    const question = normalizeQuestion(fields, single ? undefined : top, index, allowIds, size);
    for (let other = 0; other < index; other++) {
      const previous = questions[other]!;
      if (previous.question.toLowerCase() === question.question.toLowerCase()) {
        throw invalid(
          `Questions ${other + 1} and ${index + 1} ask the same thing (${describe(question.question)}); ask each question once.`,
        );
      }
      if (previous.id === question.id) {
        throw invalid(
          `Questions ${other + 1} and ${index + 1} have the same id ${describe(question.id)}; ids must be unique.`,
        );
      }
    }
    questions.push(question);
  }
  checkHintSize(questions, size.chars);

  const value: NormalizedAskRequest = { questions };
  if (top.agent !== undefined) {
    value.agent = requireText(top.agent, '"agent"', 'the name of the asking agent');
  }
  const hints = readHints(top);
  if (hints !== undefined) value.hints = hints;
  if (top.timeout !== undefined) {
    const timeout = top.timeout;
    if (typeof timeout !== 'number' || !Number.isFinite(timeout) || timeout <= 0) {
      throw invalid(
        `"timeout" must be a finite number of milliseconds greater than 0, got ${describeValue(timeout)}.`,
      );
    }
    value.timeoutMs = timeout;
  }
  return value;
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
    throw invalid(`${where} needs a "question" string, got ${describeValue(text)}.`);
  }
  const questionText = text.trim();
  if (questionText === '') {
    throw invalid(`${where} has an empty "question"; write the question to ask.`);
  }

  let id = `q${n}`;
  if (allowIds && own.id !== undefined) {
    if (typeof own.id !== 'string' || own.id === '') {
      throw invalid(
        `${where} has "id" ${describeValue(own.id)}; an id must be a non-empty string.`,
      );
    }
    id = own.id;
  }

  const headerInput = pick('header');
  let header = `Q${n}`;
  if (headerInput !== undefined) {
    if (typeof headerInput !== 'string') {
      throw invalid(
        `${where} has "header" ${describeValue(headerInput)}; a header is a short string.`,
      );
    }
    const trimmed = headerInput.trim();
    if (trimmed !== '') header = trimmed;
  }

  const contextInput = pick('context');
  let context: string | undefined;
  if (contextInput !== undefined) {
    if (typeof contextInput !== 'string') {
      throw invalid(`${where} has "context" ${describeValue(contextInput)}; context is a string.`);
    }
    const trimmed = contextInput.trim();
    if (trimmed !== '') context = trimmed;
  }

  const options = readOptions(
    own.options !== undefined ? own.options : defaults?.options,
    n,
    own.options === undefined && defaults?.options !== undefined,
    size,
  );
  const hasOptions = options.length > 0;
  const allowMultiple = readFlag(pick('allowMultiple'), where, 'allowMultiple');
  const allowFreeform = readFlag(pick('allowFreeform'), where, 'allowFreeform');
  const allowComment = readFlag(pick('allowComment'), where, 'allowComment');

  if (allowMultiple && options.length > MAX_MULTI_SELECT_OPTIONS) {
    throw new UserInteractionError(
      'LIMIT_EXCEEDED',
      `${where} allows several selections and has ${options.length} options; a multi-select question has at most ${MAX_MULTI_SELECT_OPTIONS}. Group the options or split the question.`,
      { limit: MAX_MULTI_SELECT_OPTIONS, actual: options.length },
    );
  }

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
    question.intent = readIntent(intentInput, where, options, context);
    size.chars += question.intent.approve.length;
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
  if (!Array.isArray(input)) {
    throw invalid(
      `Question ${n} has "options" ${describeValue(input)}; options are an array of { title, description? }.`,
    );
  }
  const options: AskUserOption[] = new Array(input.length);
  const seen = new Map<string, number>();
  for (let index = 0; index < input.length; index++) {
    let option: AskUserOption;
    try {
      option = normalizeAskUserOption(input[index]);
    } catch (error) {
      if (!isUserInteractionError(error)) throw error;
      const reason = typeof error.data.reason === 'string' ? error.data.reason : error.message;
      throw invalid(
        `Option ${index + 1} of question ${n}${inherited ? ' (from the top-level "options")' : ''} is unusable: ${reason}`,
      );
    }
    // Answers are matched case-insensitively, so titles must differ in more than case.
    const key = option.title.toLowerCase();
    const first = seen.get(key);
    if (first !== undefined) {
      throw invalid(
        `Options ${first + 1} and ${index + 1} of question ${n} have the same title ${describe(option.title)} (titles are compared ignoring case); give each option a distinct title.`,
      );
    }
    seen.set(key, index);
    size.chars += option.title.length + (option.description?.length ?? 0);
    options[index] = option;
  }
  return options;
}

function readIntent(
  input: unknown,
  where: string,
  options: readonly AskUserOption[],
  context: string | undefined,
): AskUserIntent {
  if (!isRecord(input)) {
    throw invalid(
      `${where} has "intent" ${describeValue(input)}; an intent is { kind: 'plan-review', approve }.`,
    );
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
      `${where} has intent kind ${describeValue(kind)}; the only intent is "plan-review".`,
    );
  }
  if (typeof approve !== 'string' || approve.trim() === '') {
    throw new UserInteractionError(
      'BAD_INTENT',
      `${where} is a plan review whose "approve" is ${describeValue(approve)}; name the option that approves the plan.`,
    );
  }
  const wanted = approve.trim().toLowerCase();
  const match = options.find((option) => option.title.toLowerCase() === wanted);
  if (match === undefined) {
    throw new UserInteractionError(
      'BAD_INTENT',
      `${where} is a plan review whose "approve" ${describe(approve)} is not one of its options (${options.length === 0 ? 'it has none' : options.map((option) => JSON.stringify(option.title)).join(', ')}); name the approving option's title.`,
    );
  }
  if (context === undefined) {
    throw new UserInteractionError(
      'BAD_INTENT',
      `${where} is a plan review without "context"; put the plan under review in "context".`,
    );
  }
  return { kind: 'plan-review', approve: match.title };
}

function readHints(top: TopLevelFields): AskUserHints | undefined {
  if (
    top.displayMode === undefined &&
    top.singleSelectLayout === undefined &&
    top.overlayToggleKey === undefined &&
    top.commentToggleKey === undefined
  ) {
    return undefined;
  }
  const hints: AskUserHints = {};
  if (top.displayMode !== undefined) {
    if (!DISPLAY_MODES.includes(top.displayMode)) {
      throw invalid(
        `"displayMode" must be "overlay" or "inline", got ${describeValue(top.displayMode)}.`,
      );
    }
    hints.displayMode = top.displayMode as 'overlay' | 'inline';
  }
  if (top.singleSelectLayout !== undefined) {
    if (!SINGLE_SELECT_LAYOUTS.includes(top.singleSelectLayout)) {
      throw invalid(
        `"singleSelectLayout" must be "auto" or "list", got ${describeValue(top.singleSelectLayout)}.`,
      );
    }
    hints.singleSelectLayout = top.singleSelectLayout as 'auto' | 'list';
  }
  // Key names are kept as written: a space is a key too.
  if (top.overlayToggleKey !== undefined) {
    hints.overlayToggleKey = requireKey(top.overlayToggleKey, 'overlayToggleKey');
  }
  if (top.commentToggleKey !== undefined) {
    hints.commentToggleKey = requireKey(top.commentToggleKey, 'commentToggleKey');
  }
  return hints;
}

// The generic form carries the questions as its hint data; refuse before delivery what the form
// could not carry. Each UTF-16 unit takes at most 6 bytes once JSON-escaped (`\u0000`), so the
// exact size is only computed when that bound comes near the limit.
const HINT_OVERHEAD_PER_QUESTION = 256;
function checkHintSize(questions: readonly AskUserQuestion[], chars: number): void {
  let options = 0;
  for (const question of questions) options += question.options.length;
  const bound = chars * 6 + questions.length * HINT_OVERHEAD_PER_QUESTION + options * 48 + 32;
  if (bound <= MAX_FORM_HINT_BYTES) return;
  const bytes = utf8ByteLength(JSON.stringify({ questions }));
  if (bytes > MAX_FORM_HINT_BYTES) {
    throw new UserInteractionError(
      'LIMIT_EXCEEDED',
      `The questions take ${bytes} bytes as JSON; the limit is ${MAX_FORM_HINT_BYTES} bytes. They are refused, not shortened: move long text out of the questions or ask fewer.`,
      { limit: MAX_FORM_HINT_BYTES, actual: bytes },
    );
  }
}

function readTopLevel(input: Record<string, unknown>, allowIds: boolean): TopLevelFields {
  const fields: TopLevelFields = {
    id: undefined,
    question: undefined,
    header: undefined,
    context: undefined,
    options: undefined,
    allowMultiple: undefined,
    allowFreeform: undefined,
    allowComment: undefined,
    intent: undefined,
    questions: undefined,
    agent: undefined,
    timeout: undefined,
    displayMode: undefined,
    singleSelectLayout: undefined,
    overlayToggleKey: undefined,
    commentToggleKey: undefined,
  };
  // Own keys only, copied into a fixed shape: an input key never lands in an open object.
  for (const key of Object.keys(input)) {
    switch (key) {
      case 'question':
      case 'header':
      case 'context':
      case 'options':
      case 'allowMultiple':
      case 'allowFreeform':
      case 'allowComment':
      case 'intent':
      case 'questions':
      case 'timeout':
      case 'displayMode':
      case 'singleSelectLayout':
      case 'overlayToggleKey':
      case 'commentToggleKey':
        fields[key] = input[key];
        break;
      case 'id':
        // A caller-chosen id for the one question at the top level (service path only).
        if (!allowIds) {
          throw invalid(
            `The request has field "id"; leave it out, questions are numbered q1-q${MAX_QUESTIONS} in order.`,
            { field: key },
          );
        }
        fields.id = input[key];
        break;
      case 'agent':
        if (allowIds) {
          fields.agent = input[key];
          break;
        }
        throw invalid(
          'The request has field "agent"; leave it out, the host says which agent asks.',
          { field: key },
        );
      default:
        throw invalid(
          `The request has unknown field ${JSON.stringify(key)}${suggest(key)}; allowed: question, questions, header, context, options, allowMultiple, allowFreeform, allowComment, intent, displayMode, singleSelectLayout, overlayToggleKey, commentToggleKey, timeout${allowIds ? ', id, agent' : ''}.`,
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
  const fields: QuestionFields = {
    id: undefined,
    question: undefined,
    header: undefined,
    context: undefined,
    options: undefined,
    allowMultiple: undefined,
    allowFreeform: undefined,
    allowComment: undefined,
    intent: undefined,
  };
  for (const key of Object.keys(entry)) {
    switch (key) {
      case 'id':
        if (!allowIds) {
          throw invalid(
            `Question ${index + 1} has field "id"; leave it out, questions are numbered q1-q${MAX_QUESTIONS} in order.`,
            { field: key },
          );
        }
        fields.id = entry[key];
        break;
      case 'question':
      case 'header':
      case 'context':
      case 'options':
      case 'allowMultiple':
      case 'allowFreeform':
      case 'allowComment':
      case 'intent':
        fields[key] = entry[key];
        break;
      default:
        throw invalid(
          `Question ${index + 1} has unknown field ${JSON.stringify(key)}${suggest(key)}; allowed: ${allowIds ? 'id, ' : ''}question, header, context, options, allowMultiple, allowFreeform, allowComment, intent.`,
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
    throw invalid(`${where} has "${name}" ${describeValue(value)}; it must be true or false.`);
  }
  return value;
}

function requireText(value: unknown, name: string, what: string): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw invalid(`${name} must be a non-empty string (${what}), got ${describeValue(value)}.`);
  }
  return value.trim();
}

function requireKey(value: unknown, name: string): string {
  if (typeof value !== 'string' || value === '') {
    throw invalid(`"${name}" must be a non-empty key name, got ${describeValue(value)}.`);
  }
  return value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describeValue(value: unknown): string {
  return value === null ? 'null' : describe(value);
}

function invalid(message: string, data: Record<string, unknown> = {}): UserInteractionError {
  return new UserInteractionError('INVALID_REQUEST', message, data);
}
