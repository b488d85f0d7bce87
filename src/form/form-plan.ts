/** Which fields each question gets in the ask_user form, worked out once per questions array. */
import { Value } from '@sinclair/typebox/value';
import { type AskUserQuestion, AskUserQuestionSchema } from '../contracts/question.js';
import { describe } from '../rules/describe.js';
import { UserInteractionError } from '../rules/errors.js';
import { MAX_MULTI_SELECT_OPTIONS, MAX_QUESTIONS } from '../rules/limits.js';
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
 * Throws `UserInteractionError`: `EMPTY_QUESTIONS`, `TOO_MANY_QUESTIONS`, `INVALID_REQUEST`
 * (not normalized questions), or `LIMIT_EXCEEDED` (a multi-select over the option limit).
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
  checkQuestions(questions);
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
    };
    for (const part of ['mode', 'selection', 'text', 'comment'] as const) {
      const field = plan[`${part}Field`];
      if (field !== undefined) fields.set(field, { plan, part });
    }
    return plan;
  });
  return { questions, wizard, parts, fields };
}

function checkQuestions(questions: readonly AskUserQuestion[]): void {
  if (!Array.isArray(questions) || questions.length === 0) {
    throw new UserInteractionError(
      'EMPTY_QUESTIONS',
      `A form needs at least one question, got ${describe(questions)}.`,
    );
  }
  if (questions.length > MAX_QUESTIONS) {
    throw new UserInteractionError(
      'TOO_MANY_QUESTIONS',
      `A form holds at most ${MAX_QUESTIONS} questions, got ${questions.length}; ask the rest in another call.`,
      { limit: MAX_QUESTIONS, actual: questions.length },
    );
  }
  const ids = new Set<string>();
  questions.forEach((question: unknown, index) => {
    if (!Value.Check(AskUserQuestionSchema, question)) {
      const error = Value.Errors(AskUserQuestionSchema, question).First();
      throw new UserInteractionError(
        'INVALID_REQUEST',
        `Question ${index + 1} is not a normalized question: ${error?.path || '/'} ${error?.message ?? ''}; pass it through the normalizer first.`,
        { position: index + 1 },
      );
    }
    const { id, options, allowFreeform, allowMultiple } = question as AskUserQuestion;
    if (ids.has(id)) {
      throw new UserInteractionError(
        'INVALID_REQUEST',
        `Question id "${id}" is used twice; give every question its own id.`,
        { questionId: id },
      );
    }
    ids.add(id);
    if (options.length === 0 && !allowFreeform) {
      throw new UserInteractionError(
        'INVALID_REQUEST',
        `Question "${id}" has no options and does not allow a typed answer; set allowFreeform: true.`,
        { questionId: id },
      );
    }
    // Titles are matched case-insensitively, so two that differ only in case would let an
    // answer land on the wrong option.
    const titles = new Set<string>();
    for (const option of options) {
      const key = option.title.toLowerCase();
      if (titles.has(key)) {
        throw new UserInteractionError(
          'INVALID_REQUEST',
          `Question "${id}" has option ${JSON.stringify(option.title)} twice (titles are compared ignoring case); make every title distinct.`,
          { questionId: id },
        );
      }
      titles.add(key);
    }
    if (allowMultiple && options.length > MAX_MULTI_SELECT_OPTIONS) {
      throw new UserInteractionError(
        'LIMIT_EXCEEDED',
        `Question "${id}" lets the person pick several of ${options.length} options; the limit is ${MAX_MULTI_SELECT_OPTIONS}. Split it into several questions.`,
        { questionId: id, limit: MAX_MULTI_SELECT_OPTIONS, actual: options.length },
      );
    }
  });
}
