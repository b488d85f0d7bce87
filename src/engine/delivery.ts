/**
 * Delivery of an ask to the provider: the call, what the provider gets with it (ids, deadline,
 * signal, progress), and what comes back turned into machine events. Delivery lives exactly as
 * long as the ask is pending on this service: `stopDelivery` aborts the provider's signal with
 * the cause.
 */
import type { AskMachineEvent, AskMachineQuorum } from '../../machines/ask.machine.js';
import type { AskUserQuestionAnswer } from '../contracts/answer.js';
import { describe } from '../rules/describe.js';
import { UserInteractionError } from '../rules/errors.js';
import { type QuorumProgress, quorumProgress, readQuorumOption } from '../rules/quorum.js';
import { validateAskUserAnswers } from '../rules/validate-answers.js';
import type { OutboxEntry } from '../stores/ask-store.js';
import { answerCheck, exitCause, failureEvent, providerEvent, respondEvent } from './ask-events.js';
import type { OpenAsk } from './open-ask.js';
import type { AskProvider, AskProviderContext, ProviderDeferral } from './provider.js';

/** What delivery needs of its service. */
export interface DeliveryHost {
  provider(): AskProvider | undefined;
  /** False when the ask or the service redacts: refusal messages never quote the person. */
  quoteInput(open: OpenAsk): boolean;
  /** Applies an event to the ask (with `outbox` in its write); true if the machine took it. */
  commit(open: OpenAsk, event: AskMachineEvent, outbox?: readonly OutboxEntry[]): Promise<boolean>;
  /** Ends the ask as `aborted` with `cause` (its host drained or restarted under the provider). */
  abort(open: OpenAsk, cause: unknown): Promise<boolean>;
  /** Audits a provider result that came after the ask's outcome was fixed. */
  recordAttempt(open: OpenAsk, result: unknown): Promise<void>;
  /** Audits a provider's answer to a quorum ask that named nobody (not counted). */
  recordUnidentified(open: OpenAsk): Promise<void>;
  /** The service clock's time (a response's `at`). */
  now(): number;
  /** A failure that has no caller to reject (an audit write after the outcome). */
  report(error: unknown, open: OpenAsk): void;
}

export class Delivery {
  readonly #host: DeliveryHost;

  constructor(host: DeliveryHost) {
    this.#host = host;
  }

