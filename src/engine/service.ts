/** The interaction service: one provider, one actor per ask, an audit trail, exactly one outcome each. */
import { Observable, Subject, type Subscriber } from 'rxjs';
import { type Actor, createActor, type InspectionEvent, type Observer } from 'xstate';
import {
  type AskMachineContext,
  type AskMachineEvent,
  type AskMachineInput,
  type AskMachineOutcome,
  askMachine,
} from '../../machines/ask.machine.js';
import type { AskUserQuestionAnswer } from '../contracts/answer.js';
import type { AskOutcome } from '../contracts/outcome.js';
import type { AskUserRequest } from '../contracts/request.js';
import type { AskUserRequestInput } from '../contracts/tool-input.js';
import { describe } from '../rules/describe.js';
import { isUserInteractionError, UserInteractionError } from '../rules/errors.js';
import { normalizeAskUserRequest } from '../rules/normalize.js';
import { validateAskUserAnswers } from '../rules/validate-answers.js';
import type { AskStore, PersistedAskSnapshot } from '../stores/ask-store.js';
import { createMemoryAskStore } from '../stores/memory-store.js';
import {
  eventData,
  exitCause,
  isAbortError,
  messageOf,
  providerEvent,
  settledError,
} from './ask-events.js';
import { sequentialIds } from './ask-ids.js';
import type { AskAuditEvent, AskState } from './audit.js';
import { type Clock, systemClock } from './clock.js';
import { DeadlineScheduler } from './deadline-scheduler.js';
import { HibernationQueue } from './hibernation-queue.js';
import type { AskProvider, AskProviderContext } from './provider.js';
import { REDACTED, redactInspection } from './redact.js';
import type { AskHandle, AskOptions, AskSnapshot, InteractionService } from './service-contract.js';

export interface InteractionServiceOptions {
  /** Time source for deadlines and audit times; xstate's `SimulatedClock` works in tests. */
  clock?: Clock;
  /** Receives xstate inspection events of every ask (e.g. `createBrowserInspector().inspect`). */
  inspect?: Observer<InspectionEvent> | ((event: InspectionEvent) => void);
  /** Keeps deferred asks and their outcomes beyond this process; defaults to memory. */
  store?: AskStore;
  /** Replace answers by `'[redacted]'` in audit and inspection events. */
  redact?: boolean;
  /** Generates ask ids; defaults to a random prefix per service plus a counter. */
  ids?: () => string;
  /**
   * An ask still pending (or deferred) this many ms after its last event releases its live
   * actor and keeps only the actor's persisted snapshot; its next event restores the actor.
   * People answer in seconds to hours, and an idle actor costs more heap than everything else
   * the ask keeps. Default 1000; `Infinity` keeps every actor live. An inspector sees a
   * hibernated ask as a stopped actor, then a new actor with the same id.
   */
  hibernateAfterMs?: number;
}

type AskActor = Actor<typeof askMachine>;

const FINAL_STATES: ReadonlySet<AskState> = new Set([
  'answered',
  'cancelled',
  'timedOut',
  'aborted',
]);
/** Everything the service keeps about one live ask. */
class AskRecord {
  state: AskState = 'pending';
  heapIndex = -1;
  /** Created when the provider first reads `ctx.signal`. */
  controller: AbortController | undefined = undefined;
  /** The event that ended delivery; the provider's abort reason is derived from it. */
  exitEvent: AskMachineEvent | undefined = undefined;
  signal: AbortSignal | undefined = undefined;
  onAbort: (() => void) | undefined = undefined;
  interactionId: string | undefined = undefined;
  /** The live actor; `undefined` while the ask hibernates as `persisted`. */
  actor: AskActor | undefined = undefined;
  persisted: PersistedAskSnapshot | undefined = undefined;
  hibernateAt = 0;
  queued = false;
  listeners: Set<Subscriber<AskAuditEvent>> | undefined = undefined;
  /** The audit events after `start`, kept so a late subscriber to `events$` sees them all. */
  trail: AskAuditEvent[] | undefined = undefined;
  /** How and when this service took the ask on: enough to rebuild its first audit event. */
  origin: 'start' | 'restore' = 'start';
  originAt = 0;
  originState: AskState = 'pending';
  resolve!: (outcome: AskOutcome) => void;
  readonly outcome: Promise<AskOutcome>;

