/** The public shape of the interaction service, its options and the handle of one ask. */
import type { Observable } from 'rxjs';
import type { AskUserQuestionAnswer } from '../contracts/answer.js';
import type { AskAttachment } from '../contracts/attachment.js';
import type { AnsweredBy, AskOutcome } from '../contracts/outcome.js';
import type { AskUserQuestion } from '../contracts/question.js';
import type { AskUserRequestInput } from '../contracts/tool-input.js';
import type { QuorumOption, QuorumProgress } from '../rules/quorum.js';
import type { AskListFilter, AskListPage, AskListResult, ListedAsk } from '../stores/ask-store.js';
import type { AskAuditEvent, AskState } from './audit.js';
import type { AskProvider } from './provider.js';

/** Per-ask options of `ask` and `start`: abort signal, timeout, tool call, session and key. */
export interface AskOptions {
  /** Aborting it ends a pending ask as `aborted` with `signal.reason` as the cause. */
  signal?: AbortSignal;
  /** Milliseconds from now until the ask ends as `timedOut`. */
  timeoutMs?: number;
  /** The tool call asking; recorded with the ask and handed to the provider. */
  toolCallId?: string;
  /** The session (conversation) the ask belongs to; recorded and handed to the provider. */
  sessionId?: string;
  /**
   * Idempotency key (a tool-call id, a workflow step id): `start` with a key already in the
   * store returns that ask (same id, same outcome) instead of asking again, on any service
   * sharing the store. A different request under the same key is `INVALID_REQUEST`.
   */
  key?: string;
  /**
   * Several people decide this ask: `required` distinct people respond through
   * `service.respond` (each with `by`), and the ask ends `answered` once they agree (or at once
   * on a `veto` option), `cancelled` with reason `no-quorum` when everyone in `from` responded
   * without agreeing. Checked against the questions at `start` (`INVALID_REQUEST` naming the
   * field). Kept with the ask: every service sharing the store counts the same way.
   */
  quorum?: QuorumOption;
  /**
   * Opaque data kept with the ask for whoever settles or resumes it, on any host sharing the
   * store (an agent run's saved state): stored with the ask when it is created, handed back
   * by `service.get`, never read, changed or shown by the engine. `kind` and `version` are
   * non-empty texts of at most 256 characters, `data` at most `MAX_ATTACHMENT_BYTES` of
   * UTF-8; none may hold U+0000. Anything else is refused with `INVALID_REQUEST` naming the
   * field. It is not part of the request a `key` names: a second `start` under the key
   * attaches to the ask with the attachment it was created with.
   */
  attachment?: AskAttachment;
}

/** What `answer` is told besides the answers. */
export interface AnswerOptions {
  /**
   * Who answered, kept as the outcome's `answeredBy` and in the audit event (never redacted).
   * Non-empty strings of at most 256 characters without control characters; anything else is
   * refused with `INVALID_REQUEST` naming the field.
   */
  by?: AnsweredBy;
}

/**
 * What `service.respond` resolves with once the response is in the store: the ask's state after
 * it, the quorum's progress (who has responded, how many more are needed) and, when this
 * response decided the ask, its outcome.
 */
export interface ResponseReceipt {
  askId: string;
  /** `pending` or `deferred` while more responses are needed; final when this one decided. */
  state: AskState;
  /** Absent for an ask that is not a quorum ask (its one answer decided it). */
  quorum?: QuorumProgress;
  /** The ask's outcome, when this response settled it. */
  outcome?: AskOutcome;
}

/** What `resume` is told of the deferral the reply answers. */
export interface ResumeOptions extends AnswerOptions {
  /** The ask the reply answers (the deferred ask's id): nothing but that ask is answered. */
  askId?: string;
}

/** What this service knows of one of its asks, at once and without the store. */
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

/**
 * An ask as the store has it (`service.get`, `service.list`): the stored row without the machine
 * snapshot, with the session and the agent it was asked for (which the snapshot holds).
 */
export type AskInfo = ListedAsk & {
  /** A quorum ask's progress (`service.get` only: `list` reads no snapshots). */
  quorum?: QuorumProgress;
  /** What `start`'s `attachment` kept with the ask (`service.get` only: `list` leaves it out). */
  attachment?: AskAttachment;
};

