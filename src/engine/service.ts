/**
 * The interaction service: one provider, asks kept in a store, exactly one outcome each. A
 * facade over its parts: intake (ask-intake), the one write path (ask-write), the
 * compare-and-set writes (ask-commit), the local replica of open asks (ask-replica), settlement
 * (the commit loop and the one settle step of every applied write), first writes and take-overs
 * (ask-ownership), the audit trail (audit-trail) and delivery to the provider (delivery).
 */
import type { Observable } from 'rxjs';
import type { AskUserQuestionAnswer } from '../contracts/answer.js';
import type { AskOutcome } from '../contracts/outcome.js';
import type { AskUserRequestInput } from '../contracts/tool-input.js';
import { messageOf } from '../rules/describe.js';
import { UserInteractionError } from '../rules/errors.js';
import type {
  AskListFilter,
  AskListPage,
  AskListResult,
  AskLog,
  PersistedAskSnapshot,
  UnreadableAsk,
} from '../stores/ask-store.js';
import { missingPort } from '../stores/store-ports.js';
import { readAnswerOptions } from './ask-commands.js';
import { abortEvent } from './ask-events.js';
import { createAskHandle } from './ask-handle.js';
import { askInfo, listedInfo } from './ask-info.js';
import { checkSameKey, DELIVERS_AT_START, intakeAsk } from './ask-intake.js';
import type { AskAuditEvent } from './audit.js';
import { RECORD_CALLBACK_FAILURE } from './callback-audit.js';
import { forEachSliced } from './event-loop.js';
import type { OpenAsk } from './open-ask.js';
import { frozenCopy } from './outcome-copy.js';
import type { AskProvider } from './provider.js';
import { ProviderSlot } from './provider-slot.js';
import { checkPurgeOptions, purgeFinalAsks } from './retention.js';
import type {
  AnswerOptions,
  AskHandle,
  AskInfo,
  AskOptions,
  InteractionService,
  OutcomeOptions,
  PurgeOptions,
  ResponseReceipt,
  ResumeOptions,
} from './service-contract.js';
import { checkServiceOptions, type InteractionServiceOptions } from './service-options.js';
import { createServiceParts, type ServiceParts } from './service-parts.js';
import { STORE_OF } from './store-of.js';

export type { InteractionServiceOptions } from './service-options.js';

/**
 * Creates the service an agent loop asks through. Register exactly one provider, then `ask`.
 *
 * @example
 * const service = createInteractionService();
 * service.registerProvider(terminalProvider);
 * const outcome = await service.ask({ question: 'Deploy now?', options: ['Yes', 'No'] }, { timeoutMs: 60_000 });
 */
export function createInteractionService(
  options: InteractionServiceOptions = {},
): InteractionService & {
  /**
   * Takes over the stored ask a persisted snapshot names, with one audited `restore` write:
   * this service delivers it from now on (or hands out its deferral), also when this service
   * only waited on it (a keyed `start` attached to it). An ask is taken over only once its
   * owner's lease has run out (the owner closed or died; see `leaseMs`). Rejects, saying why:
   * `INVALID_REQUEST` while the owner is live (naming it and until when its lease runs, in
   * `data.owner` and `data.leaseUntil`), `ASK_SETTLED` when the ask already has its outcome,
   * `UNKNOWN_INTERACTION` when the store does not have it.
   */
  restore(snapshot: PersistedAskSnapshot): Promise<AskHandle>;
  /** The persisted snapshot of an ask this service has open (a frozen copy). */
  getPersistedSnapshot(askId: string): PersistedAskSnapshot | undefined;
} {
  return new Service(options);
}

class Service implements InteractionService {
  readonly id = globalThis.crypto.randomUUID();
  readonly events$: Observable<AskAuditEvent>;
  readonly #provider = new ProviderSlot();
  readonly #parts: ServiceParts;
  /** Set by the first `close()`: every call resolves with it, once nothing writes any more. */
  #closed: Promise<void> | undefined;

