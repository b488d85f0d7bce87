/** What the MCP Apps form's server side and its view say to each other (browser-safe). */
import type { AskUserQuestion } from '../contracts/question.js';

/** The `ui://` resource of the form, named in `ask_user`'s `_meta.ui.resourceUri`. */
export const ASK_USER_APP_URI = 'ui://ask-engine/ask-user-form.html';

/** The app-only tool the form answers through. */
export const ANSWER_TOOL = 'ask_user_answer';

/**
 * Where an `ask_user` result served to an Apps host carries the form's data: in `_meta`, which
 * the host hands to the view, not in `content`, which the model reads.
 */
export const APP_FORM_META_KEY = 'ask-engine/app-form';

/** The ask a view renders, and the token that lets it answer exactly that ask. */
export interface AppFormData {
  askId: string;
  /** An answer-link token for `askId` (HMAC, expires no later than the deadline). */
  token: string;
  questions: AskUserQuestion[];
  agent?: string;
  deadlineAt?: number;
}

/** What `ask_user_answer` answers, as its `structuredContent`. */
export type AppAnswerOutcome =
  /** The ask ended through this form; `result` is what `ask_user` would have told the model. */
  | { status: 'settled'; title: string; message: string; result: string }
  /** The answer was not accepted; the person can correct it and send again. */
  | { status: 'refused'; message: string }
  /** Nothing can be answered through this form any more (settled elsewhere, expired, forged). */
  | { status: 'closed'; message: string };