/** Options of `service.outcome`. */
export interface OutcomeOptions {
  /** Aborting it stops the wait: the promise rejects with `signal.reason` (the ask goes on). */
  signal?: AbortSignal;
}

/** What `service.purge` deletes. */
export interface PurgeOptions {
  /** Final asks that settled before this time (ms since the epoch, the service clock's). */
  finalBefore: number;
}

/** One started ask (`service.start`): its id, its live state, its events and its outcome. */
export interface AskHandle {
  /** The ask's id. */
  readonly id: string;
  /** What this service knows of the ask right now: state, questions, progress, outcome. */
  getSnapshot(): AskSnapshot;
  /**
   * This ask's audit events as this service sees them, from `start` on; completes when the
   * handle's outcome is fixed (at `deferred` or a final state).
   */
  readonly events$: Observable<AskAuditEvent>;
  /**
   * Resolves with the outcome (at `deferred` for a deferred ask). Rejects only when the store
   * fails, when a `key` is reused for another request or names a purged ask
   * (`INVALID_REQUEST`), or when the service is closed before the ask settles.
   */
  readonly outcome: Promise<AskOutcome>;
  /**
   * Resolves once the ask's row is in the store, so another service or host can answer it by
   * id; rejects with the store's error if that write failed (or the key names another request,
   * or a purged ask: ids are never reused).
   */
  readonly stored: Promise<void>;
  /** Ends a pending or deferred ask as `cancelled`; after the outcome is fixed, does nothing. */
  cancel(reason?: 'user' | 'unavailable', message?: string): void;
}

/**
 * Asks people questions through one registered provider and keeps every ask in a store, so any
 * service sharing the store can answer, resume or cancel it. Made by `createInteractionService`.
 */
