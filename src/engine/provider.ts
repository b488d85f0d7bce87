/** What a UI or a remote host implements to deliver questions to a person. */
import type { AskUserQuestionAnswer } from '../contracts/answer.js';
import type { ProviderOutcome } from '../contracts/outcome.js';
import type { AskUserRequest } from '../contracts/request.js';

export interface AskProviderContext {
  askId: string;
  toolCallId?: string;
  sessionId?: string;
  /** Aborted, with the cause as its reason, when the ask leaves `pending` for any reason. */
  signal: AbortSignal;
  /** Absolute time (ms since the epoch, on the service's clock) when the ask times out. */
  deadlineAt?: number;
  /**
   * Answers given so far, for progress updates; they are not the outcome. Checked like any
   * answer (questions may be missing, `null` marks one skipped so far): throws
   * `UserInteractionError` (`INVALID_ANSWER`) for answers that could never be given.
   */
  reportProgress(answers: AskUserQuestionAnswer[]): void;
}

export interface AskProvider {
  ask(request: AskUserRequest, ctx: AskProviderContext): Promise<ProviderOutcome>;
}
