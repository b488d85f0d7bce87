/** Reads an accepted elicitation reply back into answers: option values to titles, then the engine's checks. */
import type { AskUserQuestionAnswer, AskUserResponse } from '../contracts/answer.js';
import { editedInputOf } from '../form/edit-fields.js';
import { describe } from '../rules/describe.js';
import { UserInteractionError } from '../rules/errors.js';
import { validateAskUserAnswers } from '../rules/validate-answers.js';
import type { ElicitationForm, ElicitationQuestionFields } from './elicitation-schema.js';

export type ElicitationContent = Readonly<Record<string, unknown>>;

/**
 * Returns the answers in question order, selections as option titles, a wizard question left
 * empty as skipped (`response: null`). Throws `UserInteractionError` (`INVALID_ANSWER`, or
 * `LIMIT_EXCEEDED` for text over the byte limit) naming the question and what to change: both
 * an option and text on one question, no answer where one is needed, a comment without a
 * picked option, every wizard question skipped, a value the form did not offer.
 */
export function readElicitationContent(
  form: ElicitationForm,
  content: ElicitationContent,
): AskUserQuestionAnswer[] {
  const answers = form.fields.map(
    (fields): AskUserQuestionAnswer => ({
      questionId: fields.question.id,
      response: readResponse(form, fields, content),
    }),
  );
  // Sizes, empty text and "at least one wizard question" are the engine's own rules.
  return validateAskUserAnswers(
    form.fields.map((fields) => fields.question),
    answers,
  );
}

function readResponse(
  form: ElicitationForm,
  fields: ElicitationQuestionFields,
  content: ElicitationContent,
): AskUserResponse | null {
  const { question } = fields;
  const where = `Question "${question.id}" (${question.header})`;
  const selections = readSelections(fields, content, where);
  const text = readString(fields.text, content, where);
  const comment = readString(fields.comment, content, where);
  if (selections.length > 0 && text !== '') {
    throw invalid(`${where} has both a picked option and typed text; give one of them.`);
  }
  if (selections.length > 0) {
    const response: AskUserResponse =
      comment === ''
        ? { kind: 'selection', selections }
        : { kind: 'selection', selections, comment };
    const input = editedInputOf(question, fields.edits, content, selections);
    if (input !== undefined) response.input = input;
    return response;
  }
  if (comment !== '') {
    throw invalid(
      `${where} has a comment but no picked option; a comment goes with the options you pick.`,
    );
  }
  if (text !== '') return { kind: 'freeform', text };
  if (form.wizard) return null;
  throw invalid(
    `${where} has no answer; ${fields.selection === undefined ? 'type one' : fields.text === undefined ? 'pick an option' : 'pick an option or type an answer'}.`,
  );
}

function readSelections(
  fields: ElicitationQuestionFields,
  content: ElicitationContent,
  where: string,
): string[] {
  const raw = own(content, fields.selection);
  if (raw === undefined || raw === '') return [];
  const values: readonly unknown[] = Array.isArray(raw) ? raw : [raw];
  return values.map((value) => {
    const title = typeof value === 'string' ? fields.titleByValue.get(value) : undefined;
    if (title === undefined) {
      throw invalid(
        `${where} has ${describe(value)}, which is not one of the offered values (${[...fields.titleByValue.keys()].join(', ')}).`,
      );
    }
    return title;
  });
}

function readString(
  property: string | undefined,
  content: ElicitationContent,
  where: string,
): string {
  const raw = own(content, property);
  if (raw === undefined) return '';
  if (typeof raw !== 'string') {
    throw invalid(`${where} field "${property}" must be text, got ${describe(raw)}.`);
  }
  return raw;
}

function own(content: ElicitationContent, property: string | undefined): unknown {
  return property !== undefined && Object.hasOwn(content, property) ? content[property] : undefined;
}

function invalid(message: string): UserInteractionError {
  return new UserInteractionError('INVALID_ANSWER', message);
}