  constructor(
    readonly id: string,
    readonly request: AskUserRequest,
    readonly deadlineAt: number,
    readonly toolCallId: string | undefined,
    readonly sessionId: string | undefined,
  ) {
    this.outcome = new Promise((resolve) => {
      this.resolve = resolve;
    });
  }
}

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
  /** Restores a persisted ask (pending or deferred) into this service; its deadline still fires. */
  restore(snapshot: PersistedAskSnapshot): AskHandle;
  /** The persisted snapshot of a live ask, for a host that keeps pending asks itself. */
  getPersistedSnapshot(askId: string): PersistedAskSnapshot | undefined;
} {
  const service = new Service(options);
  return service;
}

class Service implements InteractionService {
  readonly events$: Observable<AskAuditEvent>;
  readonly #events = new Subject<AskAuditEvent>();
  readonly #clock: Clock;
  readonly #store: AskStore;
  readonly #redact: boolean;
  readonly #ids: () => string;
  readonly #live = new Map<string, AskRecord>();
  readonly #byInteractionId = new Map<string, AskRecord>();
  readonly #scheduler: DeadlineScheduler<AskRecord>;
  readonly #hibernation: HibernationQueue<AskRecord> | undefined;
  readonly #inspect: ((event: InspectionEvent) => void) | undefined;
  readonly #machine: typeof askMachine;
  #provider: AskProvider | undefined;
  #providerToken: object | undefined;

