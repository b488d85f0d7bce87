/** Turns what a form client sent back into validated answers, or `null` for cancel. */
import type { AskUserQuestionAnswer, AskUserResponse } from '../contracts/answer.js';
import type { UiFormAnswer } from '../contracts/form.js';
import type { AskUserQuestion } from '../contracts/question.js';
import { describe } from '../describe.js';
import { isUserInteractionError, UserInteractionError } from '../errors.js';
import { validateAskUserAnswers } from '../validate-answers.js';
import { formAnswerError } from './form-error.js';
import { type AskUserFormMode, CANCEL_ACTION_ID, SUBMIT_ACTION_ID } from './form-ids.js';
import { type FormQuestionPlan, getFormPlan } from './form-plan.js';

type FormValues = Readonly<Record<string, unknown>>;

/**
 * Checks a client's form answer against the questions and returns the answers in question
 * order, with option ids mapped back to option titles; `null` when the person cancelled.
 * Anything a person could not have meant is refused with `UserInteractionError`
 * (`INVALID_ANSWER`, or `LIMIT_EXCEEDED` for oversized text) naming the question and field:
 * unknown fields or options, a missing or conflicting answer, duplicate or too many choices, a
 * comment on a typed answer, every wizard question skipped.
 *
 * @example
 * const answers = decodeAskUserFormAnswer(questions, { action: 'submit', values: { 'q1.selection': 'option2' } });
 */
export function decodeAskUserFormAnswer(
  questions: readonly AskUserQuestion[],
  answer: UiFormAnswer,
): AskUserQuestionAnswer[] | null {
  const plan = getFormPlan(questions);
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) {
    throw formAnswerError(
      undefined,
      undefined,
      `expected an object { action, values }, got ${describe(answer)}.`,
    );
  }
  for (const key of Object.keys(answer)) {
    if (key !== 'action' && key !== 'values') {
      throw formAnswerError(
        undefined,
        undefined,
        `unknown property "${key}"; a form answer has only "action" and "values".`,
      );
    }
  }
  const { action, values } = answer as { action?: unknown; values?: unknown };
  if (action === CANCEL_ACTION_ID) return null;
  if (action !== SUBMIT_ACTION_ID) {
    throw formAnswerError(
      undefined,
      undefined,
      `action is ${describe(action)}; expected "${SUBMIT_ACTION_ID}" or "${CANCEL_ACTION_ID}".`,
    );
  }
  if (typeof values !== 'object' || values === null || Array.isArray(values)) {
    throw formAnswerError(
      undefined,
      undefined,
      `"values" must be an object keyed by field id, got ${describe(values)}.`,
    );
  }
  for (const field of Object.keys(values)) {
    if (!plan.fields.has(field)) {
      throw formAnswerError(
        undefined,
        field,
        `unknown field "${field}"; this form has ${[...plan.fields.keys()].map((id) => `"${id}"`).join(', ')}.`,
      );
    }
  }
  const answers = plan.parts.map(
    (part): AskUserQuestionAnswer => ({
      questionId: part.question.id,
      response: readResponse(part, values as FormValues),
    }),
  );
  try {
    // The answer-level rules (empty text, sizes, at least one answered) live in one place.
    return validateAskUserAnswers(questions, answers);
  } catch (error) {
    throw attribute(error, plan.parts, answers);
  }
}

