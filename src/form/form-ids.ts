/** The names the ask_user form is made of: hint, field ids, mode values, option ids, actions. */

/** Marks a form built by `buildAskUserForm`; its `data` is `{ questions }`. */
export const ASK_USER_FORM_HINT = Object.freeze({ id: 'ask-user.wizard', version: '2' } as const);

export const SUBMIT_ACTION_ID = 'submit';
export const CANCEL_ACTION_ID = 'cancel';

/** The values of a `q<n>.mode` field: pick options, type an answer, or skip (wizards only). */
export type AskUserFormMode = 'choice' | 'text' | 'skip';

/** `edit`: one of a tool approval's edit fields (`q<n>.edit<k>`, see edit-fields.ts). */
export type AskUserFormPart = 'mode' | 'selection' | 'text' | 'comment' | 'edit';

/** `q<n>.<part>`, where n is the question's 1-based position (not its id). */
export function formFieldId(position: number, part: AskUserFormPart): string {
  return `q${position}.${part}`;
}

/** `option<n>` for the option at 1-based position n. */
export function formOptionId(position: number): string {
  return `option${position}`;
}
