/**
 * The commands that move an ask on from outside its provider: `answer`, `resume` and `cancel`,
 * from any service sharing the store. Each finds the ask, checks what it brings against the
 * stored questions, and commits one event; an attempt on a settled ask is audited and refused.
 */
import type { AskMachineEvent } from '../../machines/ask.machine.js';
import type { AskUserQuestionAnswer } from '../contracts/answer.js';
import type { AnsweredBy, AskOutcome } from '../contracts/outcome.js';
import { readAnsweredBy } from '../rules/answered-by.js';
import { describe } from '../rules/describe.js';
import { isUserInteractionError, UserInteractionError } from '../rules/errors.js';
import { quorumProgress } from '../rules/quorum.js';
import { validateAskUserAnswers } from '../rules/validate-answers.js';
import type { AskLog, PersistedAskSnapshot } from '../stores/ask-store.js';
import { answerCheck, answeredEvent, respondEvent, settledError } from './ask-events.js';
import type { AskOwnership } from './ask-ownership.js';
import type { AskReplica } from './ask-replica.js';
import { stepAsk } from './ask-table.js';
import type { AuditTrail } from './audit-trail.js';
import type { OpenAsk } from './open-ask.js';
import type { AnswerOptions, ResponseReceipt, ResumeOptions } from './service-contract.js';
import type { Settlement } from './settlement.js';
import { checkPersistedSnapshot, checkStoredAsk } from './stored-ask-check.js';

export class AskCommands {
  readonly #store: AskLog;
  readonly #replica: AskReplica;
  readonly #settlement: Settlement;
  readonly #ownership: AskOwnership;
  readonly #trail: AuditTrail;
  readonly #quoteInput: (open: OpenAsk) => boolean;

  constructor(
    store: AskLog,
    replica: AskReplica,
    settlement: Settlement,
    ownership: AskOwnership,
    trail: AuditTrail,
    quoteInput: (open: OpenAsk) => boolean,
  ) {
    this.#store = store;
    this.#replica = replica;
    this.#settlement = settlement;
    this.#ownership = ownership;
    this.#trail = trail;
    this.#quoteInput = quoteInput;
  }

