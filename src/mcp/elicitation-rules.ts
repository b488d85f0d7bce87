/**
 * What both MCP eras decide the same way about an elicitation: which mode a client gets, what
 * a refusal means, what the person reads when an answer is sent back, and who answered.
 */
import type { ClientCapabilities } from '@modelcontextprotocol/server';
import type { AnsweredBy, ProviderOutcome } from '../contracts/outcome.js';
import type { AskUserQuestion } from '../contracts/question.js';
import { answeredByOrNothing } from '../rules/answered-by.js';
import { isUserInteractionError, type UserInteractionError } from '../rules/errors.js';
import { escapeMarkdown } from '../rules/escape-text.js';
import { type ElicitationForm, prefersAnswerPage } from './elicitation-schema.js';

/**
 * `cancelled` / `user` messages: the client's `decline` and `cancel` actions, kept apart.
 * `DECLINED` is the message when the person declined the elicitation.
 */
export const DECLINED = 'declined';
/** The `cancelled` / `user` message when the person dismissed the elicitation (`cancel`). */
export const DISMISSED = 'dismissed';

/** The elicitation modes a client declared. */
export interface ElicitationModes {
  form: boolean;
  url: boolean;
}

/** The modes in `capabilities`; the SDK reads an empty `elicitation: {}` (older clients) as form. */
export function elicitationModes(capabilities: ClientCapabilities | undefined): ElicitationModes {
  const elicitation = capabilities?.elicitation;
  if (elicitation === undefined) return { form: false, url: false };
  const empty = elicitation.form === undefined && elicitation.url === undefined;
  return { form: empty || elicitation.form !== undefined, url: elicitation.url !== undefined };
}

/**
 * Whether the ask goes to the answer page (URL mode) when a link is available: the client
 * declares URL elicitation and either cannot show forms or the ask has a question a flat form
 * expresses poorly (pick or type on one question).
 */
export function wantsAnswerPage(
  modes: ElicitationModes,
  questions: readonly AskUserQuestion[],
): boolean {
  return modes.url && (!modes.form || prefersAnswerPage(questions));
}

/** A client's `decline` or `cancel`: never an answer, least of all approval. */
export function refusalOutcome(action: 'decline' | 'cancel'): ProviderOutcome {
  return {
    status: 'cancelled',
    reason: 'user',
    message: action === 'decline' ? DECLINED : DISMISSED,
  };
}

/** An answer the engine refuses and the person may correct (sent back with the reason). */
export function isAnswerRefusal(error: unknown): error is UserInteractionError {
  return (
    isUserInteractionError(error, 'INVALID_ANSWER') ||
    isUserInteractionError(error, 'LIMIT_EXCEEDED')
  );
}

/** The form's message when it is sent again: why the last answer was not recorded, escaped. */
export function retryMessage(form: ElicitationForm, refusal: Error): string {
  return `Your answer was not recorded: ${escapeMarkdown(refusal.message)}\n\n${form.message}`;
}

/** The message of a URL-mode elicitation. */
export function answerPageMessage(form: ElicitationForm): string {
  return `${form.subject}\n\nAnswer on the page the link opens.`;
}

/**
 * The client as who answered: the name it gave (`clientInfo.name`), or nobody when it gave
 * none the byline rules accept; an answer is never refused for it.
 */
export function clientAnswerer(name: string | undefined): AnsweredBy | undefined {
  return name === undefined ? undefined : answeredByOrNothing({ recipient: name, channel: 'mcp' });
}
