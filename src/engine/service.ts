/**
 * The interaction service: one provider, asks kept in a store, exactly one outcome each. Every
 * change to an ask is a machine transition written to the store with a compare-and-set on its
 * version, together with its audit event; effects (deliver, abort the provider's signal, hand
 * the outcome to the caller) run only after the write succeeded, so a service that lost a race
 * takes the stored outcome instead.
 */
import { type Observable, Subject } from 'rxjs';
import type { AskMachineEvent, AskMachineInput } from '../../machines/ask.machine.js';
import type { AskUserQuestionAnswer } from '../contracts/answer.js';
import type { AskOutcome } from '../contracts/outcome.js';
import type { AskUserQuestion } from '../contracts/question.js';
import type { AskUserRequest } from '../contracts/request.js';
import type { AskUserRequestInput } from '../contracts/tool-input.js';
import { describe } from '../rules/describe.js';
import { isUserInteractionError, UserInteractionError } from '../rules/errors.js';
import { normalizeAskUserRequest } from '../rules/normalize.js';
import { checkTimeoutMs, deadlineFrom } from '../rules/timeout.js';
import { validateAskUserAnswers } from '../rules/validate-answers.js';
import type {
  AskStore,
  AskStoreChange,
  AskWrite,
  PersistedAskSnapshot,
  StoredAsk,
} from '../stores/ask-store.js';
import { createMemoryAskStore } from '../stores/memory-store.js';
import { abortEvent, answerCheck, auditEventOf, settledError } from './ask-events.js';
import { completeAsk, createAskHandle, firstEventOf, publishToAsk } from './ask-handle.js';
import { askIdForKey, sequentialIds } from './ask-ids.js';
import {
  type AskSnapshotState,
  applyAskEvent,
  initialAskSnapshot,
  type PersistedAskState,
  persistAskSnapshot,
  restoreAskSnapshot,
} from './ask-logic.js';
import type { AskAttemptSource, AskAuditEvent } from './audit.js';
import { RECORD_CALLBACK_FAILURE } from './callback-audit.js';
import { type Clock, systemClock } from './clock.js';
import { DeadlineScheduler } from './deadline-scheduler.js';
import { Delivery } from './delivery.js';
import { eventLoopTurn, startSlice } from './event-loop.js';
import { AskInspection } from './inspection.js';
import { OpenAsk } from './open-ask.js';
import { freezeOutcome } from './outcome-copy.js';
import type { AskProvider } from './provider.js';
import type { AskHandle, AskInfo, AskOptions, InteractionService } from './service-contract.js';
import {
  checkAskOptions,
  checkServiceOptions,
  type InteractionServiceOptions,
} from './service-options.js';
import { StoreSweeper } from './store-sweeper.js';
import { checkPersistedSnapshot, checkStoredAsk } from './stored-ask-check.js';

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
   * Takes over the stored ask a persisted snapshot names: this service delivers it from now
   * on (another service delivering it stops). Rejects `ASK_SETTLED` when it already has its
   * outcome, `UNKNOWN_INTERACTION` when the store does not have it.
   */
  restore(snapshot: PersistedAskSnapshot): Promise<AskHandle>;
  /** The persisted snapshot of an ask this service has open. */
  getPersistedSnapshot(askId: string): PersistedAskSnapshot | undefined;
} {
  return new Service(options);
}

class Service implements InteractionService {
  readonly id: string;
  readonly events$: Observable<AskAuditEvent>;
  readonly #events = new Subject<AskAuditEvent>();
  readonly #clock: Clock;
  readonly #store: AskStore;
  readonly #redact: boolean;
  readonly #ids: () => string;
  /** Asks this service delivers or waits on; deferred and final asks live only in the store. */
  readonly #open = new Map<string, OpenAsk>();
  readonly #scheduler: DeadlineScheduler<OpenAsk>;
  readonly #inspection: AskInspection | undefined;
  readonly #sweeper: StoreSweeper;
  readonly #delivery: Delivery;
  readonly #unsubscribe: () => void;
  #closed = false;
  #provider: AskProvider | undefined;
  #providerToken: object | undefined;