  /**
   * `answer` / `resume`: checked against the stored questions, then one transition. `by` has
   * been read by `readAnswerOptions` (or `deferred`) before the ask was looked up.
   */
  async answer(
    open: OpenAsk,
    type: 'answer' | 'resume',
    answers: readonly AskUserQuestionAnswer[],
    by: AnsweredBy | undefined,
  ): Promise<AskOutcome> {
    if (open.ready !== undefined) await open.ready;
    if (open.state.status === 'done') {
      await this.#trail.attempt(open, type, undefined, by);
      throw settledError(open.id, open.state.value);
    }
    const quorum = open.state.context.quorum;
    if (quorum !== undefined) {
      throw new UserInteractionError(
        'INVALID_REQUEST',
        `Ask ${open.id} needs ${quorum.required} ${quorum.required === 1 ? 'person' : 'people'} to respond (a quorum ask); one \`${type}\` cannot decide it: each person responds with service.respond(askId, answers, { by }).`,
        { askId: open.id },
      );
    }
    if (stepAsk(open.state, { type, answers: [] }) === undefined) {
      throw new UserInteractionError(
        'INVALID_REQUEST',
        `Ask ${open.id} is ${open.state.value}; \`${type}\` does not apply to it${type === 'resume' ? ' (use answer)' : ''}.`,
        { askId: open.id },
      );
    }
    const valid = await this.#validAnswers(open, type, answers);
    const event: AskMachineEvent = answeredEvent(type, open.questions, valid, by);
    if (!(await this.#settlement.commit(open, event))) {
      await this.#trail.attempt(open, type, undefined, by);
      throw settledError(open.id, open.state.value);
    }
    return open.outcome;
  }

  /**
   * `respond`: one person's response to a quorum ask, checked against the stored questions and
   * committed as the machine's `respond` event (which counts it, refuses it, or decides the
   * ask). On an ask that is not a quorum ask it is `answer`.
   */
  async respond(
    open: OpenAsk,
    answers: readonly AskUserQuestionAnswer[],
    by: AnsweredBy | undefined,
    at: () => number,
  ): Promise<ResponseReceipt> {
    if (open.ready !== undefined) await open.ready;
    const quorum = open.state.context.quorum;
    if (quorum === undefined || open.state.status === 'done') {
      const outcome = await this.answer(open, 'answer', answers, by);
      return { askId: open.id, state: open.state.value, outcome };
    }
    if (by === undefined) {
      throw new UserInteractionError(
        'INVALID_REQUEST',
        `Ask ${open.id} is a quorum ask: a response counts only with who gave it; pass { by: { recipient } }.`,
        { askId: open.id, field: 'by' },
      );
    }
    const valid = await this.#validAnswers(open, 'answer', answers);
    if (!(await this.#settlement.commit(open, respondEvent(open.questions, valid, by, at())))) {
      await this.#trail.attempt(open, 'answer', undefined, by);
      throw settledError(open.id, open.state.value);
    }
    // Read again: the commit moved the ask on (the narrowing above is of the state before it).
    const { context, status, value } = open.state as OpenAsk['state'];
    const refused = context.refused;
    if (refused !== undefined && refused.by === by.recipient && status !== 'done') {
      throw new UserInteractionError(
        'INVALID_REQUEST',
        refused.reason === 'duplicate'
          ? `${by.recipient} has already responded to ask ${open.id}; each person's first response is the one that counts.`
          : `${by.recipient} is not among the people who may respond to ask ${open.id} (quorum.from).`,
        { askId: open.id, by: by.recipient, reason: refused.reason },
      );
    }
    const receipt: ResponseReceipt = {
      askId: open.id,
      state: value,
      quorum: quorumProgress(quorum, context.responses),
    };
    if (status === 'done' && context.outcome !== undefined) receipt.outcome = await open.outcome;
    return receipt;
  }

  async #validAnswers(
    open: OpenAsk,
    type: 'answer' | 'resume',
    answers: readonly AskUserQuestionAnswer[],
  ): Promise<AskUserQuestionAnswer[]> {
    try {
      return validateAskUserAnswers(open.questions, answers, answerCheck(this.#quoteInput(open)));
    } catch (error) {
      if (isUserInteractionError(error)) await this.#trail.refused(open, type, error.message);
      throw error;
    }
  }

  async cancel(askId: string, reason: unknown, message: string | undefined): Promise<AskOutcome> {
    if (reason !== 'user' && reason !== 'unavailable') {
      throw new UserInteractionError(
        'INVALID_REQUEST',
        `Expected the cancel reason to be "user" or "unavailable", got ${describe(reason)}.`,
      );
    }
    const open = await this.#replica.find(askId);
    if (open.ready !== undefined) await open.ready;
    const event: AskMachineEvent =
      message === undefined ? { type: 'cancel', reason } : { type: 'cancel', reason, message };
    if (!(await this.#settlement.commit(open, event))) {
      await this.#trail.attempt(open, 'cancel');
      throw settledError(open.id, open.state.value);
    }
    return open.outcome;
  }

  /**
   * `restore`: takes over the stored ask a persisted snapshot names (see the facade). An ask
   * this service waits on (a keyed start attached to it) is taken over as well; one it
   * delivers already is returned as it is.
   */
  async restore(persisted: PersistedAskSnapshot): Promise<OpenAsk> {
    const { askId } = checkPersistedSnapshot(persisted).context as { askId: string };
    const cached = this.#replica.get(askId);
    if (cached?.ready !== undefined) await cached.ready;
    const held = cached !== undefined && this.#replica.get(askId) === cached;
    if (held && cached.owner) return cached;
    const row = await this.#store.get(askId);
    if (row === undefined) {
      throw new UserInteractionError(
        'UNKNOWN_INTERACTION',
        `Ask ${askId} is not in this service's store; restore takes over a stored ask, so give both services the same store.`,
        { askId },
      );
    }
    const checked = checkStoredAsk(row, 'the stored ask');
    const open = held ? cached : this.#replica.fromRow(checked);
    if (held) this.#settlement.settle({ how: 'heard', open, row: checked });
    if (open.state.status === 'done') {
      await this.#trail.attempt(open, 'restore');
      throw settledError(askId, open.state.value);
    }
    if (!held) this.#trail.restored(open);
    await this.#ownership.takeOver(open, checked, held);
    return open;
  }

  /**
   * The deferred ask a reply to `interactionId` answers. With `askId`, that ask and no other:
   * a reply redelivered after it settled must not answer the next ask deferred to the id.
   */
  async deferred(
    interactionId: string,
    options: ResumeOptions | undefined,
  ): Promise<{ open: OpenAsk; by: AnsweredBy | undefined }> {
    if (typeof interactionId !== 'string' || interactionId === '') {
      throw new UserInteractionError(
        'UNKNOWN_INTERACTION',
        `Expected an interaction id (a non-empty string), got ${describe(interactionId)}.`,
      );
    }
    const { askId, by } = readResumeOptions(options);
    if (askId !== undefined) {
      const open = await this.#replica.find(askId);
      if (open.interactionId !== interactionId) {
        throw new UserInteractionError(
          'UNKNOWN_INTERACTION',
          `Ask ${askId} was not deferred with interaction id "${interactionId}"; a reply answers only the deferral it was sent for.`,
          { askId, interactionId },
        );
      }
      return { open, by };
    }
    const open = this.#replica.load(await this.#store.findByInteractionId(interactionId));
    if (open === undefined) {
      throw new UserInteractionError(
        'UNKNOWN_INTERACTION',
        `No ask was deferred with interaction id "${interactionId}".`,
        { interactionId },
      );
    }
    return { open, by };
  }
}

/** `answer`'s options: who answered, checked before the ask is looked up. */
export function readAnswerOptions(options: AnswerOptions | undefined): AnsweredBy | undefined {
  if (options === undefined) return undefined;
  if (typeof options !== 'object' || options === null) {
    throw new UserInteractionError(
      'INVALID_REQUEST',
      `Expected answer options to be an object { by? }, got ${describe(options)}.`,
    );
  }
  return options.by === undefined ? undefined : readAnsweredBy(options.by);
}

function readResumeOptions(options: ResumeOptions | undefined): {
  askId: string | undefined;
  by: AnsweredBy | undefined;
} {
  if (options === undefined) return { askId: undefined, by: undefined };
  if (typeof options !== 'object' || options === null) {
    throw new UserInteractionError(
      'INVALID_REQUEST',
      `Expected resume options to be an object { askId?, by? }, got ${describe(options)}.`,
    );
  }
  const { askId, by } = options;
  if (askId !== undefined && (typeof askId !== 'string' || askId === '')) {
    throw new UserInteractionError(
      'INVALID_REQUEST',
      `Expected resume option \`askId\` to be a non-empty string, got ${describe(askId)}.`,
      { option: 'askId' },
    );
  }
  return { askId, by: by === undefined ? undefined : readAnsweredBy(by) };
}
