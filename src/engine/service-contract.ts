/** The public shape of the interaction service, its options and the handle of one ask. */
import type { Observable } from 'rxjs';
import type { AskUserQuestionAnswer } from '../contracts/answer.js';
import type { AskOutcome } from '../contracts/outcome.js';
import type { AskUserQuestion } from '../contracts/question.js';
import type { AskUserRequestInput } from '../contracts/tool-input.js';
import type { AskAuditEvent, AskState } from './audit.js';
import type { AskProvider } from './provider.js';

export interface AskOptions {
  /** Aborting it ends the ask as `aborted` with `signal.reason` as the cause. */
  signal?: AbortSignal;
  /** Milliseconds from now until the ask ends as `timedOut`; must be > 0. */
  timeoutMs?: number;
  toolCallId?: string;
  sessionId?: string;
}

export interface AskSnapshot {
  askId: string;
  state: AskState;
  questions: AskUserQuestion[];
  createdAt: number;
  deadlineAt?: number;
  /** Answers reported so far while pending (the owner of the handle sees them unredacted). */
  progress: AskUserQuestionAnswer[];
  outcome?: AskOutcome;
}

export interface AskHandle {
  readonly id: string;
  getSnapshot(): AskSnapshot;
  /** This ask's audit events, from `start` to its final state; completes when it settles. */
  readonly events$: Observable<AskAuditEvent>;
  /** Resolves with the outcome; never rejects. Resolves at `deferred` (the ask lives on). */
  readonly outcome: Promise<AskOutcome>;
  /** Ends a pending or deferred ask as `cancelled`; after the outcome is fixed, does nothing. */
  cancel(reason?: 'user' | 'unavailable', message?: string): void;
}

export interface InteractionService {
  /** Registers the one provider; a second active one throws `DUPLICATE_PROVIDER`. Returns dispose. */
  registerProvider(provider: AskProvider): () => void;
  /**
   * Asks and resolves with the outcome (at `deferred` for a deferred ask). Rejects only for a
   * request that can never be delivered: `NO_PROVIDER`, `EMPTY_QUESTIONS`, `TOO_MANY_QUESTIONS`,
   * `INVALID_REQUEST`, `BAD_INTENT`, `LIMIT_EXCEEDED`.
   */
  ask(request: AskUserRequestInput, options?: AskOptions): Promise<AskOutcome>;
  /** Like `ask`, but returns the ask's handle at once; the same errors are thrown synchronously. */
  start(request: AskUserRequestInput, options?: AskOptions): AskHandle;
  /**
   * Brings the answer of a deferred ask (found by its interaction id, here or in the store).
   * The answers are validated like a provider's: invalid ones end the ask `cancelled` /
   * `invalid-answer`. Rejects with `UNKNOWN_INTERACTION`, or `ASK_SETTLED` once it has ended.
   */
  resume(interactionId: string, answers: readonly AskUserQuestionAnswer[]): Promise<AskOutcome>;
  /**
   * Ends every pending ask `aborted` with `cause` and waits for them. Deferred asks are kept:
   * they outlive the process that deferred them and are resumed from the store.
   */
  drain(cause?: unknown): Promise<void>;
  /** Every ask's audit events, as they happen. */
  readonly events$: Observable<AskAuditEvent>;
}