  /** Calls the provider; what it resolves or rejects with becomes one machine event. */
  start(open: OpenAsk): void {
    const provider = this.#host.provider();
    if (provider === undefined) {
      this.#host
        .commit(open, {
          type: 'provider.cancelled',
          reason: 'unavailable',
          message: 'The provider was unregistered before the question could be delivered.',
        })
        .catch((error) => open.fail(error));
      return;
    }
    open.delivering = true;
    open.exitEvent = undefined;
    // Chained rather than awaited: a suspended async function per pending ask costs heap.
    let result: Promise<unknown>;
    try {
      result = Promise.resolve(
        provider.ask(open.request, new DeliveryContext(open, this.#progress)),
      );
    } catch (error) {
      result = Promise.reject(error);
    }
    result.then(
      (value) => this.#delivered(open, value),
      (error) => this.#failed(open, error),
    );
  }

  async #delivered(open: OpenAsk, result: unknown): Promise<void> {
    if (!open.delivering) {
      await this.#host.recordAttempt(open, result).catch((error) => this.#host.report(error, open));
      return;
    }
    const split = splitDeferral(open, result);
    if (!split.ok) return this.#failed(open, split.error);
    const { outcome, outbox, quorum } = split;
    let event = providerEvent(open.questions, outcome, this.#host.quoteInput(open));
    if (event.type === 'provider.answered' && open.state.context.quorum !== undefined) {
      // One person's answer to a quorum ask is their response: it counts only with a name.
      if (event.answeredBy === undefined) {
        await this.#host.recordUnidentified(open).catch((error) => this.#host.report(error, open));
        return;
      }
      event = respondEvent(open.questions, event.answers, event.answeredBy, this.#host.now());
    }
    const deferred = event.type === 'provider.deferred';
    if (event.type === 'provider.deferred' && quorum !== undefined) event = { ...event, quorum };
    try {
      if (!(await this.#host.commit(open, event, deferred ? outbox : undefined)))
        await this.#host.recordAttempt(open, event);
    } catch (error) {
      open.fail(error);
    }
  }

  async #failed(open: OpenAsk, error: unknown): Promise<void> {
    // A provider that rejects after delivery stopped is only honouring its aborted signal.
    if (!open.delivering) return;
    const event = failureEvent(error);
    // The host drained or restarted under the provider: aborted with the host's original cause.
    const taken =
      event.type === 'abort'
        ? this.#host.abort(open, (error as { cause?: unknown }).cause ?? error)
        : this.#host.commit(open, event);
    await this.#settle(open, event, taken);
  }

  async #settle(open: OpenAsk, event: AskMachineEvent, taken: Promise<boolean>): Promise<void> {
    try {
      if (!(await taken)) await this.#host.recordAttempt(open, event);
    } catch (error) {
      open.fail(error);
    }
  }

  readonly #progress = (open: OpenAsk, answers: AskUserQuestionAnswer[]): void => {
    const progress = validateAskUserAnswers(
      open.questions,
      answers,
      answerCheck(this.#host.quoteInput(open), true),
    );
    this.#host
      .commit(open, { type: 'provider.progress', answers: progress })
      .catch((error) => open.fail(error));
  };
}

/**
 * Ends the delivery of `open`, if it runs: the provider's signal is aborted with `cause` or the
 * exit's own cause (`event`, the event that ended it). Settlement's, once a write says the ask
 * no longer waits on this service's provider.
 */
export function stopDelivery(
  open: OpenAsk,
  event: AskMachineEvent | undefined,
  cause: unknown,
): void {
  if (!open.delivering) return;
  open.delivering = false;
  open.exitEvent = event;
  // Only a provider that looked at its signal has a controller to abort.
  open.controller?.abort(cause ?? deliveryExitCause(open));
}

/**
 * One per delivery, as a class rather than an object of closures: a million pending asks each
 * hold one while their provider works.
 */
class DeliveryContext implements AskProviderContext {
  readonly askId: string;
  toolCallId?: string;
  sessionId?: string;
  deadlineAt?: number;
  readonly #open: OpenAsk;
  readonly #report: (open: OpenAsk, answers: AskUserQuestionAnswer[]) => void;

  constructor(open: OpenAsk, report: (open: OpenAsk, answers: AskUserQuestionAnswer[]) => void) {
    this.askId = open.id;
    this.#open = open;
    this.#report = report;
    const { context } = open.state;
    if (context.toolCallId !== undefined) this.toolCallId = context.toolCallId;
    if (context.sessionId !== undefined) this.sessionId = context.sessionId;
    if (context.deadlineAt !== undefined) this.deadlineAt = context.deadlineAt;
  }

  /**
   * Created on first read: an AbortController with a listener costs more heap than the whole
   * open ask, and many providers settle without ever looking at it.
   */
  get signal(): AbortSignal {
    const open = this.#open;
    if (open.controller === undefined) {
      open.controller = new AbortController();
      if (!open.delivering) open.controller.abort(deliveryExitCause(open));
    }
    return open.controller.signal;
  }

  get quorum(): QuorumProgress | undefined {
    const { quorum, responses } = this.#open.state.context;
    return quorum === undefined ? undefined : quorumProgress(quorum, responses);
  }

  /**
   * Checked like any answer, but partially; throws at the provider that sent bad ones. A getter
   * handing out a function bound to this delivery, so a provider may destructure it
   * (`ask(request, { reportProgress })`); made only when read, like the signal.
   */
  get reportProgress(): (answers: AskUserQuestionAnswer[]) => void {
    const open = this.#open;
    const report = this.#report;
    return (answers) => {
      if (open.delivering) report(open, answers);
    };
  }
}

/** A provider's result split from what rides in its deferral's write, or why that is refused. */
type SplitResult =
  | { ok: true; outcome: unknown; outbox?: readonly OutboxEntry[]; quorum?: AskMachineQuorum }
  | { ok: false; error: unknown };

/**
 * A provider's result without what rides in a deferral's write (`ProviderDeferral`), which is
 * checked here: a bad one fails the delivery, naming it, as a provider that threw would.
 */
function splitDeferral(open: OpenAsk, result: unknown): SplitResult {
  if (typeof result !== 'object' || result === null) return { ok: true, outcome: result };
  let outbox: ProviderDeferral['outbox'];
  let quorum: ProviderDeferral['quorum'];
  let outcome: unknown;
  try {
    ({ outbox, quorum } = result as ProviderDeferral);
    if (outbox === undefined && quorum === undefined) return { ok: true, outcome: result };
    const { outbox: _outbox, quorum: _quorum, ...rest } = result as ProviderDeferral;
    outcome = rest;
  } catch {
    // A getter that throws: reading the result as it is reports it (provider-error, named).
    return { ok: true, outcome: result };
  }
  try {
    const status = (outcome as { status?: unknown }).status;
    if (status !== 'deferred') {
      throw new TypeError(
        `The provider returned \`outbox\` or \`quorum\` with the status ${describe(status)}; they ride only with a deferral.`,
      );
    }
    const split: SplitResult = { ok: true, outcome };
    if (outbox !== undefined) {
      if (!Array.isArray(outbox)) {
        throw new TypeError(
          `Expected the deferral's \`outbox\` to be an array of outbox entries, got ${describe(outbox)}.`,
        );
      }
      split.outbox = outbox;
    }
    if (quorum !== undefined) {
      if (open.state.context.quorum !== undefined) {
        throw new UserInteractionError(
          'INVALID_REQUEST',
          `Ask ${open.id} was started with a quorum of its own; a provider cannot set another.`,
          { askId: open.id },
        );
      }
      split.quorum = readQuorumOption(quorum, open.questions);
    }
    return split;
  } catch (error) {
    return { ok: false, error };
  }
}

/** Why delivery stopped, for the provider's signal: the caller's own abort cause where there is one. */
function deliveryExitCause(open: OpenAsk): unknown {
  return open.exitEvent?.type === 'abort' && open.localCause !== undefined
    ? open.localCause
    : exitCause(open.id, open.exitEvent);
}
