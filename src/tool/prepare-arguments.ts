/** Repairs the ask_user arguments a model wrote into the shape of the tool's schema. */
import {
  AskUserQuestionEntrySchema,
  type AskUserToolInput,
  AskUserToolInputSchema,
} from '../contracts/tool-input.js';
import { describe, messageOf } from '../rules/describe.js';
import { isUserInteractionError, UserInteractionError } from '../rules/errors.js';
import { normalizeAskUserOption } from '../rules/normalize-option.js';

// The field lists come from the schema. Every field is optional, and a model may fill one with
// `null` to mean "not given" (strict structured-output modes make every field required and
// expect null for the ones left out).
const NULLABLE_FIELDS: ReadonlySet<string> = new Set(
  Object.keys(AskUserToolInputSchema.properties),
);
const BOOLEAN_FIELDS: ReadonlySet<string> = new Set(
  Object.entries(AskUserQuestionEntrySchema.properties)
    .filter(([, schema]) => (schema as { type?: unknown }).type === 'boolean')
    .map(([name]) => name),
);

/**
 * Tolerant repair of raw tool arguments: the whole object, `questions`, `options` or `intent`
 * sent as JSON strings, question entries sent as bare strings, options as strings, numbers,
 * booleans or objects keyed `label`/`text`/`value`/`name`/`option`, booleans as `"true"`/`"false"`,
 * `timeout` as a numeric string, `null` for a field left out. Anything it does not recognise is
 * passed on unchanged for the normalizer to report; an entry it cannot repair throws a
 * `UserInteractionError` that says which entry and why. Reads own properties only and never
 * writes an input key into an ordinary object, so hostile keys (`__proto__`) cannot pollute.
 *
 * @example
 * prepareAskUserArguments('{"question":"Deploy?","options":"[\\"yes\\",\\"no\\"]"}');
 * // { question: 'Deploy?', options: [{ title: 'yes' }, { title: 'no' }] }
 */
export function prepareAskUserArguments(raw: unknown): AskUserToolInput {
  try {
    const input = typeof raw === 'string' ? parseJson(raw, 'The arguments', 'an object') : raw;
    if (!isRecord(input)) {
      throw invalid(
        `The arguments must be an object with "question" or "questions", got ${describe(input)}.`,
      );
    }
    // Top-level options are the single question's own, or the defaults of a wizard's entries.
    const topLevel = Object.hasOwn(input, 'questions') ? 'the top-level "options"' : 'question 1';
    return repairFields(input, undefined, topLevel) as AskUserToolInput;
  } catch (error) {
    if (isUserInteractionError(error)) throw error;
    // A throwing getter or a Proxy trap is the caller's problem, reported as bad input.
    throw invalid(`The arguments could not be read: ${messageOf(error)}. Send plain JSON.`);
  }
}

/** Copies one object (the arguments, or one question entry), repairing the fields it knows. */
function repairFields(
  input: Record<string, unknown>,
  questionNumber: number | undefined,
  optionsOwner: string,
): Record<string, unknown> {
  const output: Record<string, unknown> = {};
  for (const key of Object.keys(input)) {
    const value = input[key];
    if (value === null && NULLABLE_FIELDS.has(key)) continue;
    if (key === 'questions' && questionNumber === undefined) {
      define(output, key, repairQuestions(value));
    } else if (key === 'options') {
      define(output, key, repairOptions(value, optionsOwner));
    } else if (key === 'intent' && typeof value === 'string') {
      define(output, key, parseJson(value, where('"intent"', questionNumber), 'an object'));
    } else if (BOOLEAN_FIELDS.has(key)) {
      define(output, key, repairBoolean(value));
    } else if (key === 'timeout' && questionNumber === undefined) {
      define(output, key, repairNumber(value));
    } else {
      define(output, key, value);
    }
  }
  return output;
}

function repairQuestions(value: unknown): unknown {
  const entries = typeof value === 'string' ? parseJson(value, '"questions"', 'an array') : value;
  if (!Array.isArray(entries)) return entries;
  const repaired: unknown[] = new Array(entries.length);
  for (let index = 0; index < entries.length; index++) {
    const entry: unknown = entries[index];
    const number = index + 1;
    if (typeof entry === 'string') {
      // A bare string entry is the question itself; anything else in a string is not a question.
      repaired[index] = { question: entry };
    } else if (isRecord(entry)) {
      repaired[index] = repairFields(entry, number, `question ${number}`);
    } else {
      throw invalid(
        `Question ${number} is unusable: it must be an object { question, options?, ... }, got ${describe(entry)}.`,
      );
    }
  }
  return repaired;
}

function repairOptions(value: unknown, owner: string): unknown {
  const entries =
    typeof value === 'string' ? parseJson(value, `"options" of ${owner}`, 'an array') : value;
  if (!Array.isArray(entries)) {
    throw invalid(
      `"options" of ${owner} must be an array of { title, description? }, got ${describe(entries)}.`,
    );
  }
  const repaired = new Array(entries.length);
  for (let index = 0; index < entries.length; index++) {
    try {
      repaired[index] = normalizeAskUserOption(entries[index]);
    } catch (error) {
      if (!isUserInteractionError(error)) throw error;
      const reason = typeof error.data.reason === 'string' ? error.data.reason : error.message;
      throw invalid(`Option ${index + 1} of ${owner} is unusable: ${reason}`);
    }
  }
  return repaired;
}

function repairBoolean(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const text = value.trim().toLowerCase();
  if (text === 'true') return true;
  if (text === 'false') return false;
  return value;
}

function repairNumber(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const text = value.trim();
  // Number('') and Number('0x10') would accept what no one means as milliseconds.
  if (text === '' || !/^[0-9]+(\.[0-9]+)?$/.test(text)) return value;
  return Number(text);
}

function parseJson(text: string, what: string, expected: 'an object' | 'an array'): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalid(
      `${what} arrived as a string that is not valid JSON (${describe(text)}); send ${expected} instead of a string.`,
    );
  }
  const fits = expected === 'an array' ? Array.isArray(parsed) : isRecord(parsed);
  if (!fits) {
    throw invalid(
      `${what} arrived as a JSON string holding ${describe(parsed)}; send ${expected}.`,
    );
  }
  return parsed;
}

// `output[key] = value` with key `__proto__` would replace the copy's prototype; defining an
// own property keeps the key as data, for the normalizer to reject as an unknown field.
function define(output: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(output, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

function where(field: string, questionNumber: number | undefined): string {
  return questionNumber === undefined ? field : `${field} of question ${questionNumber}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(message: string): UserInteractionError {
  return new UserInteractionError('INVALID_REQUEST', message);
}
