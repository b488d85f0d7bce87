/** The default store: asks and their histories in this process's memory, shared by its services. */
import type { AskAuditEvent } from '../engine/audit.js';
import type {
  AskCreateResult,
  AskStore,
  AskStoreChange,
  AskUpdateResult,
  AskWrite,
  StoredAsk,
} from './ask-store.js';

export interface MemoryAskStoreOptions {
  /**
   * Settled (final) asks kept, with their history, so that a late answer is told
   * `ASK_SETTLED` and a key finds its outcome; the oldest settled ask is forgotten first.
   * Asks that are not final are always kept. Default 10,000; `Infinity` keeps everything.
   */
  maxSettledAsks?: number;
}

/**
 * Same semantics as the durable stores, for one process: services created with the same memory
 * store see each other's asks, answers and deadlines. Rows are kept as given and must not be
 * mutated afterwards (the service writes a new row per transition). Unlike a database it keeps
 * only the last `maxSettledAsks` settled asks, so a long-running process does not grow forever.
 *
 * @example
 * const store = createMemoryAskStore();
 * const worker = createInteractionService({ store });
 * const webhook = createInteractionService({ store }); // answers worker's asks
 */
export function createMemoryAskStore(options: MemoryAskStoreOptions = {}): AskStore {
  const maxSettledAsks = options.maxSettledAsks ?? 10_000;
  if (typeof maxSettledAsks !== 'number' || !(maxSettledAsks >= 0)) {
    throw new TypeError(
      `Expected \`maxSettledAsks\` to be a number >= 0 (or Infinity), got ${String(maxSettledAsks)}.`,
    );
  }
  return new MemoryAskStore(maxSettledAsks);
}

class MemoryAskStore implements AskStore {
  readonly #asks = new Map<string, StoredAsk>();
  readonly #history = new Map<string, AskAuditEvent | AskAuditEvent[]>();
  /** Open asks by interaction id (unique), then settled ones (the last to settle wins). */
  readonly #openByInteraction = new Map<string, string>();
  readonly #settledByInteraction = new Map<string, string>();
  readonly #byKey = new Map<string, string>();
  readonly #listeners = new Set<(change: AskStoreChange) => void>();
  /** Settled ask ids, oldest first. */
  readonly #settled = new Set<string>();
  readonly #maxSettled: number;
  #pending: AskStoreChange[] = [];
  #closed = false;

  constructor(maxSettled: number) {
    this.#maxSettled = maxSettled;
  }

