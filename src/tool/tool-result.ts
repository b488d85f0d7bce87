/** Turns an ask's outcome into the ask_user tool's result: plain text for the model, and details. */
import type { AskUserQuestionAnswer, AskUserResponse } from '../contracts/answer.js';
import type { AnsweredBy, AskCancelReason, AskOutcome, AskStatus } from '../contracts/outcome.js';
import type { AskUserQuestion } from '../contracts/question.js';
import type { UserInteractionError, UserInteractionErrorCode } from '../rules/errors.js';

/** What the tool result carries besides its text: enough for a UI or a log to show the ask. */
export interface AskUserToolDetails {
  /** The ask's outcome, or `invalid` when the input was refused before anything was asked. */
  status: AskStatus | 'invalid';
  /** The normalized questions; `[]` when the input was refused. */
  questions: AskUserQuestion[];
  /** The validated answers (`response: null` = skipped); `[]` unless answered. */
  answers: AskUserQuestionAnswer[];
  /** For `answered`: who answered, when the surface they answered on knows. */
  answeredBy?: AnsweredBy;
  toolCallId: string;
  /** The service's id for this ask; absent when the input was refused. */
  askId?: string;
  /** For `deferred`: the id the answer will come back under (`service.resume`). */
  interactionId?: string;
  /** For `cancelled`. */
  reason?: AskCancelReason;
  /** The provider's or the cause's own text, when there is one. */
  message?: string;
  /** For `timedOut`: when the deadline passed (ms since the epoch, on the service's clock). */
  deadlineAt?: number;
  /** For `invalid` (and a refused start): the error's code and message. */
  error?: { code: UserInteractionErrorCode; message: string };
  /** What a host callback (`onUpdate`) threw while the ask went on, one message each. */
  callbackErrors?: string[];
}

/** What `onUpdate` receives while the person is answering a wizard. */
export interface AskUserToolProgressDetails {
  status: 'pending';
  askId: string;
  toolCallId: string;
  answered: number;
  total: number;
}

/**
 * What the tool returns to the agent loop: one text block for the model, structured `details`
 * for the host, and `isError` when the call failed.
 */
export interface AskUserToolResult<TDetails = AskUserToolDetails> {
  /** The text the model reads: what was chosen, or plainly that nothing was. */
  content: [{ type: 'text'; text: string }];
  /** The same outcome as data, for the host's UI and logs; the model is given only the text. */
  details: TDetails;
  /**
   * True when the call failed: the request was refused, the ask was aborted, or it was cancelled
   * for any reason but the person's own (`user`). Absent otherwise; a timeout is not an error.
   */
  isError?: boolean;
}

/**
 * The result for an ask that reached an outcome. Every outcome but an answer says plainly that
 * nothing was chosen, so a model never reads a timeout or a dismissal as consent.
 *
 * @example
 * formatAskUserToolResult(questions, { status: 'timedOut', deadlineAt }, { toolCallId, askId });
 */
export function formatAskUserToolResult(
  questions: AskUserQuestion[],
  outcome: AskOutcome,
  ids: { toolCallId: string; askId: string; timeoutMs?: number | undefined },
): AskUserToolResult {
  const details: AskUserToolDetails = {
    status: outcome.status,
    questions,
    answers: [],
    toolCallId: ids.toolCallId,
    askId: ids.askId,
  };
  switch (outcome.status) {
    case 'answered':
      details.answers = outcome.answers;
      if (outcome.answeredBy !== undefined) details.answeredBy = outcome.answeredBy;
      return result(answeredText(questions, outcome.answers), details, false);
    case 'cancelled': {
      details.reason = outcome.reason;
      if (outcome.message !== undefined) details.message = outcome.message;
      // A person saying "not now" is an answer about the question, not a failure of the tool.
      return result(
        cancelledText(outcome.reason, outcome.message),
        details,
        outcome.reason !== 'user',
      );
    }
    case 'deferred':
      details.interactionId = outcome.interactionId;
      if (outcome.message !== undefined) details.message = outcome.message;
      return result(
        `The question was handed to the user to answer later (interaction id: ${outcome.interactionId}).${note(outcome.message)} Nothing has been chosen yet. End your turn now and wait for the user's next message; do not guess the answer or act on this decision until it arrives.`,
        details,
        false,
      );
    case 'timedOut':
      details.deadlineAt = outcome.deadlineAt;
      // Not an error: the call worked and the person did not reply in time. `isError` tells a
      // model its call was wrong; here the honest text is what keeps it from guessing.
      return result(
        `No answer was given: the question timed out${ids.timeoutMs === undefined ? '' : ` after ${formatDuration(ids.timeoutMs)}`} and nothing was chosen. Do not pick an option yourself or read the silence as consent; continue without this decision if that is safe, otherwise stop and say what you need from the user.`,
        details,
        false,
      );
    case 'aborted':
      details.message = outcome.message;
      // The call was interrupted, not completed: an error, like any aborted tool call.
      return result(
        `The question was withdrawn before the user answered (${outcome.message}); nothing was chosen.`,
        details,
        true,
      );
  }
}