  constructor(options: InteractionServiceOptions) {
    checkServiceOptions(options);
    this.#clock = options.clock ?? systemClock;
    this.#store = options.store ?? createMemoryAskStore();
    this.#redact = options.redact === true;
    this.#ids = options.ids ?? sequentialIds();
    this.events$ = this.#events.asObservable();
    this.#scheduler = new DeadlineScheduler<AskRecord>(this.#clock, (record, now) =>
      this.#dispatch(record, { type: 'deadline', at: now }),
    );
    const hibernateAfterMs = options.hibernateAfterMs ?? 1_000;
    this.#hibernation = Number.isFinite(hibernateAfterMs)
      ? new HibernationQueue<AskRecord>(this.#clock, hibernateAfterMs, (record) =>
          this.#hibernate(record),
        )
      : undefined;
    this.#inspect = options.inspect === undefined ? undefined : this.#inspector(options.inspect);
    this.#machine = askMachine.provide({
      actions: {
        deliver: ({ context }) => {
          const record = this.#live.get(context.askId);
          if (record !== undefined) void this.#deliver(record);
        },
        stopDelivery: ({ context, event }) => {
          const record = this.#live.get(context.askId);
          if (record !== undefined) record.exitEvent = event;
          // Only a provider that looked at its signal has a controller to abort.
          record?.controller?.abort(exitCause(context.askId, event));
        },
      },
    });
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
    // Not `async`: returning the ask's own promise saves a wrapper promise per pending ask.
    try {
      return this.start(request, options).outcome;
    } catch (error) {
      return Promise.reject(error);
    }
  }

  start(request: AskUserRequestInput, options: AskOptions = {}): AskHandle {
    checkAskOptions(options);
    const normalized = normalizeAskUserRequest(request, { allowIds: true });
    if (!normalized.ok) throw normalized.error;
    if (this.#provider === undefined) {
      throw new UserInteractionError(
        'NO_PROVIDER',
        'No provider is registered, so nobody can be asked. Call service.registerProvider(provider) first.',
      );
    }
    const { timeoutMs: requestTimeout, ...askRequest } = normalized.value;
    const timeoutMs = options.timeoutMs ?? requestTimeout;
    if (timeoutMs !== undefined && !(Number.isFinite(timeoutMs) && timeoutMs > 0)) {
      throw new UserInteractionError(
        'INVALID_REQUEST',
        `Expected \`timeoutMs\` to be a finite number of milliseconds > 0, got ${describe(timeoutMs)}.`,
      );
    }
    const now = this.#clock.now();
    const record = new AskRecord(
      this.#ids(),
      askRequest,
      timeoutMs === undefined ? Number.POSITIVE_INFINITY : now + timeoutMs,
      options.toolCallId,
      options.sessionId,
    );
    const deadlineAt = timeoutMs === undefined ? undefined : record.deadlineAt;
    record.actor = createActor(this.#machine, {
      id: record.id,
      ...(this.#inspect === undefined ? {} : { inspect: this.#inspect }),
      input: {
        askId: record.id,
        request: askRequest,
        createdAt: now,
        ...(deadlineAt === undefined ? {} : { deadlineAt }),
        ...(options.toolCallId === undefined ? {} : { toolCallId: options.toolCallId }),
        ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
      },
    });
    this.#begin(record, 'start', options.signal);
    return this.#handle(record);
  }

  restore(snapshot: PersistedAskSnapshot): AskHandle {
    const context = (snapshot as { context?: Record<string, unknown> }).context;
    const value = (snapshot as { value?: unknown }).value;
    if (
      typeof context !== 'object' ||
      context === null ||
      typeof context.askId !== 'string' ||
      (value !== 'pending' && value !== 'deferred')
    ) {
      throw new UserInteractionError(
        'INVALID_REQUEST',
        `Expected a persisted snapshot of a pending or deferred ask, got state ${describe(value)}.`,
      );
    }
    const existing = this.#live.get(context.askId);
    if (existing !== undefined) return this.#handle(existing);
    const deadlineAt = typeof context.deadlineAt === 'number' ? context.deadlineAt : undefined;
    const record = new AskRecord(
      context.askId,
      context.request as AskUserRequest,
      deadlineAt ?? Number.POSITIVE_INFINITY,
      typeof context.toolCallId === 'string' ? context.toolCallId : undefined,
      typeof context.sessionId === 'string' ? context.sessionId : undefined,
    );
    record.state = value;
    const outcome = context.outcome as AskMachineOutcome | undefined;
    if (value === 'deferred' && outcome?.status === 'deferred') {
      record.interactionId = outcome.interactionId;
    }
    record.persisted = snapshot;
    this.#begin(record, 'restore', undefined);
    // Entry actions do not run again on restore: deliver a restored pending ask explicitly.
    if (value === 'pending') void this.#deliver(record);
    else record.resolve(outcome as AskOutcome);
    return this.#handle(record);
  }

  getPersistedSnapshot(askId: string): PersistedAskSnapshot | undefined {
    const record = this.#live.get(askId);
    if (record === undefined) return undefined;
    return (
      (record.actor?.getPersistedSnapshot() as PersistedAskSnapshot | undefined) ?? record.persisted
    );
  }

  async resume(
    interactionId: string,
    answers: readonly AskUserQuestionAnswer[],
  ): Promise<AskOutcome> {
    if (typeof interactionId !== 'string' || interactionId === '') {
      throw new UserInteractionError(
        'UNKNOWN_INTERACTION',
        `Expected an interaction id (a non-empty string), got ${describe(interactionId)}.`,
      );
    }
    let record = this.#byInteractionId.get(interactionId);
    if (record === undefined) {
      const stored = await this.#store.findByInteractionId(interactionId);
      if (stored !== undefined && FINAL_STATES.has(stored.state)) {
        this.#emit({
          askId: stored.askId,
          type: 'late-answer',
          at: this.#clock.now(),
          from: stored.state,
          to: stored.state,
          data: { source: 'resume', interactionId },
        });
        throw settledError(stored.askId, stored.state);
      }
      if (stored?.snapshot === undefined || stored.state !== 'deferred') {
        throw new UserInteractionError(
          'UNKNOWN_INTERACTION',
          `No deferred ask has interaction id "${interactionId}"; it was never deferred here or its store entry was deleted.`,
          { interactionId },
        );
      }
      // Another process deferred it; a service whose store holds it can resume it.
      record = this.#byInteractionId.get(interactionId) ?? this.#restoreRecord(stored.snapshot);
    }
    if (record.state !== 'deferred') {
      this.#recordLate(record, 'resume');
      throw settledError(record.id, record.state);
    }
    try {
      const valid = validateAskUserAnswers(record.request.questions, answers);
      this.#dispatch(record, { type: 'resume', answers: valid });
    } catch (error) {
      if (!isUserInteractionError(error)) throw error;
      this.#dispatch(record, { type: 'resume.rejected', message: error.message });
    }
    return record.outcome.then(() => this.#outcomeOf(record));
  }

  async drain(cause: unknown = new Error('The interaction service was drained.')): Promise<void> {
    const pending = [...this.#live.values()].filter((record) => record.state === 'pending');
    for (const record of pending) {
      this.#dispatch(record, { type: 'abort', cause, message: messageOf(cause) });
    }
    await Promise.all(pending.map((record) => record.outcome));
  }

  #restoreRecord(snapshot: PersistedAskSnapshot): AskRecord {
    const handle = this.restore(snapshot);
    return this.#live.get(handle.id)!;
  }

  /** Registers the ask, starts its actor, and wires it to its deadline and abort signal. */
  #begin(record: AskRecord, type: 'start' | 'restore', signal: AbortSignal | undefined): void {
    this.#live.set(record.id, record);
    if (record.interactionId !== undefined) this.#byInteractionId.set(record.interactionId, record);
    if (record.actor === undefined) this.#awake(record);
    else record.actor.start();
    this.#hibernation?.add(record);
    record.origin = type;
    record.originAt = this.#clock.now();
    record.originState = record.state;
    this.#emit(this.#firstEvent(record));
    if (Number.isFinite(record.deadlineAt)) {
      // A restored ask whose deadline passed while it was stored times out now, before any
      // provider is asked again.
      const now = this.#clock.now();
      if (record.deadlineAt <= now) this.#dispatch(record, { type: 'deadline', at: now });
      else this.#scheduler.add(record);
    }
    if (signal !== undefined && !FINAL_STATES.has(record.state)) {
      if (signal.aborted) {
        this.#dispatch(record, {
          type: 'abort',
          cause: signal.reason,
          message: messageOf(signal.reason),
        });
        return;
      }
      record.signal = signal;
      record.onAbort = () =>
        this.#dispatch(record, {
          type: 'abort',
          cause: signal.reason,
          message: messageOf(signal.reason),
        });
      signal.addEventListener('abort', record.onAbort, { once: true });
    }
  }

  /** Calls the provider (the machine's `deliver` entry action) and turns its result into an event. */
  async #deliver(record: AskRecord): Promise<void> {
    // Let the actor finish starting: the provider may answer or report progress synchronously.
    await undefined;
    if (record.state !== 'pending') return;
    const provider = this.#provider;
    if (provider === undefined) {
      this.#dispatch(record, {
        type: 'provider.cancelled',
        reason: 'unavailable',
        message: 'The provider was unregistered before the question could be delivered.',
      });
      return;
    }
    const ctx: AskProviderContext = {
      askId: record.id,
      // Lazy: an AbortController with a listener costs more heap than the whole ask
      // record, and many providers settle without ever looking at it.
      get signal() {
        if (record.controller === undefined) {
          record.controller = new AbortController();
          if (record.exitEvent !== undefined) {
            record.controller.abort(exitCause(record.id, record.exitEvent));
          }
        }
        return record.controller.signal;
      },
      reportProgress: (answers) => {
        if (record.state !== 'pending') return;
        // Checked like any answer (throws at the provider that sent it), but partial.
        const progress = validateAskUserAnswers(record.request.questions, answers, {
          partial: true,
        });
        this.#dispatch(record, { type: 'provider.progress', answers: progress });
      },
    };
    if (record.toolCallId !== undefined) ctx.toolCallId = record.toolCallId;
    if (record.sessionId !== undefined) ctx.sessionId = record.sessionId;
    if (Number.isFinite(record.deadlineAt)) ctx.deadlineAt = record.deadlineAt;

    let result: unknown;
    try {
      result = await provider.ask(record.request, ctx);
    } catch (error) {
      // A provider that rejects after the ask settled is only honouring its aborted signal.
      if (record.state !== 'pending') return;
      if (isAbortError(error)) {
        // The host drained or restarted under the provider: the ask is aborted with the
        // host's original cause, not failed.
        const cause = (error as { cause?: unknown }).cause ?? error;
        this.#dispatch(record, { type: 'abort', cause, message: messageOf(cause) });
        return;
      }
      // A provider that checked the person's answer itself (the form codec does) and refused it.
      const refused =
        isUserInteractionError(error, 'INVALID_ANSWER') ||
        isUserInteractionError(error, 'LIMIT_EXCEEDED');
      this.#dispatch(record, {
        type: 'provider.failed',
        reason: refused ? 'invalid-answer' : 'provider-error',
        message: refused ? messageOf(error) : `The provider failed: ${messageOf(error)}`,
      });
      return;
    }
    if (record.state !== 'pending') {
      this.#recordLate(record, 'provider', result);
      return;
    }
    this.#dispatch(record, providerEvent(record.request.questions, result));
  }

  /** Sends one event to the ask's actor, then audits and settles whatever it changed. */
  #dispatch(record: AskRecord, event: AskMachineEvent): void {
    const from = record.state;
    if (FINAL_STATES.has(from)) return;
    const actor = this.#awake(record);
    actor.send(event);
    const to = actor.getSnapshot().value as AskState;
    if (to === from && event.type !== 'provider.progress') return; // not accepted here
    record.state = to;
    if (!FINAL_STATES.has(to)) this.#hibernation?.add(record);
    this.#audit(record, event.type, from, to, eventData(event, record.request.questions.length));
    if (to === 'deferred') this.#defer(record);
    else if (FINAL_STATES.has(to)) this.#settle(record);
  }

  #defer(record: AskRecord): void {
    const outcome = this.#outcomeOf(record);
    if (outcome.status === 'deferred') {
      record.interactionId = outcome.interactionId;
      this.#byInteractionId.set(outcome.interactionId, record);
    }
    this.#releaseSignal(record);
    void this.#store.save({
      askId: record.id,
      state: 'deferred',
      ...(record.interactionId === undefined ? {} : { interactionId: record.interactionId }),
      ...(Number.isFinite(record.deadlineAt) ? { deadlineAt: record.deadlineAt } : {}),
      updatedAt: this.#clock.now(),
      snapshot: this.#awake(record).getPersistedSnapshot() as PersistedAskSnapshot,
    });
    record.resolve(outcome);
  }

  #settle(record: AskRecord): void {
    const outcome = this.#outcomeOf(record);
    this.#scheduler.remove(record);
    this.#hibernation?.remove(record);
    this.#releaseSignal(record);
    this.#live.delete(record.id);
    if (record.interactionId !== undefined) {
      this.#byInteractionId.delete(record.interactionId);
      // Kept so that a second resume, here or in another process, is told ASK_SETTLED.
      void this.#store.save({
        askId: record.id,
        state: record.state,
        interactionId: record.interactionId,
        updatedAt: this.#clock.now(),
        // A final `state` is what marks it settled; the answers stay out when redacting.
        ...(this.#redact && outcome.status === 'answered' ? {} : { outcome }),
      });
    }
    if (record.listeners !== undefined) {
      for (const listener of record.listeners) listener.complete();
      record.listeners = undefined;
    }
    record.resolve(outcome);
  }

  #releaseSignal(record: AskRecord): void {
    if (record.signal !== undefined && record.onAbort !== undefined) {
      record.signal.removeEventListener('abort', record.onAbort);
    }
    record.signal = undefined;
    record.onAbort = undefined;
  }

  #recordLate(record: AskRecord, source: 'provider' | 'resume', result?: unknown): void {
    const status =
      typeof result === 'object' && result !== null
        ? (result as { status?: unknown }).status
        : undefined;
    this.#audit(record, 'late-answer', record.state, record.state, {
      source,
      ...(typeof status === 'string' ? { status } : {}),
    });
  }

  #outcomeOf(record: AskRecord): AskOutcome {
    return this.#contextOf(record).outcome as AskOutcome;
  }

  #contextOf(record: AskRecord): AskMachineContext {
    if (record.actor !== undefined) return record.actor.getSnapshot().context;
    return (record.persisted as unknown as { context: AskMachineContext }).context;
  }

  /** The ask's live actor, restored from its persisted snapshot if it hibernates. */
  #awake(record: AskRecord): AskActor {
    if (record.actor !== undefined) return record.actor;
    const snapshot = record.persisted!;
    const actor = createActor(this.#machine, {
      id: record.id,
      snapshot: snapshot as never,
      // Ignored on restore (the context comes from the snapshot), but required by the types.
      input: (snapshot as unknown as { context: AskMachineInput }).context,
      ...(this.#inspect === undefined ? {} : { inspect: this.#inspect }),
    });
    record.actor = actor;
    record.persisted = undefined;
    actor.start();
    return actor;
  }

  /** Keeps only the persisted snapshot of an idle ask; stopping runs no exit action. */
  #hibernate(record: AskRecord): void {
    const actor = record.actor;
    if (actor === undefined || FINAL_STATES.has(record.state)) return;
    record.persisted = actor.getPersistedSnapshot() as PersistedAskSnapshot;
    record.actor = undefined;
    actor.stop();
  }

  #audit(
    record: AskRecord,
    type: string,
    from: AskState | null,
    to: AskState,
    data: Record<string, unknown>,
  ): void {
    const event: AskAuditEvent = {
      askId: record.id,
      type,
      at: this.#clock.now(),
      from,
      to,
      data: this.#redact && 'answers' in data ? { ...data, answers: REDACTED } : data,
    };
    record.trail ??= [];
    record.trail.push(event);
    if (record.listeners !== undefined) {
      for (const listener of record.listeners) listener.next(event);
    }
    this.#emit(event);
  }

  /**
   * The `start` / `restore` event, rebuilt on demand: most pending asks never get another
   * event, and keeping this one alive per ask would cost more heap than the ask's record.
   */
  #firstEvent(record: AskRecord): AskAuditEvent {
    const data: Record<string, unknown> = {};
    if (record.toolCallId !== undefined) data.toolCallId = record.toolCallId;
    if (record.sessionId !== undefined) data.sessionId = record.sessionId;
    if (Number.isFinite(record.deadlineAt)) data.deadlineAt = record.deadlineAt;
    data.questions = record.request.questions.length;
    return {
      askId: record.id,
      type: record.origin,
      at: record.originAt,
      from: null,
      to: record.originState,
      data,
    };
  }

  #emit(event: AskAuditEvent): void {
    // A throwing subscriber is reported by RxJS asynchronously; it never breaks the ask.
    this.#events.next(event);
  }

  #handle(record: AskRecord): AskHandle {
    const firstEvent = () => this.#firstEvent(record);
    return {
      id: record.id,
      outcome: record.outcome,
      get events$() {
        return new Observable<AskAuditEvent>((subscriber) => {
          subscriber.next(firstEvent());
          for (const event of record.trail ?? []) subscriber.next(event);
          if (FINAL_STATES.has(record.state)) {
            subscriber.complete();
            return undefined;
          }
          record.listeners ??= new Set();
          record.listeners.add(subscriber);
          return () => record.listeners?.delete(subscriber);
        });
      },
      getSnapshot: () => this.#snapshotOf(record),
      cancel: (reason = 'user', message) => {
        this.#dispatch(record, {
          type: 'cancel',
          reason,
          ...(message === undefined ? {} : { message }),
        });
      },
    };
  }

  #snapshotOf(record: AskRecord): AskSnapshot {
    const context = this.#contextOf(record);
    const snapshot: AskSnapshot = {
      askId: record.id,
      state: record.state,
      questions: record.request.questions,
      createdAt: context.createdAt,
      progress: context.progress as AskUserQuestionAnswer[],
    };
    if (context.deadlineAt !== undefined) snapshot.deadlineAt = context.deadlineAt;
    if (context.outcome !== undefined) snapshot.outcome = context.outcome as AskOutcome;
    return snapshot;
  }

  #inspector(
    inspect: Observer<InspectionEvent> | ((event: InspectionEvent) => void),
  ): (event: InspectionEvent) => void {
    const next =
      typeof inspect === 'function' ? inspect : (event: InspectionEvent) => inspect.next?.(event);
    if (!this.#redact) return next;
    return (event) => next(redactInspection(event));
  }
}

