/** Turns a person's answers into the values of an ask_user form, for a client to send back. */
import type { AskUserQuestionAnswer } from '../contracts/answer.js';
import type { UiForm, UiFormAnswer } from '../contracts/form.js';
import { describe } from '../describe.js';
import { decodeAskUserFormAnswer } from './decode-answer.js';
import { formAnswerError } from './form-error.js';
import { CANCEL_ACTION_ID, SUBMIT_ACTION_ID } from './form-ids.js';
import { type FormQuestionPlan, getFormPlan } from './form-plan.js';
import { readFormQuestions } from './read-form.js';

/**
 * Encodes answers for an ask_user form: option titles (matched ignoring case) become option
 * ids, a wizard question left out becomes an explicit skip, and `null` becomes the cancel action.
 * The result is checked against the form exactly as the decoder will check it, so a client never
 * sends what the engine would refuse. Throws `UserInteractionError` (`INVALID_ANSWER`,
 * `LIMIT_EXCEEDED`) naming the question and field.
 *
 * @example
 * const reply = encodeAskUserFormAnswer(form, [{ questionId: 'q1', response: { kind: 'selection', selections: ['Yes'] } }]);
 */
export function encodeAskUserFormAnswer(
  form: UiForm,
  answers: readonly AskUserQuestionAnswer[] | null,
): UiFormAnswer {
  const questions = readFormQuestions(form);
  if (questions === null) {
    throw formAnswerError(
      undefined,
      undefined,
      'this form is not an ask_user form (readAskUserForm returns null); answer it with its own field ids.',
    );
  }
  if (answers === null) return { action: CANCEL_ACTION_ID, values: {} };
  if (!Array.isArray(answers)) {
    throw formAnswerError(
      undefined,
      undefined,
      `expected an array of answers or null, got ${describe(answers)}.`,
    );
  }
  const plan = getFormPlan(questions);
  const byId = new Map<string, unknown>();
  answers.forEach((entry: unknown, index) => {
    const questionId = (entry as { questionId?: unknown } | null)?.questionId;
    if (typeof entry !== 'object' || entry === null || typeof questionId !== 'string') {
      throw formAnswerError(
        undefined,
        undefined,
        `answer ${index + 1} must be { questionId, response }, got ${describe(entry)}.`,
      );
    }
    if (!plan.parts.some((part) => part.question.id === questionId)) {
      throw formAnswerError(
        questionId,
        undefined,
        `is not a question of this form; its questions are ${plan.parts.map((part) => `"${part.question.id}"`).join(', ')}.`,
      );
    }
    if (byId.has(questionId)) {
      throw formAnswerError(
        questionId,
        undefined,
        'is answered twice; send one answer per question.',
      );
    }
    byId.set(questionId, (entry as { response?: unknown }).response);
  });

  const values: Record<string, string | string[]> = {};
  for (const part of plan.parts) {
    const response = byId.has(part.question.id) ? byId.get(part.question.id) : undefined;
    if (response === undefined || response === null) {
      if (!plan.wizard) {
        throw formAnswerError(
          part.question.id,
          undefined,
          response === null
            ? 'was skipped, but only a question of a wizard can be skipped; encode null to cancel instead.'
            : 'has no answer; answer it, or encode null to cancel.',
        );
      }
      values[part.modeField!] = 'skip';
      continue;
    }
    encodeResponse(part, response, values);
  }
  const encoded: UiFormAnswer = { action: SUBMIT_ACTION_ID, values };
  // The decoder's checks are the form's checks: empty text, sizes, at least one answered.
  decodeAskUserFormAnswer(questions, encoded);
  return encoded;
}

function encodeResponse(
  part: FormQuestionPlan,
  response: unknown,
  values: Record<string, string | string[]>,
): void {
  const id = part.question.id;
  if (typeof response !== 'object' || Array.isArray(response)) {
    throw formAnswerError(
      id,
      undefined,
      `has a response that is not an object, got ${describe(response)}.`,
    );
  }
  const { kind } = response as { kind?: unknown };
  if (kind === 'freeform') {
    onlyKeys(part, response as object, ['kind', 'text'], part.textField);
    const { text } = response as { text?: unknown };
    if (part.textField === undefined) {
      throw formAnswerError(
        id,
        part.selectionField,
        'does not allow a typed answer; pick one of its options.',
      );
    }
    if (typeof text !== 'string') {
      throw formAnswerError(id, part.textField, `needs text as a string, got ${describe(text)}.`);
    }
    if (part.modeField !== undefined) values[part.modeField] = 'text';
    values[part.textField] = text;
    return;
  }
  if (kind !== 'selection') {
    throw formAnswerError(
      id,
      undefined,
      `has response kind ${describe(kind)}; expected "selection" or "freeform".`,
    );
  }
  onlyKeys(part, response as object, ['kind', 'selections', 'comment'], part.selectionField);
  const { selections, comment } = response as { selections?: unknown; comment?: unknown };
  const field = part.selectionField;
  if (field === undefined) {
    throw formAnswerError(
      id,
      part.textField,
      'has no options, so it takes a typed answer, not a selection.',
    );
  }
  if (!Array.isArray(selections) || selections.length === 0) {
    throw formAnswerError(
      id,
      field,
      'has no selections; pick at least one option or skip the question.',
    );
  }
  if (!part.question.allowMultiple && selections.length > 1) {
    throw formAnswerError(id, field, `allows one selection, got ${selections.length}.`);
  }
  const optionIds: string[] = [];
  for (const selection of selections as unknown[]) {
    const optionId =
      typeof selection === 'string' ? part.idByTitle.get(selection.toLowerCase()) : undefined;
    if (optionId === undefined) {
      throw formAnswerError(
        id,
        field,
        `has selection ${describe(selection)}, which is not one of its option titles (${part.question.options.map((o) => JSON.stringify(o.title)).join(', ')}).`,
      );
    }
    if (optionIds.includes(optionId)) {
      throw formAnswerError(
        id,
        field,
        `selects ${JSON.stringify(part.titleById.get(optionId))} twice.`,
      );
    }
    optionIds.push(optionId);
  }
  if (part.modeField !== undefined) values[part.modeField] = 'choice';
  values[field] = part.question.allowMultiple ? optionIds : optionIds[0]!;
  if (comment === undefined) return;
  if (part.commentField === undefined) {
    throw formAnswerError(id, undefined, 'does not allow a comment; leave the comment out.');
  }
  if (typeof comment !== 'string') {
    throw formAnswerError(
      id,
      part.commentField,
      `needs the comment as a string, got ${describe(comment)}.`,
    );
  }
  if (comment === '') {
    // The decoder reads an empty comment field as "no comment", which is not what was sent.
    throw formAnswerError(
      id,
      part.commentField,
      'has an empty comment; leave the comment out instead.',
    );
  }
  values[part.commentField] = comment;
}

// A response carrying fields of the other kind (text on a selection, say) is two conflicting
// answers; refuse it rather than pick one.
function onlyKeys(
  part: FormQuestionPlan,
  response: object,
  allowed: readonly string[],
  field: string | undefined,
): void {
  for (const key of Object.keys(response)) {
    if (!allowed.includes(key)) {
      throw formAnswerError(
        part.question.id,
        field,
        `has response field "${key}", which conflicts with kind "${(response as { kind: string }).kind}"; allowed: ${allowed.join(', ')}.`,
      );
    }
  }
}
