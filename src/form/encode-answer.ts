/** Turns a person's answers into the values of an ask_user form, for a client to send back. */
import type { AskUserQuestionAnswer, AskUserResponse } from '../contracts/answer.js';
import type { UiForm, UiFormAnswer } from '../contracts/form.js';
import { describe } from '../rules/describe.js';
import { encodeEditedInput } from './edit-fields.js';
import { formAnswerError } from './form-error.js';
import { CANCEL_ACTION_ID, SUBMIT_ACTION_ID } from './form-ids.js';
import { getFormPlan } from './form-plan.js';
import { readFormQuestions } from './read-form.js';
import { validateFormAnswers } from './validate-form-answers.js';

/**
 * Encodes answers for an ask_user form: option titles (matched as people see them) become option
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

  // Question order, a wizard question left out made an explicit skip; the validator then
  // applies every answer rule, so what is encoded is what the decoder will accept.
  const ordered = plan.parts.map((part): AskUserQuestionAnswer => {
    const questionId = part.question.id;
    if (!byId.has(questionId)) {
      if (plan.wizard) return { questionId, response: null };
      throw formAnswerError(
        questionId,
        undefined,
        'has no answer; answer it, or encode null to cancel.',
      );
    }
    const response = byId.get(questionId) as AskUserResponse | null;
    if (response === null && !plan.wizard) {
      throw formAnswerError(
        questionId,
        undefined,
        'was skipped, but only a question of a wizard can be skipped; encode null to cancel instead.',
      );
    }
    return { questionId, response };
  });
  const valid = validateFormAnswers(plan, ordered, true);
  const values: Record<string, string | string[]> = {};
  for (let i = 0; i < valid.length; i++) {
    const part = plan.parts[i]!;
    const response = valid[i]!.response;
    if (response === null) {
      values[part.modeField!] = 'skip';
    } else if (response.kind === 'freeform') {
      if (part.modeField !== undefined) values[part.modeField] = 'text';
      values[part.textField!] = response.text;
    } else {
      if (part.modeField !== undefined) values[part.modeField] = 'choice';
      // The validator returned every selection in its option's own spelling.
      const { selections } = response;
      if (part.question.allowMultiple) {
        const ids: string[] = new Array(selections.length);
        for (let at = 0; at < selections.length; at++)
          ids[at] = part.idByTitle.get(selections[at]!)!;
        values[part.selectionField!] = ids;
      } else {
        values[part.selectionField!] = part.idByTitle.get(selections[0]!)!;
      }
      if (response.comment !== undefined) values[part.commentField!] = response.comment;
      const { intent } = part.question;
      if (intent?.kind === 'tool-approval' && part.editFields.length > 0) {
        Object.assign(values, encodeEditedInput(part.editFields, response.input ?? intent.input));
      }
    }
  }
  return { action: SUBMIT_ACTION_ID, values };
}
