/** What the MCP Apps form's server side and its view say to each other (browser-safe). */
import type * as AppsServer from '@modelcontextprotocol/ext-apps/server';
import type { AskUserQuestion } from '../contracts/question.js';

// The MCP Apps names, typed as the ext-apps SDK declares them (a literal type each), so the
// compiler holds them to the SDK's while the server needs no ext-apps install at run time: the
// view, the one part that runs the SDK, ships bundled.

/** The extension a client declares (in `capabilities.extensions`) when it renders MCP Apps. */
export const UI_EXTENSION_ID: typeof AppsServer.EXTENSION_ID = 'io.modelcontextprotocol/ui';
/** The MIME type of an MCP Apps resource. */
export const APP_MIME_TYPE: typeof AppsServer.RESOURCE_MIME_TYPE = 'text/html;profile=mcp-app';
/** The older flat `_meta` key naming a tool's resource, which hosts still read. */
export const RESOURCE_URI_META_KEY: typeof AppsServer.RESOURCE_URI_META_KEY = 'ui/resourceUri';

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
