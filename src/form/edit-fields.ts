/**
 * The edit fields of a tool approval that allows edits, generated from the tool's input schema
 * and prefilled with the proposed input: a flat property (a string, a number, a boolean, a
 * string enum) is a field of its own; a nested one (an object, an array, a union) is JSON text.
 * An input the schema's `properties` do not describe field by field is one JSON text field.
 */
import type { UiFormField } from '../contracts/form.js';
import type { AskUserQuestion, AskUserToolApprovalIntent } from '../contracts/question.js';
import { canonicalJson } from '../rules/call-digest.js';
import { UserInteractionError } from '../rules/errors.js';
import { escapeControlCharacters, escapeMarkdown } from '../rules/escape-text.js';
import { MAX_ANSWER_BYTES } from '../rules/limits.js';
import { formAnswerError } from './form-error.js';

/** How an edit field's text becomes a value. */
export type EditFieldKind = 'string' | 'number' | 'integer' | 'boolean' | 'enum' | 'json';

/** One edit field: its id, the property it edits (none: the whole input) and how to read it. */
export interface EditFieldPlan {
  readonly id: string;
  /** The top-level property; `undefined` when the field holds the whole input as JSON. */
  readonly name: string | undefined;
  readonly kind: EditFieldKind;
  readonly required: boolean;
  /** `enum`: the allowed values, whose option ids are `value1`..`valueN`. */
  readonly values: readonly string[];
  readonly description: string | undefined;
}

/** The value of a choice edit field that leaves an optional property out. */
export const UNSET_OPTION_ID = 'unset';

/** `q<n>.edit<k>`: the k-th edit field (1-based) of question n. */
export function editFieldId(position: number, k: number): string {
  return `q${position}.edit${k}`;
}

/** The edit fields of question `position`'s tool-approval intent; none when edits are off. */
export function planEditFields(
  position: number,
  intent: AskUserToolApprovalIntent,
): EditFieldPlan[] {
  if (!intent.allowEdits) return [];
  const schema = record(intent.inputSchema);
  const properties = record(schema?.properties);
  const input = intent.input;
  const perField =
    schema !== undefined &&
    properties !== undefined &&
    Object.keys(properties).length > 0 &&
    (input === undefined || isPlainRecord(input)) &&
    (input === undefined || Object.keys(input).every((key) => Object.hasOwn(properties, key)));
  if (!perField) {
    return [
      {
        id: editFieldId(position, 1),
        name: undefined,
        kind: 'json',
        required: true,
        values: [],
        description: undefined,
      },
    ];
  }
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  return Object.entries(properties).map(([name, inner], index) => {
    const property = record(inner);
    const description =
      typeof property?.description === 'string' ? property.description : undefined;
    const values = stringEnum(property);
    return {
      id: editFieldId(position, index + 1),
      name,
      kind: values === undefined ? kindOf(property) : 'enum',
      required: required.has(name),
      values: values ?? [],
      description,
    };
  });
}

/** The form fields for the plans, prefilled with the proposed input. */
export function editFormFields(
  plans: readonly EditFieldPlan[],
  intent: AskUserToolApprovalIntent,
): UiFormField[] {
  const input = intent.input as Record<string, unknown> | undefined;
  return plans.map((plan): UiFormField => {
    const present =
      plan.name === undefined || (isPlainRecord(input) && Object.hasOwn(input, plan.name));
    const value = plan.name === undefined ? intent.input : present ? input![plan.name] : undefined;
    const label = escapeControlCharacters(
      plan.name === undefined ? `Input of ${intent.toolName} (JSON)` : plan.name,
    );
    const notes = [
      ...(plan.description === undefined ? [] : [escapeMarkdown(plan.description)]),
      ...(plan.kind === 'json' ? ['JSON.'] : []),
      ...(plan.required ? [] : ['Optional: leave it empty to leave it out.']),
    ];
    const head = {
      id: plan.id,
      label,
      ...(notes.length === 0 ? {} : { description: notes.join(' ') }),
    };
    if (plan.kind === 'boolean' || plan.kind === 'enum') {
      const options = (plan.kind === 'boolean' ? ['true', 'false'] : plan.values).map(
        (shown, at) => ({ id: optionId(at), label: escapeControlCharacters(shown) }),
      );
      if (!plan.required) options.push({ id: UNSET_OPTION_ID, label: '(leave out)' });
      const chosen = present
        ? choiceDefault(plan, value)
        : plan.required
          ? undefined
          : UNSET_OPTION_ID;
      return {
        ...head,
        type: 'choice',
        options,
        ...(chosen === undefined ? {} : { default: chosen }),
      };
    }
    const text = present ? textOf(plan.kind, value) : '';
    return {
      ...head,
      type: 'text',
      multiline: plan.kind === 'json' || text.includes('\n'),
      maxBytes: MAX_ANSWER_BYTES,
      default: text,
    };
  });
}