function readResponse(part: FormQuestionPlan, values: FormValues): AskUserResponse | null {
  const id = part.question.id;
  const mode = readMode(part, values);
  const selection = readSelection(part, values);
  const text = readText(part.textField, id, values);
  const comment = readText(part.commentField, id, values);
  const conflict = (field: string, what: string) =>
    formAnswerError(
      id,
      field,
      `has ${what} although ${part.modeField === undefined ? 'the question' : `"${part.modeField}"`} says "${mode}"; clear it or change the answer type.`,
    );

  if (mode === 'skip') {
    if (selection.length > 0) throw conflict(part.selectionField!, 'a selection');
    if (text !== '') throw conflict(part.textField!, 'text');
    if (comment !== '') throw conflict(part.commentField!, 'a comment');
    return null;
  }
  if (mode === 'text') {
    if (selection.length > 0) throw conflict(part.selectionField!, 'a selection');
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
  if (text !== '') throw conflict(part.textField!, 'text');
  if (selection.length === 0) {
    throw formAnswerError(
      id,
      part.selectionField,
      'has no option chosen; pick one or change the answer type.',
    );
  }
  const selections = selection.map((optionId) => part.titleById.get(optionId)!);
  return comment === ''
    ? { kind: 'selection', selections }
    : { kind: 'selection', selections, comment };
}

function readMode(part: FormQuestionPlan, values: FormValues): AskUserFormMode {
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
      `is ${describe(mode)}; expected one of ${part.modes.map((m) => `"${m}"`).join(', ')}.`,
    );
  }
  return mode as AskUserFormMode;
}

/** The chosen option ids, checked: known, distinct, not too many. `[]` when none. */
function readSelection(part: FormQuestionPlan, values: FormValues): readonly string[] {
  const field = part.selectionField;
  if (field === undefined) return [];
  const raw = own(values, field);
  if (raw === undefined) return [];
  const id = part.question.id;
  const multiple = part.question.allowMultiple;
  let chosen: readonly unknown[];
  if (multiple) {
    if (!Array.isArray(raw)) {
      throw formAnswerError(id, field, `must be an array of option ids, got ${describe(raw)}.`);
    }
    if (raw.length > part.titleById.size) {
      throw formAnswerError(
        id,
        field,
        `has ${raw.length} selections; at most ${part.titleById.size} can be chosen.`,
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
          : `must be one option id as a string, got ${describe(raw)}.`,
      );
    }
    chosen = [raw];
  }
  for (let i = 0; i < chosen.length; i++) {
    const optionId = chosen[i];
    if (typeof optionId !== 'string' || !part.titleById.has(optionId)) {
      throw formAnswerError(
        id,
        field,
        `has ${describe(optionId)}, which is not one of its options (option1..option${part.titleById.size}).`,
      );
    }
    if (chosen.indexOf(optionId) !== i) {
      throw formAnswerError(id, field, `chooses "${optionId}" twice.`);
    }
  }
  return chosen as readonly string[];
}

function readText(field: string | undefined, id: string, values: FormValues): string {
  if (field === undefined) return '';
  const text = own(values, field);
  if (text === undefined) return '';
  if (typeof text !== 'string') {
    throw formAnswerError(id, field, `must be a string, got ${describe(text)}.`);
  }
  return text;
}

function own(values: FormValues, field: string): unknown {
  return Object.hasOwn(values, field) ? values[field] : undefined;
}

// The validator names the question; find which one and add the field, so a client can point at
// it. Only the failure path pays for this.
function attribute(
  error: unknown,
  parts: readonly FormQuestionPlan[],
  answers: readonly AskUserQuestionAnswer[],
): unknown {
  if (!isUserInteractionError(error)) return error;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const answer = answers[i]!;
    if (answer.response === null) continue;
    try {
      validateAskUserAnswers([part.question], [answer]);
    } catch (single) {
      if (!isUserInteractionError(single)) return single;
      // Selections were checked field by field above, so what is left of a selection is its
      // comment; of a typed answer, its text.
      const field = answer.response.kind === 'freeform' ? part.textField : part.commentField;
      return new UserInteractionError(
        single.code,
        field === undefined ? single.message : `${single.message} (field "${field}")`,
        { ...single.data, questionId: part.question.id, ...(field === undefined ? {} : { field }) },
      );
    }
  }
  const modes = parts.map((part) => part.modeField).filter((field) => field !== undefined);
  return new UserInteractionError(error.code, `${error.message} (fields ${modes.join(', ')})`, {
    ...error.data,
    fields: modes,
  });
}