  constructor(options: InteractionServiceOptions) {
    checkServiceOptions(options);
    this.#parts = createServiceParts(options, this.id, () => this.#provider.current);
    this.events$ = this.#parts.trail.events$;
  }

  registerProvider(provider: AskProvider): () => void {
    return this.#provider.register(provider);
  }

  ask(request: AskUserRequestInput, options?: AskOptions): Promise<AskOutcome> {
    // Not `async`, and no handle: returning the ask's own promise saves a wrapper and a handle.
    try {
      return this.#begin(request, options).outcome;
    } catch (error) {
      return Promise.reject(error);
    }
  }

  start(request: AskUserRequestInput, options?: AskOptions): AskHandle {
    return this.#handle(this.#begin(request, options));
  }

  #begin(request: AskUserRequestInput, options: AskOptions = {}): OpenAsk {
    this.#checkOpen();
    const parts = this.#parts;
    const { observer } = parts;
    let traced = false;
    const open = intakeAsk(
      request,
      options,
      parts.clock.now(),
      parts.ids,
      parts.redact,
      (input, questions, key) => {
        this.#provider.check();
        // A second start of an ask open here (same key) is that ask: no span of its own.
        if (observer === undefined || parts.replica.get(input.askId) !== undefined) return;
        traced = true;
        return observer.start(input, questions, key);
      },
    );
    const same = parts.replica.get(open.id);
    if (same !== undefined) return checkSameKey(same, open);
    if (traced) open.outcome.catch((error) => observer?.failed(open.id, error));
    // Known here at once, so an answer given in the same turn finds it.
    parts.replica.add(open);
    parts.ownership.create(open, DELIVERS_AT_START, options.signal);
    return open;
  }

  async restore(persisted: PersistedAskSnapshot): Promise<AskHandle> {
    this.#checkOpen();
    return this.#handle(await this.#parts.commands.restore(persisted));
  }

  getPersistedSnapshot(askId: string): PersistedAskSnapshot | undefined {
    const open = this.#parts.replica.get(askId);
    return open === undefined ? undefined : frozenCopy(open.state);
  }

  async answer(
    askId: string,
    answers: readonly AskUserQuestionAnswer[],
    options?: AnswerOptions,
  ): Promise<AskOutcome> {
    this.#checkOpen();
    const by = readAnswerOptions(options);
    const open = await this.#parts.replica.find(askId);
    return this.#parts.commands.answer(open, 'answer', answers, by);
  }

  async respond(
    askId: string,
    answers: readonly AskUserQuestionAnswer[],
    options?: AnswerOptions,
  ): Promise<ResponseReceipt> {
    this.#checkOpen();
    const by = readAnswerOptions(options);
    const open = await this.#parts.replica.find(askId);
    return this.#parts.commands.respond(open, answers, by, () => this.#parts.clock.now());
  }

  async cancel(
    askId: string,
    reason: 'user' | 'unavailable' = 'user',
    message?: string,
  ): Promise<AskOutcome> {
    this.#checkOpen();
    return this.#parts.commands.cancel(askId, reason, message);
  }

  async resume(
    interactionId: string,
    answers: readonly AskUserQuestionAnswer[],
    options?: ResumeOptions,
  ): Promise<AskOutcome> {
    this.#checkOpen();
    const { open, by } = await this.#parts.commands.deferred(interactionId, options);
    return this.#parts.commands.answer(open, 'resume', answers, by);
  }

  outcome(askId: string, options?: OutcomeOptions): Promise<AskOutcome> {
    try {
      this.#checkOpen();
      return this.#parts.outcomes.wait(askId, options);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async get(askId: string): Promise<AskInfo | undefined> {
    const row = await this.#parts.store.get(askId);
    return row === undefined ? undefined : askInfo(row);
  }

  async list(filter?: AskListFilter, page?: AskListPage): Promise<AskListResult<AskInfo>> {
    const index = this.#parts.index;
    if (index === undefined) throw missingPort('`service.list`', 'index');
    const listed = await index.list(filter, page);
    const items: AskInfo[] = [];
    // Rows the store could not read, then rows that fail their check: each reported once.
    const unreadable: UnreadableAsk[] = [];
    for (const bad of listed.unreadable ?? []) {
      this.#parts.report(
        new UserInteractionError('INVALID_REQUEST', bad.problem, { askId: bad.askId }),
      );
      unreadable.push(bad);
    }
    for (const row of listed.items) {
      try {
        items.push(listedInfo(row));
      } catch (error) {
        // One bad row does not hide the others: it is reported, and named on the page.
        this.#parts.report(error);
        const askId = (row as { askId?: unknown } | undefined)?.askId;
        unreadable.push({ askId: String(askId), problem: messageOf(error) });
      }
    }
    const result: AskListResult<AskInfo> = { items };
    if (listed.cursor !== undefined) result.cursor = listed.cursor;
    if (unreadable.length > 0) result.unreadable = unreadable;
    return result;
  }

  async purge(options: PurgeOptions): Promise<number> {
    checkPurgeOptions(options);
    const { index, clock, ledger } = this.#parts;
    if (index === undefined) throw missingPort('`service.purge`', 'index');
    return purgeFinalAsks(index, clock, options.finalBefore, ledger);
  }

  history(askId: string): AsyncIterable<AskAuditEvent> {
    return this.#parts.store.history(askId);
  }

  async drain(cause: unknown = new Error('The interaction service was drained.')): Promise<void> {
    // The asks whose provider call this service runs, or is about to (its first write is in
    // flight); the machine decides whether each still takes `abort`. Sliced, so a drain of
    // 100,000 asks keeps the event loop turning.
    // One abort event for every ask drained: one stored copy of the cause, shared.
    const event = abortEvent(cause);
    const abort = (open: OpenAsk) =>
      this.#parts.settlement.abort(open, cause, event).catch((error) => open.fail(error));
    await forEachSliced([...this.#parts.replica.values()], (open) => {
      if (open.delivering) return abort(open);
      // Not yet known to be this service's to deliver: decided once its first write is in.
      if (open.ready === undefined) return undefined;
      return open.ready.then(() => (open.delivering ? abort(open) : undefined));
    });
  }

  close(): Promise<void> {
    this.#closed ??= this.#close();
    return this.#closed;
  }

  async #close(): Promise<void> {
    this.#parts.observer?.close();
    this.#parts.unsubscribe();
    this.#parts.commits.close();
    this.#parts.ownership.close();
    this.#parts.settlement.stop();
    this.#parts.sweeper.stop();
    this.#parts.retention?.stop();
    const closed = new Error(
      'The interaction service was closed before this ask settled; it stays in the store for other services.',
    );
    for (const open of this.#parts.replica.values()) this.#parts.settlement.letGo(open, closed);
    this.#parts.outcomes.close(closed);
    this.#parts.replica.clear();
    this.#parts.trail.close();
    // Resolved, close() means nothing of this service writes again: the writes in flight (a
    // storm of deadlines, a sweep's claim, a purge) land first, and no other may begin.
    await this.#parts.ledger.close();
    // Its asks are anyone's from now on: another service takes them over, or sweeps them.
    await this.#parts.lease.stop();
  }

  /** The store this service writes to, for the parts built on it (see store-of.ts). */
  get [STORE_OF](): AskLog {
    return this.#parts.store;
  }

  async [RECORD_CALLBACK_FAILURE](askId: string, callback: string, message: string): Promise<void> {
    const open = this.#parts.replica.load(await this.#parts.store.get(askId));
    if (open !== undefined) await this.#parts.trail.callbackFailed(open, callback, message);
  }

  #handle(open: OpenAsk): AskHandle {
    return createAskHandle(open, this.#parts.trail, (reason, message) => {
      void this.#parts.settlement
        .commit(
          open,
          message === undefined ? { type: 'cancel', reason } : { type: 'cancel', reason, message },
        )
        .catch((error) => open.fail(error));
    });
  }

  #checkOpen(): void {
    if (this.#closed !== undefined) {
      throw new Error('The interaction service is closed; create a new one to ask again.');
    }
  }
}
