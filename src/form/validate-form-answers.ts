/** Answer validation for the form codec: the engine's own rules, with errors that name a field. */
import type { AskUserQuestionAnswer } from '../contracts/answer.js';
import { isUserInteractionError, UserInteractionError } from '../rules/errors.js';
import { validateAskUserAnswers } from '../rules/validate-answers.js';
import type { FormPlan, FormQuestionPlan } from './form-plan.js';

/**
 * `validateAskUserAnswers` for answers given in question order, one per question of `plan`.
 * On failure it finds the question and field at fault, so a client can point at it; only the
 * failure path pays for that.
 */
export function validateFormAnswers(
  plan: FormPlan,
  answers: readonly AskUserQuestionAnswer[],
): AskUserQuestionAnswer[] {
  try {
    return validateAskUserAnswers(plan.questions, answers);
  } catch (error) {
    throw locate(error, plan, answers);
  }
}

function locate(
  error: unknown,
  plan: FormPlan,
  answers: readonly AskUserQuestionAnswer[],
): unknown {
  if (!isUserInteractionError(error)) return error;
  for (let i = 0; i < plan.parts.length; i++) {
    const part = plan.parts[i]!;
    const answer = answers[i]!;
    if (answer.response === null) continue;
    const single = failure(part, answer.response);
    if (single === undefined) continue;
    const field = faultyField(part, answer.response);
    return new UserInteractionError(
      single.code,
      field === undefined ? single.message : `${single.message} (field "${field}")`,
      { ...single.data, questionId: part.question.id, ...(field === undefined ? {} : { field }) },
    );
  }
  // No question fails alone: the set as a whole does (every wizard question skipped).
  const modes = plan.parts.map((part) => part.modeField).filter((field) => field !== undefined);
  return new UserInteractionError(error.code, `${error.message} (fields ${modes.join(', ')})`, {
    ...error.data,
    fields: modes,
  });
}

function failure(part: FormQuestionPlan, response: unknown): UserInteractionError | undefined {
  try {
    validateAskUserAnswers([part.question], [{ questionId: part.question.id, response }]);
    return undefined;
  } catch (error) {
    if (isUserInteractionError(error)) return error;
    throw error;
  }
}

function faultyField(part: FormQuestionPlan, response: unknown): string | undefined {
  const { kind } = (response ?? {}) as { kind?: unknown };
  if (kind === 'freeform') return part.textField ?? part.selectionField;
  if (kind !== 'selection') return undefined;
  // Without its comment the selection passes: the comment is at fault.
  const { comment: _comment, ...bare } = response as Record<string, unknown>;
  if (failure(part, bare) === undefined) return part.commentField;
  return part.selectionField ?? part.textField;
}
