/** What a UI or a remote host implements to deliver questions to a person. */

import type { AskUserQuestionAnswer } from '../contracts/answer.js';
import type { ProviderOutcome } from '../contracts/outcome.js';
import type { AskUserRequest } from '../contracts/request.js';
import type { QuorumOption, QuorumProgress } from '../rules/quorum.js';
import type { OutboxEntry } from '../stores/ask-store.js';

/** What a provider is told of the ask it delivers, besides the request itself. */
export interface AskProviderContext {
  /** The ask's id; `service.answer(askId, ...)` answers it from anywhere sharing the store. */
  askId: string;
  /** The tool call that asked, when the caller gave one. */
  toolCallId?: string;
  /** The caller's session (conversation), when given. */
  sessionId?: string;
  /** Aborted, with the cause as its reason, when the ask leaves `pending` for any reason. */
  signal: AbortSignal;
  /** Absolute time (ms since the epoch, on the service's clock) when the ask times out. */
  deadlineAt?: number;
  /**
   * A quorum ask's progress, read live (who has responded so far on any surface, how many more
   * are needed); absent for an ask one person answers. The provider's answer counts as the
   * response of its `answeredBy`.
   */
  readonly quorum?: QuorumProgress | undefined;
  /**
   * Answers given so far, for progress updates; they are not the outcome. Checked like any
   * answer (questions may be missing, `null` marks one skipped so far): throws
   * `UserInteractionError` (`INVALID_ANSWER`) for answers that could never be given.
   */
  reportProgress(answers: AskUserQuestionAnswer[]): void;
}

/**
 * A deferral with what is written in the same store write: a provider that routes the question
 * to people (the notify provider) returns the messages to send them and, when several decide,
 * the quorum. Both are stored if and only if the deferral is.
 */
export type ProviderDeferral = Extract<ProviderOutcome, { status: 'deferred' }> & {
  /**
   * Messages for the outbox of `ask-engine/notify`: a process that dies after the write still
   * has them sent by whoever claims them. Needs a store with the outbox port.
   */
  outbox?: readonly OutboxEntry[];
  /**
   * Several people decide the ask from this deferral on: checked like `service.start`'s
   * `quorum` and recorded in the `provider.deferred` audit event. A bad one, or one for an ask
   * started with a quorum of its own, ends the ask `cancelled` / `provider-error` naming why.
   */
  quorum?: QuorumOption;
};

/**
 * Shows questions to a person and reports what they did: answered, cancelled (dismissed, or no
 * one can answer here) or deferred to be answered later. A service has one provider at a time.
 */
export interface AskProvider {
  /**
   * Delivers one ask. The answers are checked against the questions before they count. A throw
   * ends the ask `cancelled` with reason `provider-error` (`invalid-answer` for an
   * `INVALID_ANSWER` error: the provider refused what the person gave).
   */
  ask(
    request: AskUserRequest,
    ctx: AskProviderContext,
  ): Promise<ProviderOutcome | ProviderDeferral>;
}
