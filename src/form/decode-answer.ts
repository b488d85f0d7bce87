/** Turns what a form client sent back into validated answers, or `null` for cancel. */
import type { AskUserQuestionAnswer, AskUserResponse } from '../contracts/answer.js';
import type { UiFormAnswer } from '../contracts/form.js';
import { UiFormAnswerSchema } from '../contracts/form.js';
import type { AskUserQuestion } from '../contracts/question.js';
import { compileCheck } from '../rules/compiled-check.js';
import { describe, describeKind } from '../rules/describe.js';
import type { UserInteractionError } from '../rules/errors.js';
import { markValidated } from '../rules/validate-answers.js';
import { editedInputOf } from './edit-fields.js';
import { formAnswerError } from './form-error.js';
import { type AskUserFormMode, CANCEL_ACTION_ID, SUBMIT_ACTION_ID } from './form-ids.js';
import { type FormQuestionPlan, getFormPlan } from './form-plan.js';
import { validateFormAnswers } from './validate-form-answers.js';

type FormValues = Readonly<Record<string, unknown>>;
type Shown = (value: unknown) => string;

/** Options of `decodeAskUserFormAnswer`. */
export interface DecodeAskUserFormAnswerOptions {
  /**
   * `false` keeps what the person typed or picked (and what the client sent) out of every error
   * message: it names the question, the field and what was wrong (for redacted asks). Default
   * `true`.
   */
  quoteInput?: boolean;
}

const envelope = compileCheck(UiFormAnswerSchema);

/**
 * Checks a client's form answer against the questions and returns the answers in question
 * order, with option ids mapped back to option titles; `null` when the person cancelled.
 * Anything a person could not have meant is refused with `UserInteractionError`
 * (`INVALID_ANSWER`, or `LIMIT_EXCEEDED` for oversized text) naming the question and field:
 * unknown fields or options, a missing or conflicting answer, duplicate or too many choices, a
 * comment on a typed answer, every wizard question skipped. The answers come back frozen, and
 * the engine takes them as validated for these questions without validating them again.
 *
 * @example
 * const answers = decodeAskUserFormAnswer(questions, { action: 'submit', values: { 'q1.selection': 'option2' } });
 */
export function decodeAskUserFormAnswer(
  questions: readonly AskUserQuestion[],
  answer: UiFormAnswer,
  options: DecodeAskUserFormAnswerOptions = {},
): AskUserQuestionAnswer[] | null {
  const plan = getFormPlan(questions);
  const quote = options.quoteInput !== false;
  const shown = quote ? describe : describeKind;
  // The envelope's shape in one compiled check; the hand-written reading below only runs to say
  // what is wrong with one that fails it.
  const values = envelope.check(answer)
    ? readEnvelope(answer, shown)
    : readBadEnvelope(answer, shown);
  if (values === null) return null;
  for (const field of Object.keys(values)) {
    if (!plan.fields.has(field)) {
      // A hostile client chooses the key: quote it shortened, never whole.
      throw formAnswerError(
        undefined,
        quote ? (field.length > 64 ? `${field.slice(0, 64)}…` : field) : undefined,
        `unknown field ${shown(field)}; this form has ${[...plan.fields.keys()].map((id) => `"${id}"`).join(', ')}.`,
      );
    }
  }
  const answers: AskUserQuestionAnswer[] = new Array(plan.parts.length);
  for (let i = 0; i < plan.parts.length; i++) {
    const part = plan.parts[i]!;
    answers[i] = {
      questionId: part.question.id,
      response: readResponse(part, values, shown),
    };
  }
  return markValidated(validateFormAnswers(plan, answers, quote), questions);
}

function readEnvelope(answer: UiFormAnswer, shown: Shown): FormValues | null {
  if (answer.action === CANCEL_ACTION_ID) return null;
  if (answer.action !== SUBMIT_ACTION_ID) return readBadEnvelope(answer, shown);
  return answer.values;
}

function readBadEnvelope(answer: unknown, shown: (value: unknown) => string): FormValues | null {
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) {
    throw formAnswerError(
      undefined,
      undefined,
      `expected an object { action, values }, got ${shown(answer)}.`,
    );
  }
  for (const key of Object.keys(answer)) {
    if (key !== 'action' && key !== 'values') {
      throw formAnswerError(
        undefined,
        undefined,
        `unknown property ${shown(key)}; a form answer has only "action" and "values".`,
      );
    }
  }
  const { action, values } = answer as { action?: unknown; values?: unknown };
  if (action === CANCEL_ACTION_ID) return null;
  if (action !== SUBMIT_ACTION_ID) {
    throw formAnswerError(
      undefined,
      undefined,
      `action is ${shown(action)}; expected "${SUBMIT_ACTION_ID}" or "${CANCEL_ACTION_ID}".`,
    );
  }
  if (typeof values !== 'object' || values === null || Array.isArray(values)) {
    throw formAnswerError(
      undefined,
      undefined,
      `"values" must be an object keyed by field id, got ${shown(values)}.`,
    );
  }
  // The field values' types are checked field by field, with the field named.
  return values as FormValues;
}