export interface InteractionService {
  /**
   * This service's id, recorded as the owner of the asks it delivers; it also names this
   * service as the writer of its store writes (`AskWrite.writer`), so the store leaves them out
   * of the news it tells this service.
   */
  readonly id: string;
  /** Registers the one provider; a second active one throws `DUPLICATE_PROVIDER`. Returns dispose. */
  registerProvider(provider: AskProvider): () => void;
  /**
   * Asks and resolves with the outcome (at `deferred` for a deferred ask). Rejects for a
   * request that can never be delivered: `NO_PROVIDER`, `EMPTY_QUESTIONS`, `TOO_MANY_QUESTIONS`,
   * `INVALID_REQUEST`, `BAD_INTENT`, `LIMIT_EXCEEDED`; and when the store fails.
   */
  ask(request: AskUserRequestInput, options?: AskOptions): Promise<AskOutcome>;
  /** Like `ask`, but returns the ask's handle at once; request errors are thrown synchronously. */
  start(request: AskUserRequestInput, options?: AskOptions): AskHandle;
  /**
   * Answers a pending or deferred ask, from any service sharing the store. Invalid answers are
   * refused with `INVALID_ANSWER` and the ask stays open; an ask with an outcome refuses with
   * `ASK_SETTLED`; an unknown id is `UNKNOWN_INTERACTION`. Resolves with the `answered` outcome,
   * which carries `answeredBy` when `by` says who answered. A quorum ask is not decided by one
   * answer: `answer` refuses it with `INVALID_REQUEST` (use `respond`).
   *
   * @example
   * await service.answer(askId, answers, { by: { recipient: 'alice@example.com', channel: 'email' } });
   */
  answer(
    askId: string,
    answers: readonly AskUserQuestionAnswer[],
    options?: AnswerOptions,
  ): Promise<AskOutcome>;
  /**
   * One person's response, from any service sharing the store. On a quorum ask it counts toward
   * the quorum and needs `by` (the responder's recipient id, recorded and never redacted); the
   * machine refuses a second response by the same person, or by someone not in `from`, with
   * `INVALID_REQUEST` (`data.reason` `duplicate` / `not-allowed`), audited as
   * `response.refused`. On any other ask it is `answer`. Validated like `answer`; resolves once
   * the response is stored, with the quorum's progress and the outcome if it decided the ask.
   *
   * @example
   * const receipt = await service.respond(askId, answers, { by: { recipient: 'ana', channel: 'web' } });
   * if (receipt.outcome === undefined) console.log(`${receipt.quorum?.needed} more needed`);
   */
  respond(
    askId: string,
    answers: readonly AskUserQuestionAnswer[],
    options?: AnswerOptions,
  ): Promise<ResponseReceipt>;
  /**
   * Brings the answer of a deferred ask, found by its interaction id. Validated like `answer`:
   * `INVALID_ANSWER` keeps it open; `UNKNOWN_INTERACTION`, `ASK_SETTLED`. An interaction id
   * (a chat thread) can carry one deferred ask after another: give `askId` (the id of the ask
   * the reply answers) and a reply redelivered after that ask settled is refused `ASK_SETTLED`
   * instead of answering the next ask deferred to the same interaction id.
   */
  resume(
    interactionId: string,
    answers: readonly AskUserQuestionAnswer[],
    options?: ResumeOptions,
  ): Promise<AskOutcome>;
  /**
   * Ends a pending or deferred ask as `cancelled` (default reason `user`: the person declined),
   * from any service sharing the store. `ASK_SETTLED` once it has its outcome;
   * `UNKNOWN_INTERACTION` for an unknown id. Resolves with the `cancelled` outcome.
   */
  cancel(askId: string, reason?: 'user' | 'unavailable', message?: string): Promise<AskOutcome>;
  /** The ask as the store has it, or `undefined`. */
  get(askId: string): Promise<AskInfo | undefined>;
  /**
   * The ask's final outcome (answered, cancelled, timed out, aborted; never `deferred`),
   * whichever service or host sharing the store settles it: resolves at once for an ask that
   * has it, else once the store's news of the settle arrives. Rejects `UNKNOWN_INTERACTION`
   * for an id the store does not have (or an ask purged before it settled), with
   * `signal.reason` when `signal` aborts (the ask itself goes on), and when this service
   * closes. Waiting changes nothing: it is how a host waits for a deferred ask.
   *
   * @example
   * const handle = service.start(request); // a provider that defers (mail, chat)
   * if ((await handle.outcome).status === 'deferred') {
   *   const final = await service.outcome(handle.id, { signal: AbortSignal.timeout(3_600_000) });
   * }
   */
  outcome(askId: string, options?: OutcomeOptions): Promise<AskOutcome>;
  /** The ask's stored audit events, oldest first. */
  history(askId: string): AsyncIterable<AskAuditEvent>;
  /**
   * The asks of the store (of every service and process sharing it) that match `filter`,
   * newest first, `page.limit` at a time (default 50, at most 1,000). Pass the result's
   * `cursor` back for the next page; it is absent on the last page. A bad filter, limit or
   * cursor is refused with `INVALID_REQUEST` naming the field. A row of the page that cannot be
   * read or fails its check (a corrupt or tampered row) is not handed out: it is reported
   * through `onError` and named in the page's `unreadable`, and the others are listed.
   *
   * @example
   * let page = await service.list({ state: ['pending', 'deferred'] });
   * while (page.cursor) page = await service.list({ state: ['pending', 'deferred'] }, { cursor: page.cursor });
   */
  list(filter?: AskListFilter, page?: AskListPage): Promise<AskListResult<AskInfo>>;
  /**
   * Deletes final asks (answered, cancelled, timed out, aborted) that settled before
   * `finalBefore`, with their histories, in small batches; pending and deferred asks are never
   * deleted. Resolves with how many were deleted. An answer to a deleted ask is refused
   * `UNKNOWN_INTERACTION`. The `retention` option runs this on a timer.
   */
  purge(options: PurgeOptions): Promise<number>;
  /**
   * Ends every pending ask this service delivers as `aborted` with `cause`, and waits for them.
   * Deferred asks are kept: they outlive the process that deferred them.
   */
  drain(cause?: unknown): Promise<void>;
  /**
   * Stops this service's timers, deliveries and subscriptions. Asks stay as they are in the
   * store for other services; callers still waiting here are rejected. Resolves once the store
   * writes the service had in flight (deadlines, a sweep's claim, a purge) have landed and its
   * owner lease is released: after that, nothing of this service writes again. Every call
   * returns the same promise.
   */
  close(): Promise<void>;
  /** Every audit event this service writes or learns of, as it happens. */
  readonly events$: Observable<AskAuditEvent>;
}
