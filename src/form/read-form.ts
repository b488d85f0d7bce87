/** Recognises a form built by `buildAskUserForm` and gives back its questions. */
import type { UiForm, UiFormField } from '../contracts/form.js';
import type { AskUserQuestion } from '../contracts/question.js';
import { buildAskUserForm, copyQuestion } from './build-form.js';
import { ASK_USER_FORM_HINT, CANCEL_ACTION_ID, SUBMIT_ACTION_ID } from './form-ids.js';

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
// immutable after they are built, like the questions they carry.
const reads = new WeakMap<object, readonly AskUserQuestion[] | null>();

/** Like `readAskUserForm`, without copying: the array is shared, never hand it out. */
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
  if (typeof data !== 'object' || data === null || !Array.isArray(data.questions)) return null;
  let expected: UiForm;
  try {
    // Rebuilding checks the questions, every limit, and gives the fields they must produce.
    expected = buildAskUserForm(data.questions as AskUserQuestion[]);
  } catch {
    return null;
  }
  if (!sameActions(form.actions) || !sameFields(form.fields, expected.fields)) return null;
  return (expected.hint!.data as { questions: AskUserQuestion[] }).questions;
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
// host may translate or restyle.
function sameFields(fields: unknown, expected: readonly UiFormField[]): boolean {
  if (!Array.isArray(fields) || fields.length !== expected.length) return false;
  return expected.every((want, index) => {
    const got = fields[index] as Partial<Record<string, unknown>> | null;
    if (typeof got !== 'object' || got === null) return false;
    if (got.id !== want.id || got.type !== want.type) return false;
    if (want.type === 'text')
      return got.multiline === want.multiline && got.maxBytes === want.maxBytes;
    if (want.type === 'multi-choice' && got.maxSelections !== want.maxSelections) return false;
    const options = got.options;
    return (
      Array.isArray(options) &&
      options.length === want.options.length &&
      want.options.every((option, at) => options[at]?.id === option.id)
    );
  });
}