/**
 * The input the edit fields' values stand for: each field's text read as its kind (empty leaves
 * an optional property out). Throws `INVALID_ANSWER` naming the field for text that is not a
 * number, an integer or JSON; the schema itself is checked by the answer validator.
 */
export function readEditedInput(
  questionId: string,
  plans: readonly EditFieldPlan[],
  values: Readonly<Record<string, unknown>>,
  proposed: unknown,
): unknown {
  if (plans.length === 1 && plans[0]!.name === undefined) {
    const plan = plans[0]!;
    const text = fieldText(questionId, plan, values);
    if (text === undefined) return proposed;
    return parseJson(questionId, plan, text);
  }
  const input: Record<string, unknown> = {};
  const base = isPlainRecord(proposed) ? proposed : {};
  for (const plan of plans) {
    const name = plan.name!;
    const text = fieldText(questionId, plan, values);
    if (text === undefined) {
      // A field the client left out keeps the proposed value.
      if (Object.hasOwn(base, name)) define(input, name, base[name]);
      continue;
    }
    if (text === UNSET_OPTION_ID && (plan.kind === 'boolean' || plan.kind === 'enum')) continue;
    if (text === '' && !plan.required) continue;
    define(input, name, readValue(questionId, plan, text));
  }
  return input;
}

/**
 * The edited input a selection stands for, or `undefined` when it stands for none: the edit
 * fields count only with the approving pick (they come prefilled, so with a rejection they are
 * what was proposed, and a rejected call runs with no input), and only when what they hold
 * differs from the proposed input. The one rule for every form that carries edit fields: the
 * generic form's codec and the MCP elicitation form.
 */
export function editedInputOf(
  question: AskUserQuestion,
  plans: readonly EditFieldPlan[],
  values: Readonly<Record<string, unknown>>,
  selections: readonly string[],
): unknown {
  const { intent } = question;
  if (intent?.kind !== 'tool-approval' || plans.length === 0 || selections[0] !== intent.approve) {
    return undefined;
  }
  const input = readEditedInput(question.id, plans, values, intent.input);
  return canonicalJson(input) === canonicalJson(intent.input) ? undefined : input;
}

/** The field values that stand for `input` (the encoder's direction). */
export function encodeEditedInput(
  plans: readonly EditFieldPlan[],
  input: unknown,
): Record<string, string> {
  const values: Record<string, string> = {};
  if (plans.length === 1 && plans[0]!.name === undefined) {
    values[plans[0]!.id] = JSON.stringify(input, null, 2);
    return values;
  }
  const record = isPlainRecord(input) ? input : {};
  for (const plan of plans) {
    const present = Object.hasOwn(record, plan.name!);
    if (plan.kind === 'boolean' || plan.kind === 'enum') {
      values[plan.id] = present ? (choiceDefault(plan, record[plan.name!]) ?? '') : UNSET_OPTION_ID;
    } else values[plan.id] = present ? textOf(plan.kind, record[plan.name!]) : '';
  }
  return values;
}