  constructor(options: InteractionServiceOptions) {
    checkServiceOptions(options);
    this.#clock = options.clock ?? systemClock;
    this.#store = options.store ?? createMemoryAskStore();
    this.#redact = options.redact === true;
    this.#ids = options.ids ?? sequentialIds();
    this.id = globalThis.crypto.randomUUID();
    this.events$ = this.#events.asObservable();
    this.#scheduler = new DeadlineScheduler<OpenAsk>(this.#clock, (open, now) => {
      void this.#commit(open, { type: 'deadline', at: now }).catch((error) => open.fail(error));
    });
    this.#inspection =
      options.inspect === undefined ? undefined : new AskInspection(options.inspect, this.#redact);
    this.#delivery = new Delivery({
      provider: () => this.#provider,
      quoteInput: !this.#redact,
      commit: (open, event) => this.#commit(open, event),
      recordAttempt: (open, result) => this.#recordAttempt(open, 'provider', result),
    });
    this.#unsubscribe = this.#store.subscribe((change) => this.#onStoreChange(change));
    this.#sweeper = new StoreSweeper(
      this.#store,
      this.#clock,
      options.sweepIntervalMs ?? 250,
      (stored, now) => this.#deadlineWrite(stored, now),
      (write) => this.#sweptOne(write),
    );
  }

  registerProvider(provider: AskProvider): () => void {
    if (typeof provider !== 'object' || provider === null || typeof provider.ask !== 'function') {
      throw new TypeError(
        `Expected a provider with an ask(request, ctx) method, got ${describe(provider)}.`,
      );
    }
    if (this.#provider !== undefined) {
      throw new UserInteractionError(
        'DUPLICATE_PROVIDER',
        'A provider is already registered for this service; exactly one UI owns a question. Dispose the first registration before registering another.',
      );
    }
    const token = {};
    this.#provider = provider;
    this.#providerToken = token;
    return () => {
      if (this.#providerToken !== token) return;
      this.#provider = undefined;
      this.#providerToken = undefined;
    };
  }

  ask(request: AskUserRequestInput, options?: AskOptions): Promise<AskOutcome> {
    // Not `async`, and no handle: returning the ask's own promise saves a wrapper promise and
    // a handle per ask.
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
    checkAskOptions(options);
    const normalized = normalizeAskUserRequest(request, { allowIds: true });
    if (!normalized.ok) throw normalized.error;
    if (this.#provider === undefined) {
      throw new UserInteractionError(
        'NO_PROVIDER',
        'No provider is registered, so nobody can be asked. Call service.registerProvider(provider) first.',
      );
    }
    const { questions, agent, hints, timeoutMs: requestTimeout } = normalized.value;
    // Kept per pending ask: a literal, not a rest copy (see createAskContext on hidden classes).
    const askRequest: AskUserRequest = { questions };
    if (agent !== undefined) askRequest.agent = agent;
    if (hints !== undefined) askRequest.hints = hints;
    const timeoutMs =
      options.timeoutMs === undefined
        ? requestTimeout
        : checkTimeoutMs(options.timeoutMs, 'timeoutMs');
    const now = this.#clock.now();
    const askId = options.key === undefined ? this.#ids() : askIdForKey(options.key);
    const same = this.#open.get(askId);
    if (same !== undefined) return this.#sameKey(same, askRequest);
    const open = new OpenAsk(askId, askRequest, options.key);
    // Known here at once, so an answer given in the same turn finds it.
    this.#open.set(askId, open);
    open.owner = true;
    const input: AskMachineInput = { askId, createdAt: now };
    const deadlineAt = deadlineFrom(now, timeoutMs);
    if (deadlineAt !== undefined) input.deadlineAt = deadlineAt;
    if (options.toolCallId !== undefined) input.toolCallId = options.toolCallId;
    if (options.sessionId !== undefined) input.sessionId = options.sessionId;
    if (askRequest.agent !== undefined) input.agent = askRequest.agent;
    const initial = initialAskSnapshot(input);
    open.state = persistAskSnapshot(initial);
    open.ready = this.#create(open, initial.hasTag('delivering'), options.signal);
    return open;
  }

  /** A second `start` with the key of an ask this service has open: that ask, if it is the same. */
  #sameKey(open: OpenAsk, request: AskUserRequest): OpenAsk {
    if (open.key === undefined || !sameQuestions(open.questions, request.questions)) {
      throw new UserInteractionError(
        'INVALID_REQUEST',
        `Key ${JSON.stringify(open.key)} already belongs to ask ${open.id} with other questions; a key names one request.`,
        { askId: open.id },
      );
    }
    return open;
  }

  async restore(persisted: PersistedAskSnapshot): Promise<AskHandle> {
    this.#checkOpen();
    const snapshot = checkPersistedSnapshot(persisted);
    const askId = (snapshot.context as { askId: string }).askId;
    const cached = this.#open.get(askId);
    if (cached !== undefined) return this.#handle(cached);
    const row = await this.#store.get(askId);
    if (row === undefined) {
      throw new UserInteractionError(
        'UNKNOWN_INTERACTION',
        `Ask ${askId} is not in this service's store; restore takes over a stored ask, so give both services the same store.`,
        { askId },
      );
    }
    const open = this.#fromRow(checkStoredAsk(row, 'the stored ask'));
    if (open.state.status === 'done') {
      await this.#recordAttempt(open, 'restore');
      throw settledError(askId, open.state.value);
    }
    open.origin = 'restore';
    open.ready = this.#takeOver(open);
    await open.ready;
    return this.#handle(open);
  }

  getPersistedSnapshot(askId: string): PersistedAskSnapshot | undefined {
    const open = this.#open.get(askId);
    // A copy: the store may hold the very same object.
    return open === undefined ? undefined : structuredClone(open.state);
  }

  async answer(askId: string, answers: readonly AskUserQuestionAnswer[]): Promise<AskOutcome> {
    this.#checkOpen();
    return this.#answerWith(await this.#find(askId), 'answer', answers);
  }

  /** The ask with this id: open here, or read from the store; `UNKNOWN_INTERACTION` if none. */
  async #find(askId: string): Promise<OpenAsk> {
    if (typeof askId !== 'string' || askId === '') {
      throw new UserInteractionError(
        'UNKNOWN_INTERACTION',
        `Expected an ask id (a non-empty string), got ${describe(askId)}.`,
      );
    }
    const open = this.#open.get(askId) ?? (await this.#load(await this.#store.get(askId)));
    if (open === undefined) {
      throw new UserInteractionError('UNKNOWN_INTERACTION', `No ask has id "${askId}".`, { askId });
    }
    return open;
  }

  async cancel(
    askId: string,
    reason: 'user' | 'unavailable' = 'user',
    message?: string,
  ): Promise<AskOutcome> {
    this.#checkOpen();
    if (reason !== 'user' && reason !== 'unavailable') {
      throw new UserInteractionError(
        'INVALID_REQUEST',
        `Expected the cancel reason to be "user" or "unavailable", got ${describe(reason)}.`,
      );
    }
    const open = await this.#find(askId);
    if (open.ready !== undefined) await open.ready;
    const event: AskMachineEvent =
      message === undefined ? { type: 'cancel', reason } : { type: 'cancel', reason, message };
    if (!(await this.#commit(open, event))) {
      await this.#recordAttempt(open, 'cancel');
      throw settledError(open.id, open.state.value);
    }
    return open.outcome;
  }

  async resume(
    interactionId: string,
    answers: readonly AskUserQuestionAnswer[],
  ): Promise<AskOutcome> {
    this.#checkOpen();
    if (typeof interactionId !== 'string' || interactionId === '') {
      throw new UserInteractionError(
        'UNKNOWN_INTERACTION',
        `Expected an interaction id (a non-empty string), got ${describe(interactionId)}.`,
      );
    }
    const row = await this.#store.findByInteractionId(interactionId);
    const open =
      row === undefined ? undefined : (this.#open.get(row.askId) ?? (await this.#load(row)));
    if (open === undefined) {
      throw new UserInteractionError(
        'UNKNOWN_INTERACTION',
        `No ask was deferred with interaction id "${interactionId}".`,
        { interactionId },
      );
    }
    return this.#answerWith(open, 'resume', answers);
  }

  async get(askId: string): Promise<AskInfo | undefined> {
    const row = await this.#store.get(askId);
    if (row === undefined) return undefined;
    const { snapshot: _snapshot, ...info } = checkStoredAsk(row, 'the stored ask');
    if (info.outcome !== undefined) info.outcome = freezeOutcome(info.outcome, undefined);
    return info;
  }

  history(askId: string): AsyncIterable<AskAuditEvent> {
    return this.#store.history(askId);
  }

  async drain(cause: unknown = new Error('The interaction service was drained.')): Promise<void> {
    // A copy: asks leave the map as they settle.
    const open = [...this.#open.values()];
    // Counted, not collected: settling 100,000 promises at once would stall the event loop.
    let remaining = 1;
    let done!: () => void;
    const drained = new Promise<void>((resolve) => {
      done = resolve;
    });
    const settled = () => {
      if (--remaining === 0) done();
    };
    let slice = startSlice();
    for (const ask of open) {
      // The asks whose provider call this service runs; the machine decides whether each
      // still takes `abort`. Sliced, so a drain of 100,000 asks keeps the event loop turning.
      if (!ask.delivering) continue;
      if (slice.spent()) {
        await eventLoopTurn();
        slice = startSlice();
      }
      ask.localCause = cause;
      remaining++;
      this.#commit(ask, abortEvent(cause)).then(settled, (error) => {
        ask.fail(error);
        settled();
      });
    }
    settled();
    await drained;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#unsubscribe();
    this.#scheduler.stop();
    this.#sweeper.stop();
    const closed = new Error(
      'The interaction service was closed before this ask settled; it stays in the store for other services.',
    );
    for (const open of this.#open.values()) {
      this.#delivery.stop(open, undefined, closed);
      this.#releaseSignal(open);
      completeAsk(open);
      open.fail(closed);
    }
    this.#open.clear();
    this.#events.complete();
  }

  // ── writing ────────────────────────────────────────────────────────────────────────────

  /** Writes a new ask; on a key that exists, attaches to the stored ask instead. */
  async #create(open: OpenAsk, deliver: boolean, signal: AbortSignal | undefined): Promise<void> {
    try {
      const row = this.#row(open, open.state, 1);
      const event = firstEventOf(open, row.version);
      const result = await this.#store.create({ ask: row, event });
      if (!result.created) {
        await this.#attach(open, checkStoredAsk(result.existing, 'the stored ask'), signal);
        return;
      }
      open.version = 1;
      this.#publish(open, event, true);
      if (this.#inspection !== undefined) {
        open.actorRef = this.#inspection.actorOf(open.id, () => restoreAskSnapshot(open.state));
      }
      await this.#watch(open, signal);
      if (deliver && !open.handedOut) this.#delivery.start(open);
    } catch (error) {
      if (this.#open.get(open.id) === open) this.#open.delete(open.id);
      open.fail(error);
    } finally {
      open.ready = undefined;
    }
  }

  /** `start` with a key that is in the store already: the same ask, not a second one. */
  async #attach(open: OpenAsk, stored: StoredAsk, signal: AbortSignal | undefined): Promise<void> {
    if (open.key === undefined || stored.key !== open.key) {
      throw new UserInteractionError(
        'INVALID_REQUEST',
        `Ask id ${open.id} is taken by another ask in the store; choose ids (or keys) that are unique.`,
        { askId: open.id },
      );
    }
    if (!sameQuestions(stored.questions, open.questions)) {
      throw new UserInteractionError(
        'INVALID_REQUEST',
        `Key ${JSON.stringify(open.key)} already belongs to ask ${stored.askId} with other questions; a key names one request.`,
        { askId: stored.askId, key: open.key },
      );
    }
    open.owner = false;
    this.#adoptRow(open, stored);
    if (open.handedOut) return;
    await this.#watch(open, signal);
  }

  /** `restore`: this service becomes the ask's owner with a write of its own. */
  async #takeOver(open: OpenAsk): Promise<void> {
    try {
      await this.#takeOverNow(open);
    } finally {
      open.ready = undefined;
    }
  }

  async #takeOverNow(open: OpenAsk): Promise<void> {
    for (;;) {
      const row = this.#row(open, open.state, open.version + 1);
      const event: AskAuditEvent = {
        askId: open.id,
        type: 'restore',
        at: row.updatedAt,
        from: row.state,
        to: row.state,
        data: { version: row.version },
      };
      const result = await this.#store.update({ ask: row, event }, open.version);
      if (result.ok) {
        open.version = row.version;
        open.owner = true;
        this.#publish(open, event, true);
        break;
      }
      if (result.reason !== 'version' || result.current === undefined) {
        throw new Error(`Ask ${open.id} could not be taken over: ${result.reason}.`);
      }
      this.#adoptRow(open, checkStoredAsk(result.current, 'the stored ask'));
      if (open.handedOut) return;
    }
    this.#open.set(open.id, open);
    if (this.#inspection !== undefined) {
      open.actorRef = this.#inspection.actorOf(open.id, () => restoreAskSnapshot(open.state));
    }
    await this.#watch(open, undefined);
    if (open.handedOut) return;
    if (restoreAskSnapshot(open.state).hasTag('delivering')) this.#delivery.start(open);
    else this.#handOut(open);
  }

  /**
   * Applies `event` to the ask once the store has it; true if the machine took it. Events that
   * race (here or in other services) need no lock: the loser's write fails its version check,
   * and it tries again on what the store holds.
   */
  #commit(open: OpenAsk, event: AskMachineEvent): Promise<boolean> {
    return open.ready === undefined
      ? this.#commitNow(open, event)
      : open.ready.then(() => this.#commitNow(open, event));
  }

  async #commitNow(open: OpenAsk, event: AskMachineEvent): Promise<boolean> {
    for (;;) {
      const from = open.state;
      const next = applyAskEvent(restoreAskSnapshot(from), event);
      if (next === undefined) return false;
      const state = persistAskSnapshot(next);
      const row = this.#row(open, state, open.version + 1);
      const audit = auditEventOf(
        open.id,
        event,
        from.value,
        row.state,
        row.updatedAt,
        open.questions.length,
        this.#redact,
      );
      open.writing = row.version;
      const result = await this.#store.update({ ask: row, event: audit }, open.version);
      open.writing = 0;
      if (result.ok) {
        this.#adopt(open, next, state, row.version, event, audit);
        return true;
      }
      if (result.reason === 'interaction-id') {
        // One chat thread, one open question: a second deferral to it is the provider's bug.
        event = {
          type: 'provider.failed',
          reason: 'provider-error',
          message: `The provider deferred to interaction id "${(event as { interactionId?: string }).interactionId}", which ask ${result.holder} already waits on; an interaction id names one open ask.`,
        };
        continue;
      }
      if (result.current === undefined) {
        throw new Error(`Ask ${open.id} is no longer in the store; it cannot change.`);
      }
      // Another service wrote first: take what it wrote, then see if the event still applies.
      this.#adoptRow(open, checkStoredAsk(result.current, 'the stored ask'));
    }
  }

  /** The row for `state` at `version`: everything the store keeps of the ask. */
  #row(open: OpenAsk, state: PersistedAskState, version: number): StoredAsk {
    const { context } = state;
    if (context.outcome?.status === 'deferred') open.interactionId = context.outcome.interactionId;
    const row: StoredAsk = {
      askId: open.id,
      state: state.value,
      version,
      snapshot: state,
      questions: open.questions,
      final: state.status === 'done',
      createdAt: context.createdAt,
      updatedAt: this.#clock.now(),
    };
    if (context.outcome !== undefined) row.outcome = context.outcome as AskOutcome;
    if (open.interactionId !== undefined) row.interactionId = open.interactionId;
    if (open.key !== undefined) row.key = open.key;
    if (context.deadlineAt !== undefined) row.deadlineAt = context.deadlineAt;
    if (open.owner) row.owner = this.id;
    return row;
  }

  // ── effects ────────────────────────────────────────────────────────────────────────────

  /**
   * Takes a snapshot the store now holds and does what it implies here: stop delivering when
   * the ask no longer waits on this service's provider, hand out an outcome once there is one.
   */
  #adopt(
    open: OpenAsk,
    next: AskSnapshotState,
    state: PersistedAskState,
    version: number,
    event: AskMachineEvent | undefined,
    audit?: AskAuditEvent,
  ): void {
    open.state = state;
    open.version = version;
    if (audit !== undefined) this.#publish(open, audit, false);
    if (open.actorRef !== undefined && event !== undefined) {
      this.#inspection?.transition(open.actorRef, event, next);
    }
    if (!(open.owner && next.hasTag('delivering'))) this.#delivery.stop(open, event, undefined);
    if (next.context.outcome !== undefined) this.#handOut(open);
  }

  /** A row another service wrote (or the store handed back after a lost race). */
  #adoptRow(open: OpenAsk, row: StoredAsk): void {
    if (row.version <= open.version) return;
    if (row.owner !== this.id) open.owner = false;
    const snapshot = restoreAskSnapshot(row.snapshot);
    if (open.actorRef !== undefined) this.#inspection?.changed(open.actorRef, snapshot);
    this.#adopt(open, snapshot, row.snapshot as PersistedAskState, row.version, undefined);
  }

  #handOut(open: OpenAsk): void {
    if (open.handedOut) return;
    const outcome = open.state.context.outcome;
    if (outcome === undefined) return;
    open.handedOut = true;
    this.#scheduler.remove(open);
    this.#releaseSignal(open);
    this.#open.delete(open.id);
    completeAsk(open);
    open.resolve(freezeOutcome(outcome as AskOutcome, open.localCause));
  }

  /**
   * Wires an ask this service now holds to its deadline and the caller's abort signal. Runs
   * inside the ask's queue: a deadline already passed (a restored ask) or a signal already
   * aborted ends the ask here, before any provider is asked.
   */
  async #watch(open: OpenAsk, signal: AbortSignal | undefined): Promise<void> {
    const { deadlineAt } = open.state.context;
    if (deadlineAt !== undefined) {
      const now = this.#clock.now();
      if (deadlineAt <= now) {
        await this.#commitNow(open, { type: 'deadline', at: now });
        return;
      }
      open.deadlineAt = deadlineAt;
      this.#scheduler.add(open);
    }
    if (signal === undefined) return;
    if (signal.aborted) {
      open.localCause = signal.reason;
      await this.#commitNow(open, abortEvent(signal.reason));
      return;
    }
    const abort = () => {
      open.localCause = signal.reason;
      void this.#commit(open, abortEvent(signal.reason)).catch((error) => open.fail(error));
    };
    open.signal = signal;
    open.onAbort = abort;
    signal.addEventListener('abort', abort, { once: true });
  }

  #releaseSignal(open: OpenAsk): void {
    if (open.signal !== undefined && open.onAbort !== undefined) {
      open.signal.removeEventListener('abort', open.onAbort);
    }
    open.signal = undefined;
    open.onAbort = undefined;
  }

  /** `answer` / `resume`: checked against the stored questions, then one transition. */
  async #answerWith(
    open: OpenAsk,
    type: 'answer' | 'resume',
    answers: readonly AskUserQuestionAnswer[],
  ): Promise<AskOutcome> {
    if (open.ready !== undefined) await open.ready;
    if (open.state.status === 'done') {
      await this.#recordAttempt(open, type);
      throw settledError(open.id, open.state.value);
    }
    if (!restoreAskSnapshot(open.state).can({ type, answers: [] })) {
      throw new UserInteractionError(
        'INVALID_REQUEST',
        `Ask ${open.id} is ${open.state.value}; \`${type}\` does not apply to it${type === 'resume' ? ' (use answer)' : ''}.`,
        { askId: open.id },
      );
    }
    let valid: AskUserQuestionAnswer[];
    try {
      valid = validateAskUserAnswers(open.questions, answers, answerCheck(!this.#redact));
    } catch (error) {
      if (isUserInteractionError(error)) {
        await this.#append(open, {
          askId: open.id,
          type: 'answer.refused',
          at: this.#clock.now(),
          from: open.state.value,
          to: open.state.value,
          data: { source: type, message: error.message },
        });
      }
      throw error;
    }
    if (!(await this.#commit(open, { type, answers: valid }))) {
      await this.#recordAttempt(open, type);
      throw settledError(open.id, open.state.value);
    }
    return open.outcome;
  }

  /** An attempt on an ask whose outcome is fixed: audited, changes nothing. */
  async #recordAttempt(open: OpenAsk, source: AskAttemptSource, result?: unknown): Promise<void> {
    let status: unknown;
    try {
      status =
        typeof result === 'object' && result !== null
          ? ((result as { status?: unknown; type?: unknown }).status ??
            (result as { type?: unknown }).type)
          : undefined;
    } catch {
      status = undefined;
    }
    const state = open.state.value;
    await this.#append(open, {
      askId: open.id,
      type: 'late-answer',
      at: this.#clock.now(),
      from: state,
      to: state,
      data: typeof status === 'string' ? { source, status } : { source },
    });
  }

  async [RECORD_CALLBACK_FAILURE](askId: string, callback: string, message: string): Promise<void> {
    const open = this.#open.get(askId) ?? (await this.#load(await this.#store.get(askId)));
    if (open === undefined) return;
    await this.#append(open, {
      askId,
      type: 'callback.failed',
      at: this.#clock.now(),
      from: open.state.value,
      to: open.state.value,
      data: { callback, message },
    });
  }

  async #append(open: OpenAsk, event: AskAuditEvent): Promise<void> {
    await this.#store.append(event);
    this.#publish(open, event, false);
  }

  // ── reading the store ──────────────────────────────────────────────────────────────────

  /** An ask this service does not hold, read from a row for one answer or resume. */
  async #load(row: StoredAsk | undefined): Promise<OpenAsk | undefined> {
    if (row === undefined) return undefined;
    return this.#fromRow(checkStoredAsk(row, 'the stored ask'));
  }

  #fromRow(row: StoredAsk): OpenAsk {
    const { context } = row.snapshot as { context: AskMachineInput };
    const request =
      context.agent === undefined
        ? { questions: row.questions }
        : { questions: row.questions, agent: context.agent };
    const open = new OpenAsk(row.askId, request, row.key);
    open.state = row.snapshot as PersistedAskState;
    open.version = row.version;
    open.interactionId = row.interactionId;
    open.owner = row.owner === this.id;
    return open;
  }

  #onStoreChange(change: AskStoreChange): void {
    if (change.type === 'missed') {
      for (const open of this.#open.values()) this.#refresh(open, Number.POSITIVE_INFINITY);
      return;
    }
    const open = this.#open.get(change.askId);
    // A store may tell this service of its own write before the write has returned here.
    if (open !== undefined && change.version > open.version && change.version !== open.writing) {
      this.#refresh(open, change.version);
    }
  }

  #refresh(open: OpenAsk, version: number): void {
    const run = async () => {
      if (open.ready !== undefined) await open.ready;
      if (version <= open.version || open.handedOut) return;
      const row = await this.#store.get(open.id);
      if (row !== undefined) this.#adoptRow(open, checkStoredAsk(row, 'the stored ask'));
    };
    run().catch((error) => open.fail(error));
  }

  // ── deadlines in the store ─────────────────────────────────────────────────────────────

  /** The timeout of a due ask the sweeper claimed, or nothing for a row this service refuses. */
  #deadlineWrite(stored: StoredAsk, now: number): AskWrite | undefined {
    let open: OpenAsk;
    try {
      open = this.#fromRow(checkStoredAsk(stored, 'the stored ask'));
    } catch {
      return undefined;
    }
    const event: AskMachineEvent = { type: 'deadline', at: now };
    const next = applyAskEvent(restoreAskSnapshot(open.state), event);
    if (next === undefined) return undefined;
    const ask = this.#row(open, persistAskSnapshot(next), open.version + 1);
    // The sweeper does not take the ask over: the owner stays as stored.
    if (stored.owner !== undefined) ask.owner = stored.owner;
    else delete ask.owner;
    return {
      ask,
      event: auditEventOf(
        open.id,
        event,
        open.state.value,
        ask.state,
        now,
        open.questions.length,
        this.#redact,
      ),
    };
  }

  #sweptOne(write: AskWrite): void {
    const open = this.#open.get(write.ask.askId);
    if (open !== undefined) this.#refresh(open, write.ask.version);
    this.#events.next(write.event);
  }

  /** Sends an audit event to `events$`, and a later one to the ask's own subscribers. */
  #publish(open: OpenAsk, event: AskAuditEvent, first: boolean): void {
    if (!first) publishToAsk(open, event);
    // A throwing subscriber is reported by RxJS asynchronously; it never breaks the ask.
    this.#events.next(event);
  }

  #handle(open: OpenAsk): AskHandle {
    return createAskHandle(open, (reason, message) => {
      void this.#commit(open, {
        type: 'cancel',
        reason,
        ...(message === undefined ? {} : { message }),
      }).catch((error) => open.fail(error));
    });
  }

  #checkOpen(): void {
    if (this.#closed) {
      throw new Error('The interaction service is closed; create a new one to ask again.');
    }
  }
}

function sameQuestions(a: readonly AskUserQuestion[], b: readonly AskUserQuestion[]): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