  async create(write: AskWrite): Promise<AskCreateResult> {
    this.#open();
    const { ask } = write;
    const existingId = this.#asks.has(ask.askId)
      ? ask.askId
      : ask.key === undefined
        ? undefined
        : this.#byKey.get(ask.key);
    if (existingId !== undefined) return { created: false, existing: this.#asks.get(existingId)! };
    this.#asks.set(ask.askId, ask);
    if (ask.key !== undefined) this.#byKey.set(ask.key, ask.askId);
    if (ask.interactionId !== undefined) this.#index(ask);
    this.#history.set(ask.askId, write.event);
    this.#changed(ask);
    return { created: true };
  }

  async update(write: AskWrite, expectedVersion: number): Promise<AskUpdateResult> {
    this.#open();
    const { ask } = write;
    const current = this.#asks.get(ask.askId);
    if (current === undefined || current.version !== expectedVersion) {
      return { ok: false, reason: 'version', current };
    }
    if (ask.interactionId !== undefined && !ask.final) {
      const holder = this.#openByInteraction.get(ask.interactionId);
      if (holder !== undefined && holder !== ask.askId) {
        return { ok: false, reason: 'interaction-id', holder };
      }
    }
    this.#apply(write);
    return { ok: true };
  }

  async append(event: AskAuditEvent): Promise<void> {
    this.#open();
    if (!this.#asks.has(event.askId)) {
      throw new Error(`Cannot append an audit event to unknown ask ${event.askId}.`);
    }
    this.#appendEvent(event);
  }

  async get(askId: string): Promise<StoredAsk | undefined> {
    this.#open();
    return this.#asks.get(askId);
  }

  async findByInteractionId(interactionId: string): Promise<StoredAsk | undefined> {
    this.#open();
    const askId =
      this.#openByInteraction.get(interactionId) ?? this.#settledByInteraction.get(interactionId);
    return askId === undefined ? undefined : this.#asks.get(askId);
  }

  async findByKey(key: string): Promise<StoredAsk | undefined> {
    this.#open();
    const askId = this.#byKey.get(key);
    return askId === undefined ? undefined : this.#asks.get(askId);
  }

  async *history(askId: string): AsyncIterable<AskAuditEvent> {
    this.#open();
    const events = this.#history.get(askId);
    if (events === undefined) return;
    if (!Array.isArray(events)) {
      yield events;
      return;
    }
    // A copy: events appended while the caller iterates belong to a later read.
    yield* events.slice();
  }

  async claimDue(
    now: number,
    limit: number,
    settle: (ask: StoredAsk) => AskWrite | undefined,
  ): Promise<AskWrite[]> {
    this.#open();
    const due: StoredAsk[] = [];
    for (const ask of this.#asks.values()) {
      if (!ask.final && ask.deadlineAt !== undefined && ask.deadlineAt <= now) due.push(ask);
    }
    due.sort((a, b) => (a.deadlineAt as number) - (b.deadlineAt as number));
    const applied: AskWrite[] = [];
    for (const ask of due.slice(0, limit)) {
      const write = settle(ask);
      if (write === undefined) continue;
      this.#apply(write);
      applied.push(write);
    }
    return applied;
  }

  subscribe(listener: (change: AskStoreChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#listeners.clear();
  }

  #apply({ ask, event }: AskWrite): void {
    const previous = this.#asks.get(ask.askId);
    if (previous?.interactionId !== undefined && previous.interactionId !== ask.interactionId) {
      this.#unindex(previous);
    }
    this.#asks.set(ask.askId, ask);
    if (ask.interactionId !== undefined) this.#index(ask);
    this.#appendEvent(event);
    this.#changed(ask);
    if (ask.final) this.#retire(ask.askId);
  }

  /** Keeps the settled ask, forgetting the oldest settled one beyond the limit. */
  #retire(askId: string): void {
    this.#settled.add(askId);
    while (this.#settled.size > this.#maxSettled) {
      const oldest = this.#settled.values().next().value as string;
      this.#settled.delete(oldest);
      const ask = this.#asks.get(oldest);
      this.#asks.delete(oldest);
      this.#history.delete(oldest);
      if (ask?.key !== undefined) this.#byKey.delete(ask.key);
      if (
        ask?.interactionId !== undefined &&
        this.#settledByInteraction.get(ask.interactionId) === oldest
      ) {
        this.#settledByInteraction.delete(ask.interactionId);
      }
    }
  }

  #index(ask: StoredAsk): void {
    const id = ask.interactionId as string;
    if (ask.final) {
      if (this.#openByInteraction.get(id) === ask.askId) this.#openByInteraction.delete(id);
      this.#settledByInteraction.set(id, ask.askId);
    } else {
      this.#openByInteraction.set(id, ask.askId);
    }
  }

  #unindex(ask: StoredAsk): void {
    const id = ask.interactionId as string;
    if (this.#openByInteraction.get(id) === ask.askId) this.#openByInteraction.delete(id);
  }

  #appendEvent(event: AskAuditEvent): void {
    // Most asks have one or two events: the first is kept bare, not in an array.
    const events = this.#history.get(event.askId);
    if (events === undefined) this.#history.set(event.askId, event);
    else if (Array.isArray(events)) events.push(event);
    else this.#history.set(event.askId, [events, event]);
  }

  #changed(ask: StoredAsk): void {
    if (this.#listeners.size === 0) return;
    if (this.#pending.length === 0) queueMicrotask(() => this.#flush());
    this.#pending.push({ type: 'changed', askId: ask.askId, version: ask.version });
  }

  #flush(): void {
    const changes = this.#pending;
    this.#pending = [];
    for (const change of changes) {
      for (const listener of this.#listeners) listener(change);
    }
  }

  #open(): void {
    if (this.#closed) throw new Error('The memory ask store is closed.');
  }
}