function readValue(questionId: string, plan: EditFieldPlan, text: string): unknown {
  switch (plan.kind) {
    case 'string':
      return text;
    case 'boolean':
      if (text === optionId(0)) return true;
      if (text === optionId(1)) return false;
      throw editError(
        questionId,
        plan,
        'it is not one of the options',
        '(value1 true, value2 false)',
      );
    case 'enum': {
      const index = plan.values.findIndex((_, at) => optionId(at) === text);
      if (index < 0) {
        throw editError(
          questionId,
          plan,
          'it is not one of the options',
          `(value1..value${plan.values.length}${plan.required ? '' : `, ${UNSET_OPTION_ID}`})`,
        );
      }
      return plan.values[index];
    }
    case 'number':
    case 'integer': {
      const trimmed = text.trim();
      const number = /^-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(trimmed)
        ? Number(trimmed)
        : Number.NaN;
      if (!Number.isFinite(number) || (plan.kind === 'integer' && !Number.isInteger(number))) {
        throw editError(
          questionId,
          plan,
          `it is not ${plan.kind === 'integer' ? 'a whole number' : 'a number'}`,
          `; write one${plan.required ? '' : ', or leave it empty'}`,
        );
      }
      return number;
    }
    case 'json':
      return parseJson(questionId, plan, text);
  }
}

function parseJson(questionId: string, plan: EditFieldPlan, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // The parser's own message quotes the text: never put what was typed in an error.
    throw editError(
      questionId,
      plan,
      'it is not valid JSON',
      `; check its quotes, commas and brackets${plan.required ? '' : ', or leave it empty'}`,
    );
  }
}

function fieldText(
  questionId: string,
  plan: EditFieldPlan,
  values: Readonly<Record<string, unknown>>,
): string | undefined {
  if (!Object.hasOwn(values, plan.id)) return undefined;
  const text = values[plan.id];
  if (typeof text !== 'string') {
    throw formAnswerError(questionId, plan.id, 'must be a string.');
  }
  return text;
}

/**
 * An edit field's `INVALID_ANSWER`: the codec's message names the question and field; `problem`
 * in its data says what is wrong in words a page can show (`refusalInWords`).
 */
function editError(questionId: string, plan: EditFieldPlan, problem: string, fix: string) {
  const error = formAnswerError(questionId, plan.id, `is refused: ${problem}${fix}.`);
  return new UserInteractionError(error.code, error.message, { ...error.data, problem });
}

function optionId(at: number): string {
  return `value${at + 1}`;
}

function choiceDefault(plan: EditFieldPlan, value: unknown): string | undefined {
  if (plan.kind === 'boolean')
    return value === true ? 'value1' : value === false ? 'value2' : undefined;
  const index = plan.values.indexOf(value as string);
  return index < 0 ? undefined : optionId(index);
}

function textOf(kind: EditFieldKind, value: unknown): string {
  if (kind === 'string' && typeof value === 'string') return value;
  if ((kind === 'number' || kind === 'integer') && typeof value === 'number') return String(value);
  // A value of another kind than the schema says (the model's mistake) is shown as JSON.
  return kind === 'json' ? JSON.stringify(value, null, 2) : canonicalJson(value);
}

function kindOf(property: Record<string, unknown> | undefined): EditFieldKind {
  const type = property?.type;
  if (type === 'string' || type === 'number' || type === 'integer' || type === 'boolean') {
    return property !== undefined && onlyFlatKeywords(property) ? type : 'json';
  }
  return 'json';
}

// A flat field shows one value; keywords that combine schemas make it JSON text instead.
function onlyFlatKeywords(property: Record<string, unknown>): boolean {
  return !['anyOf', 'oneOf', 'allOf', 'not', '$ref', 'const'].some((key) => key in property);
}

function stringEnum(property: Record<string, unknown> | undefined): string[] | undefined {
  const values = property?.enum;
  if (!Array.isArray(values) || values.length === 0) return undefined;
  if (!values.every((value) => typeof value === 'string')) return undefined;
  return values as string[];
}

function record(value: unknown): Record<string, unknown> | undefined {
  return isPlainRecord(value) ? value : undefined;
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function define(target: Record<string, unknown>, key: string, value: unknown): void {
  // defineProperty: a `__proto__` property stays data, never the prototype.
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}