/** Every service option is checked up front, with the value received. */
function checkServiceOptions(options: InteractionServiceOptions): void {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`Expected service options to be an object, got ${describe(options)}.`);
  }
  const { clock, inspect, store, redact, ids, hibernateAfterMs } = options;
  const hasMethods = (value: unknown, names: string[]) =>
    typeof value === 'object' &&
    value !== null &&
    names.every((name) => typeof (value as Record<string, unknown>)[name] === 'function');
  if (clock !== undefined && !hasMethods(clock, ['now', 'setTimeout', 'clearTimeout'])) {
    throw new TypeError(
      `Expected \`clock\` to have now(), setTimeout() and clearTimeout(), got ${describe(clock)}.`,
    );
  }
  if (
    inspect !== undefined &&
    typeof inspect !== 'function' &&
    (typeof inspect !== 'object' || inspect === null)
  ) {
    throw new TypeError(
      `Expected \`inspect\` to be a function or an observer { next }, got ${describe(inspect)}.`,
    );
  }
  if (
    store !== undefined &&
    !hasMethods(store, ['save', 'get', 'findByInteractionId', 'delete', 'list'])
  ) {
    throw new TypeError(
      `Expected \`store\` to implement save, get, findByInteractionId, delete and list, got ${describe(store)}.`,
    );
  }
  if (redact !== undefined && typeof redact !== 'boolean') {
    throw new TypeError(`Expected \`redact\` to be a boolean, got ${describe(redact)}.`);
  }
  if (ids !== undefined && typeof ids !== 'function') {
    throw new TypeError(
      `Expected \`ids\` to be a function returning a string, got ${describe(ids)}.`,
    );
  }
  if (
    hibernateAfterMs !== undefined &&
    (typeof hibernateAfterMs !== 'number' || Number.isNaN(hibernateAfterMs) || hibernateAfterMs < 0)
  ) {
    throw new TypeError(
      `Expected \`hibernateAfterMs\` to be a number of milliseconds >= 0 (or Infinity), got ${describe(hibernateAfterMs)}.`,
    );
  }
}

/** Options are checked before anything starts, so a bad one can never leave half an ask behind. */
function checkAskOptions(options: AskOptions): void {
  if (typeof options !== 'object' || options === null) {
    throw badOption(
      'options',
      options,
      'an object { signal?, timeoutMs?, toolCallId?, sessionId? }',
    );
  }
  const { signal, toolCallId, sessionId } = options;
  if (
    signal !== undefined &&
    (typeof signal !== 'object' ||
      signal === null ||
      typeof signal.aborted !== 'boolean' ||
      typeof signal.addEventListener !== 'function')
  ) {
    throw badOption('signal', signal, 'an AbortSignal');
  }
  if (toolCallId !== undefined && typeof toolCallId !== 'string') {
    throw badOption('toolCallId', toolCallId, 'a string');
  }
  if (sessionId !== undefined && typeof sessionId !== 'string') {
    throw badOption('sessionId', sessionId, 'a string');
  }
}

function badOption(name: string, value: unknown, expected: string): UserInteractionError {
  return new UserInteractionError(
    'INVALID_REQUEST',
    `Expected ask option \`${name}\` to be ${expected}, got ${describe(value)}.`,
    { option: name },
  );
}
