/** Recognises a form built by `buildAskUserForm` and gives back its questions. */
import type { UiForm } from '../contracts/form.js';
import type { AskUserQuestion } from '../contracts/question.js';
import { MAX_ANSWER_BYTES } from '../rules/limits.js';
import { checkFormHintSize } from '../rules/question-rules.js';
import { copyQuestion } from './build-form.js';
import { ASK_USER_FORM_HINT, CANCEL_ACTION_ID, SUBMIT_ACTION_ID } from './form-ids.js';
import { type FormPlan, getFormPlan } from './form-plan.js';

/**
 * Returns the questions of an ask_user form, or `null` when the form is anything else: another
 * hint id, version `1`, invalid hint data, fields that do not match the questions, or actions
 * other than submit and cancel. On `null`, render the form generically from its fields.
 *
 * @example
 * const questions = readAskUserForm(form);
 * if (questions) renderWizard(questions); else renderGenericForm(form);
 */
export function readAskUserForm(form: UiForm): AskUserQuestion[] | null {
  const questions = readFormQuestions(form);
  return questions === null ? null : questions.map(copyQuestion);
}

// A form is read once; encoding answers for it again reuses the result. Forms are treated as
// immutable once built or received, like the questions they carry.
const reads = new WeakMap<object, readonly AskUserQuestion[] | null>();

/** Like `readAskUserForm`, without copying: the array is the form's own, never hand it out. */
export function readFormQuestions(form: UiForm): readonly AskUserQuestion[] | null {
  if (typeof form !== 'object' || form === null) return null;
  let questions = reads.get(form);
  if (questions === undefined) {
    questions = readUncached(form);
    reads.set(form, questions);
  }
  return questions;
}

function readUncached(form: UiForm): readonly AskUserQuestion[] | null {
  const { hint } = form;
  if (
    typeof hint !== 'object' ||
    hint === null ||
    hint.id !== ASK_USER_FORM_HINT.id ||
    hint.version !== ASK_USER_FORM_HINT.version
  ) {
    return null;
  }
  const data = hint.data as { questions?: unknown } | null;
  if (
    typeof data !== 'object' ||
    data === null ||
    !Array.isArray(data.questions) ||
    Object.keys(data).length !== 1
  ) {
    return null;
  }
  const questions = data.questions as AskUserQuestion[];
  let plan: FormPlan;
  try {
    // The same checks and limits as building the form.
    plan = getFormPlan(questions);
    checkFormHintSize(data);
  } catch {
    return null;
  }
  return sameActions(form.actions) && sameFields(form.fields, plan) ? questions : null;
}

function sameActions(actions: unknown): boolean {
  return (
    Array.isArray(actions) &&
    actions.length === 2 &&
    actions.some((action) => action?.id === SUBMIT_ACTION_ID && action.kind === 'submit') &&
    actions.some((action) => action?.id === CANCEL_ACTION_ID && action.kind === 'cancel')
  );
}

// Compares what decides the answer (ids, types, option ids, limits), not the wording, which a
// host may translate or restyle. The expected layout comes from the same plan the builder uses.
function sameFields(fields: unknown, plan: FormPlan): boolean {
  if (!Array.isArray(fields) || fields.length !== plan.fields.size) return false;
  let at = 0;
  const next = () => fields[at++] as Partial<Record<string, unknown>> | null | undefined;
  const isText = (id: string) => {
    const got = next();
    return (
      got?.id === id &&
      got.type === 'text' &&
      got.multiline === true &&
      got.maxBytes === MAX_ANSWER_BYTES
    );
  };
  const isChoice = (id: string, type: string, optionIds: Iterable<string>) => {
    const got = next();
    if (got?.id !== id || got.type !== type || !Array.isArray(got.options)) return false;
    const options = got.options as unknown[];
    let index = 0;
    for (const optionId of optionIds) {
      if ((options[index++] as { id?: unknown } | undefined)?.id !== optionId) return false;
    }
    return index === options.length;
  };
  for (const part of plan.parts) {
    if (part.modeField !== undefined && !isChoice(part.modeField, 'choice', part.modes))
      return false;
    if (part.selectionField !== undefined) {
      const multiple = part.question.allowMultiple;
      const type = multiple ? 'multi-choice' : 'choice';
      if (!isChoice(part.selectionField, type, part.optionIds)) return false;
      const got = fields[at - 1] as { maxSelections?: unknown };
      if (multiple && got.maxSelections !== part.optionIds.length) return false;
    }
    if (part.textField !== undefined && !isText(part.textField)) return false;
    if (part.commentField !== undefined && !isText(part.commentField)) return false;
    for (const edit of part.editFields) {
      const got = next();
      const type = edit.kind === 'boolean' || edit.kind === 'enum' ? 'choice' : 'text';
      if (got?.id !== edit.id || got.type !== type) return false;
    }
  }
  return true;
}
