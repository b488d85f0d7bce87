/** Errors of the form codec: which question, which field, what was wrong and the fix. */
import { UserInteractionError, type UserInteractionErrorCode } from '../errors.js';

export interface FormErrorData extends Record<string, unknown> {
  questionId?: string;
  field?: string;
}

/** An `INVALID_ANSWER` error naming the question and, where one applies, the field. */
export function formAnswerError(
  questionId: string | undefined,
  field: string | undefined,
  problem: string,
  code: UserInteractionErrorCode = 'INVALID_ANSWER',
  extra: Record<string, unknown> = {},
): UserInteractionError<FormErrorData> {
  const where =
    questionId === undefined
      ? 'Form answer'
      : field === undefined
        ? `Question "${questionId}"`
        : `Question "${questionId}", field "${field}"`;
  const data: FormErrorData = { ...extra };
  if (questionId !== undefined) data.questionId = questionId;
  if (field !== undefined) data.field = field;
  return new UserInteractionError(code, `${where}: ${problem}`, data);
}
