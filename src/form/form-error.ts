/** Errors of the form codec: which question, which field, what was wrong and the fix. */
import { UserInteractionError } from '../rules/errors.js';

/** An `INVALID_ANSWER` error naming the question and, where one applies, the field. */
export function formAnswerError(
  questionId: string | undefined,
  field: string | undefined,
  problem: string,
): UserInteractionError<{ questionId?: string; field?: string }> {
  const where =
    questionId === undefined
      ? 'Form answer'
      : field === undefined
        ? `Question "${questionId}"`
        : `Question "${questionId}", field "${field}"`;
  const data: { questionId?: string; field?: string } = {};
  if (questionId !== undefined) data.questionId = questionId;
  if (field !== undefined) data.field = field;
  return new UserInteractionError('INVALID_ANSWER', `${where}: ${problem}`, data);
}