function readResponse(
  part: FormQuestionPlan,
  values: FormValues,
  shown: Shown,
): AskUserResponse | null {
  const id = part.question.id;
  const mode = readMode(part, values, shown);
  const selection = readSelection(part, values, shown);
  const text = readText(part.textField, id, values, shown);
  const comment = readText(part.commentField, id, values, shown);

  if (mode === 'skip') {
    if (selection.length > 0) throw conflict(part, mode, part.selectionField!, 'a selection');
    if (text !== '') throw conflict(part, mode, part.textField!, 'text');
    if (comment !== '') throw conflict(part, mode, part.commentField!, 'a comment');
    return null;
  }
  if (mode === 'text') {
    if (selection.length > 0) throw conflict(part, mode, part.selectionField!, 'a selection');
    if (comment !== '') {
      throw formAnswerError(
        id,
        part.commentField,
        'has a comment on a typed answer; comments go with picked options only.',
      );
    }
    if (text === '') {
      throw formAnswerError(
        id,
        part.textField,
        'has no text; type an answer or change the answer type.',
      );
    }
    return { kind: 'freeform', text };
  }
  if (text !== '') throw conflict(part, mode, part.textField!, 'text');
  if (selection.length === 0) {
    throw formAnswerError(
      id,
      part.selectionField,
      'has no option chosen; pick one or change the answer type.',
    );
  }
  const response: AskUserResponse =
    comment === ''
      ? { kind: 'selection', selections: selection }
      : { kind: 'selection', selections: selection, comment };
  const input = editedInputOf(part.question, part.editFields, values, selection);
  if (input !== undefined) response.input = input;
  return response;
}

function conflict(
  part: FormQuestionPlan,
  mode: AskUserFormMode,
  field: string,
  what: string,
): UserInteractionError {
  return formAnswerError(
    part.question.id,
    field,
    `has ${what} although ${part.modeField === undefined ? 'the question' : `"${part.modeField}"`} says "${mode}"; clear it or change the answer type.`,
  );
}

function readMode(part: FormQuestionPlan, values: FormValues, shown: Shown): AskUserFormMode {
  if (part.modeField === undefined) return part.selectionField === undefined ? 'text' : 'choice';
  const mode = own(values, part.modeField);
  if (mode === undefined) {
    throw formAnswerError(
      part.question.id,
      part.modeField,
      `has no answer; set it to ${part.modes.map((m) => `"${m}"`).join(', ')}.`,
    );
  }
  if (typeof mode !== 'string' || !(part.modes as readonly string[]).includes(mode)) {
    throw formAnswerError(
      part.question.id,
      part.modeField,
      `is ${shown(mode)}; expected one of ${part.modes.map((m) => `"${m}"`).join(', ')}.`,
    );
  }
  return mode as AskUserFormMode;
}

/** The chosen options' titles, checked: known ids, distinct, not too many. `[]` when none. */
function readSelection(part: FormQuestionPlan, values: FormValues, shown: Shown): string[] {
  const field = part.selectionField;
  if (field === undefined) return [];
  const raw = own(values, field);
  if (raw === undefined) return [];
  const id = part.question.id;
  const count = part.optionIds.length;
  let chosen: readonly unknown[];
  if (part.question.allowMultiple) {
    if (!Array.isArray(raw)) {
      throw formAnswerError(id, field, `must be an array of option ids, got ${shown(raw)}.`);
    }
    if (raw.length > count) {
      throw formAnswerError(
        id,
        field,
        `has ${raw.length} selections; at most ${count} can be chosen.`,
      );
    }
    chosen = raw;
  } else {
    if (Array.isArray(raw)) {
      throw formAnswerError(
        id,
        field,
        raw.length > 1
          ? `has ${raw.length} selections; this question allows one.`
          : `must be one option id as a string, got ${shown(raw)}.`,
      );
    }
    chosen = [raw];
  }
  const seen = new Uint8Array(count);
  const titles: string[] = new Array(chosen.length);
  for (let i = 0; i < chosen.length; i++) {
    const optionId = chosen[i];
    const index = typeof optionId === 'string' ? part.indexById.get(optionId) : undefined;
    if (index === undefined) {
      throw formAnswerError(
        id,
        field,
        `has ${shown(optionId)}, which is not one of its options (option1..option${count}).`,
      );
    }
    if (seen[index] === 1) {
      throw formAnswerError(
        id,
        field,
        shown === describe ? `chooses "${optionId}" twice.` : 'chooses one option twice.',
      );
    }
    seen[index] = 1;
    titles[i] = part.question.options[index]!.title;
  }
  return titles;
}

function readText(field: string | undefined, id: string, values: FormValues, shown: Shown): string {
  if (field === undefined) return '';
  const text = own(values, field);
  if (text === undefined) return '';
  if (typeof text !== 'string') {
    throw formAnswerError(id, field, `must be a string, got ${shown(text)}.`);
  }
  return text;
}

function own(values: FormValues, field: string): unknown {
  return Object.hasOwn(values, field) ? values[field] : undefined;
}
