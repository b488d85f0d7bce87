/** What a provider gets with each question: the ask's ids, its deadline, its signal, and a way to report progress. */
import type { AskUserQuestionAnswer } from '../contracts/answer.js';
import { exitCause } from './ask-events.js';
import type { OpenAsk } from './open-ask.js';
import type { AskProviderContext } from './provider.js';

/**
 * One per delivery, as a class rather than an object of closures: a million pending asks each
 * hold one while their provider works.
 */
export class DeliveryContext implements AskProviderContext {
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

  /** Checked like any answer, but partially; throws at the provider that sent bad ones. */
  reportProgress(answers: AskUserQuestionAnswer[]): void {
    if (this.#open.delivering) this.#report(this.#open, answers);
  }
}

/** Why delivery stopped, for the provider's signal: the caller's own abort cause where there is one. */
export function deliveryExitCause(open: OpenAsk): unknown {
  return open.exitEvent?.type === 'abort' && open.localCause !== undefined
    ? open.localCause
    : exitCause(open.id, open.exitEvent);
}