/** The result for input refused before anything was asked: an error the model can fix. */
export function formatAskUserToolError(
  error: UserInteractionError,
  toolCallId: string,
  questions: AskUserQuestion[] = [],
): AskUserToolResult {
  const fix =
    error.code === 'NO_PROVIDER'
      ? ' Nobody can be asked right now; continue without asking or tell the user in your reply.'
      : ' Fix the arguments and call ask_user again.';
  return result(
    `ask_user refused the call (${error.code}): ${error.message}${fix}`,
    {
      status: 'invalid',
      questions,
      answers: [],
      toolCallId,
      error: { code: error.code, message: error.message },
    },
    true,
  );
}

/** The progress update sent while a wizard is being answered: `k/N answered`. */
export function formatAskUserToolProgress(
  progress: Omit<AskUserToolProgressDetails, 'status'>,
): AskUserToolResult<AskUserToolProgressDetails> {
  return {
    content: [{ type: 'text', text: `${progress.answered}/${progress.total} answered` }],
    details: { status: 'pending', ...progress },
  };
}

function answeredText(
  questions: readonly AskUserQuestion[],
  answers: readonly AskUserQuestionAnswer[],
): string {
  const byId = new Map<string, AskUserResponse | null>();
  for (const answer of answers) byId.set(answer.questionId, answer.response);
  const lines: string[] = [];
  if (questions.length === 1) lines.push('The user answered.');
  else {
    const answered = answers.filter((answer) => answer.response !== null).length;
    lines.push(`The user answered ${answered} of ${questions.length} questions.`);
  }
  for (const question of questions) {
    lines.push('', `${question.header}: ${question.question}`);
    const response = byId.get(question.id) ?? null;
    if (response === null) {
      lines.push('Skipped: the user gave no answer to this question; nothing was chosen.');
    } else if (response.kind === 'freeform') {
      lines.push(`Typed answer: ${quote(response.text)}`);
    } else {
      lines.push(`Selected: ${response.selections.map(quote).join(', ')}`);
      if (question.intent?.kind === 'plan-review') {
        lines.push(
          response.selections.includes(question.intent.approve)
            ? 'The plan is approved.'
            : 'The plan is NOT approved.',
        );
      }
      if (response.comment !== undefined) lines.push(`Comment: ${quote(response.comment)}`);
    }
  }
  return lines.join('\n');
}

function cancelledText(reason: AskCancelReason, message: string | undefined): string {
  switch (reason) {
    case 'user':
      return `The user dismissed the question without answering.${note(message)} Nothing was chosen; do not assume an answer. Continue without it, or ask differently if the decision still matters.`;
    case 'unavailable':
      return `Nobody could be asked: no way to reach the user is available.${note(message)} Nothing was chosen; do not assume an answer.`;
    case 'invalid-answer':
      return `The answer that came back was refused as invalid${because(message)} Nothing was chosen; do not assume an answer.`;
    case 'provider-error':
      return `Asking the user failed${because(message)} Nothing was chosen; do not assume an answer.`;
    case 'no-quorum':
      return `The approvers did not agree: everyone who may respond has responded without reaching the required number of matching answers.${note(message)} Nothing was decided; do not assume an answer.`;
  }
}

// Text the person typed or a provider wrote is quoted as JSON: newlines, quotes and control
// characters stay visible and cannot pose as the tool's own words.
function quote(text: string): string {
  return JSON.stringify(text);
}

function because(message: string | undefined): string {
  if (message === undefined || message === '') return '.';
  return /[.!?]$/.test(message) ? `: ${message}` : `: ${message}.`;
}

function note(message: string | undefined): string {
  return message === undefined ? '' : ` Message: ${quote(message)}.`;
}

function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const seconds = ms / 1000;
  if (seconds < 120) return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
  const minutes = seconds / 60;
  return `${Number.isInteger(minutes) ? minutes : minutes.toFixed(1)} min`;
}

function result<T>(text: string, details: T, isError: boolean): AskUserToolResult<T> {
  return isError
    ? { content: [{ type: 'text', text }], details, isError: true }
    : { content: [{ type: 'text', text }], details };
}
