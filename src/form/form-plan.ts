/** Which fields each question gets in the ask_user form, worked out once per questions array. */
import type { AskUserQuestion } from '../contracts/question.js';
import { checkNormalizedQuestions } from '../rules/question-rules.js';
import { type EditFieldPlan, planEditFields } from './edit-fields.js';
import {
  type AskUserFormMode,
  type AskUserFormPart,
  formFieldId,
  formOptionId,
} from './form-ids.js';

export interface FormQuestionPlan {
  readonly question: AskUserQuestion;
  /** 1-based position: the `n` of `q<n>.*`. */
  readonly position: number;
  /** The values of `q<n>.mode`; empty when the question has no mode field. */
  readonly modes: readonly AskUserFormMode[];
  readonly modeField: string | undefined;
  readonly selectionField: string | undefined;
  readonly textField: string | undefined;
  readonly commentField: string | undefined;
  /** `option1`..`optionN`, in option order. */
  readonly optionIds: readonly string[];
  /** Option id to the option's 0-based index. */
  readonly indexById: ReadonlyMap<string, number>;
  /** Option title, exactly as spelled, to its option id. */
  readonly idByTitle: ReadonlyMap<string, string>;
  /** A tool approval that allows edits: its edit fields, after the comment. */
  readonly editFields: readonly EditFieldPlan[];
}

export interface FormPlan {
  readonly questions: readonly AskUserQuestion[];
  readonly wizard: boolean;
  readonly parts: readonly FormQuestionPlan[];
  /** Every field id of the form, to the question it belongs to and its part. */
  readonly fields: ReadonlyMap<string, { plan: FormQuestionPlan; part: AskUserFormPart }>;
}

// Questions are treated as immutable once asked (the engine never edits them), so a plan is
// computed once per array and reused by every encode and decode of that ask.
const plans = new WeakMap<readonly AskUserQuestion[], FormPlan>();

/**
 * Returns the field layout for these questions, checking they can become a form at all.
 * Throws `UserInteractionError` where the questions break a rule of `question-rules`:
 * `EMPTY_QUESTIONS`, `TOO_MANY_QUESTIONS`, `INVALID_REQUEST`, `BAD_INTENT`, `LIMIT_EXCEEDED`.
 */
export function getFormPlan(questions: readonly AskUserQuestion[]): FormPlan {
  let plan = plans.get(questions);
  if (plan === undefined) {
    plan = compileFormPlan(questions);
    plans.set(questions, plan);
  }
  return plan;
}

function compileFormPlan(questions: readonly AskUserQuestion[]): FormPlan {
  // The same rules the normalizer applies: a client's hint data is checked like a model's input.
  checkNormalizedQuestions(questions);
  const wizard = questions.length > 1;
  const fields = new Map<string, { plan: FormQuestionPlan; part: AskUserFormPart }>();
  const parts = questions.map((question, index) => {
    const position = index + 1;
    const hasOptions = question.options.length > 0;
    const modes: AskUserFormMode[] = [];
    // A mode field only where more than one kind of answer is possible.
    if ((hasOptions && question.allowFreeform) || wizard) {
      if (hasOptions) modes.push('choice');
      if (question.allowFreeform) modes.push('text');
      if (wizard) modes.push('skip');
    }
    const optionIds = question.options.map((_, at) => formOptionId(at + 1));
    const indexById = new Map(optionIds.map((id, at) => [id, at]));
    const idByTitle = new Map(question.options.map((option, at) => [option.title, optionIds[at]!]));
    const plan: FormQuestionPlan = {
      question,
      position,
      modes,
      modeField: modes.length > 0 ? formFieldId(position, 'mode') : undefined,
      selectionField: hasOptions ? formFieldId(position, 'selection') : undefined,
      textField: question.allowFreeform ? formFieldId(position, 'text') : undefined,
      commentField:
        hasOptions && question.allowComment ? formFieldId(position, 'comment') : undefined,
      optionIds,
      indexById,
      idByTitle,
      editFields:
        question.intent?.kind === 'tool-approval' ? planEditFields(position, question.intent) : [],
    };
    for (const part of ['mode', 'selection', 'text', 'comment'] as const) {
      const field = plan[`${part}Field`];
      if (field !== undefined) fields.set(field, { plan, part });
    }
    for (const edit of plan.editFields) fields.set(edit.id, { plan, part: 'edit' });
    return plan;
  });
  return { questions, wizard, parts, fields };
}
