/** Answer validation for the form codec: the engine's own rules, with errors that name a field. */
import type { AskUserQuestionAnswer } from '../contracts/answer.js';
import { isUserInteractionError, UserInteractionError } from '../rules/errors.js';
import { type AnswerErrorData, everySkipped, validateResponse } from '../rules/validate-answers.js';
import type { FormPlan, FormQuestionPlan } from './form-plan.js';

/**
 * The rules of `validateAskUserAnswers` for answers given in question order, one per question
 * of `plan` (the codec has already placed them). Each response is validated once; the error of
 * the one that fails already says which part was wrong, so the field at fault is named without
 * validating anything again.
 */
export function validateFormAnswers(
  plan: FormPlan,
  answers: readonly AskUserQuestionAnswer[],
  quote: boolean,
): AskUserQuestionAnswer[] {
  const valid: AskUserQuestionAnswer[] = new Array(plan.parts.length);
  let answered = 0;
  for (let i = 0; i < plan.parts.length; i++) {
    const part = plan.parts[i]!;
    const questionId = part.question.id;
    const response = answers[i]!.response;
    if (response === null) {
      valid[i] = { questionId, response: null };
      continue;
    }
    try {
      valid[i] = { questionId, response: validateResponse(part.question, response, quote) };
    } catch (error) {
      throw locate(error, part);
    }
    answered++;
  }
  if (answered === 0) {
    // No question fails alone: the set as a whole does.
    const error = everySkipped();
    const fields = plan.parts.map((part) => part.modeField).filter((field) => field !== undefined);
    throw new UserInteractionError(error.code, `${error.message} (fields ${fields.join(', ')})`, {
      fields,
    });
  }
  return valid;
}

/** The edit field of the top-level property a JSON Pointer starts at, else the first. */
function editFieldAt(part: FormQuestionPlan, path: string): string | undefined {
  const name = path.split('/')[1]?.replace(/~1/g, '/').replace(/~0/g, '~');
  return (part.editFields.find((edit) => edit.name === name) ?? part.editFields[0])?.id;
}

function locate(error: unknown, part: FormQuestionPlan): unknown {
  if (!isUserInteractionError(error)) return error;
  const data = error.data as Partial<AnswerErrorData>;
  let field: string | undefined;
  switch (data.part) {
    case 'selection':
      field = part.selectionField ?? part.textField;
      break;
    case 'text':
      field = part.textField ?? part.selectionField;
      break;
    case 'comment':
      field = part.commentField;
      break;
    case 'input':
      field = editFieldAt(part, typeof data.path === 'string' ? data.path : '');
      break;
    default:
      field = undefined;
  }
  return new UserInteractionError(
    error.code,
    field === undefined ? error.message : `${error.message} (field "${field}")`,
    { ...error.data, questionId: part.question.id, ...(field === undefined ? {} : { field }) },
  );
}
