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
import { ChangeFanout } from './change-fanout.js';
import { DeadlineHeap, type HeapSlot } from './deadline-heap.js';

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

/**
 * One ask: its current row, its history (the first event kept bare, most asks have two) and,
 * while it is open with a deadline, its place in the deadline heap.
 */
interface Entry extends HeapSlot {
  row: StoredAsk;
  first: AskAuditEvent;
  rest: AskAuditEvent[] | undefined;
}

class MemoryAskStore implements AskStore {
  readonly #asks = new Map<string, Entry>();
  /** Open asks by interaction id (unique), then settled ones (the last to settle wins). */
  readonly #openByInteraction = new Map<string, string>();
  readonly #settledByInteraction = new Map<string, string>();
  readonly #byKey = new Map<string, string>();
  readonly #fanout = new ChangeFanout();
  /** Open asks with a deadline, earliest first: a sweep reads only the due ones. */
  readonly #deadlines = new DeadlineHeap<Entry>();
  /** Settled ask ids, oldest first from `#settledHead`. */
  #settled: string[] = [];
  #settledHead = 0;
  readonly #maxSettled: number;
  #closed = false;

  constructor(maxSettled: number) {
    this.#maxSettled = maxSettled;
  }

  async create(write: AskWrite): Promise<AskCreateResult> {
    this.#open();
    const { ask } = write;
    const existing =
      this.#asks.get(ask.askId) ??
      (ask.key === undefined ? undefined : this.#asks.get(this.#byKey.get(ask.key) ?? ''));
    if (existing !== undefined) return { created: false, existing: existing.row };
    const entry: Entry = {
      row: ask,
      first: write.event,
      rest: undefined,
      heapDeadline: 0,
      heapOrder: 0,
      heapIndex: -1,
    };
    this.#asks.set(ask.askId, entry);
    this.#schedule(entry);
    if (ask.key !== undefined) this.#byKey.set(ask.key, ask.askId);
    if (ask.interactionId !== undefined) this.#index(ask);
    this.#changed(ask);
    if (ask.final) this.#retire(ask.askId);
    return { created: true };
  }

  async update(write: AskWrite, expectedVersion: number): Promise<AskUpdateResult> {
    this.#open();
    const { ask } = write;
    const entry = this.#asks.get(ask.askId);
    if (entry === undefined || entry.row.version !== expectedVersion) {
      return { ok: false, reason: 'version', current: entry?.row };
    }
    if (ask.interactionId !== undefined && !ask.final) {
      const holder = this.#openByInteraction.get(ask.interactionId);
      if (holder !== undefined && holder !== ask.askId) {
        return { ok: false, reason: 'interaction-id', holder };
      }
    }
    this.#apply(entry, write);
    return { ok: true };
  }

  async append(event: AskAuditEvent): Promise<void> {
    this.#open();
    const entry = this.#asks.get(event.askId);
    if (entry === undefined) {
      throw new Error(`Cannot append an audit event to unknown ask ${event.askId}.`);
    }
    record(entry, event);
  }

  async get(askId: string): Promise<StoredAsk | undefined> {
    this.#open();
    return this.#asks.get(askId)?.row;
  }

  async findByInteractionId(interactionId: string): Promise<StoredAsk | undefined> {
    this.#open();
    const askId =
      this.#openByInteraction.get(interactionId) ?? this.#settledByInteraction.get(interactionId);
    return askId === undefined ? undefined : this.#asks.get(askId)?.row;
  }

  async findByKey(key: string): Promise<StoredAsk | undefined> {
    this.#open();
    const askId = this.#byKey.get(key);
    return askId === undefined ? undefined : this.#asks.get(askId)?.row;
  }

  async *history(askId: string): AsyncIterable<AskAuditEvent> {
    this.#open();
    const entry = this.#asks.get(askId);
    if (entry === undefined) return;
    // A copy: events appended while the caller iterates belong to a later read.
    const events = entry.rest === undefined ? [entry.first] : [entry.first, ...entry.rest];
    yield* events;
  }

  async claimDue(
    now: number,
    limit: number,
    settle: (ask: StoredAsk) => AskWrite | undefined,
  ): Promise<AskWrite[]> {
    this.#open();
    const applied: AskWrite[] = [];
    // Asks `settle` declines (a row it refuses) do not count and must not starve the others:
    // they are taken out while this sweep reads past them, and put back at its end.
    const declined: Entry[] = [];
    while (applied.length < limit) {
      const entry = this.#deadlines.popDue(now);
      if (entry === undefined) break;
      const write = settle(entry.row);
      if (write === undefined || write.ask.version !== entry.row.version + 1) {
        declined.push(entry);
        continue;
      }
      this.#apply(entry, write);
      applied.push(write);
    }
    for (const entry of declined) this.#deadlines.restore(entry);
    return applied;
  }

  subscribe(listener: (change: AskStoreChange) => void): () => void {
    this.#open();
    return this.#fanout.subscribe(listener);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#fanout.close();
  }

  #apply(entry: Entry, { ask, event }: AskWrite): void {
    const previous = entry.row;
    if (previous.interactionId !== undefined && previous.interactionId !== ask.interactionId) {
      this.#unindex(previous);
    }
    entry.row = ask;
    this.#schedule(entry);
    if (ask.interactionId !== undefined) this.#index(ask);
    record(entry, event);
    this.#changed(ask);
    if (ask.final) this.#retire(ask.askId);
  }

  /** Keeps `entry` in the deadline heap while it is open and has a deadline. */
  #schedule(entry: Entry): void {
    const { row } = entry;
    if (row.final || row.deadlineAt === undefined) this.#deadlines.delete(entry);
    else this.#deadlines.set(entry, row.deadlineAt);
  }

  /** Keeps the settled ask, forgetting the oldest settled ones beyond the limit. */
  #retire(askId: string): void {
    this.#settled.push(askId);
    while (this.#settled.length - this.#settledHead > this.#maxSettled) {
      const oldest = this.#settled[this.#settledHead++] as string;
      const row = this.#asks.get(oldest)?.row;
      this.#asks.delete(oldest);
      if (row?.key !== undefined) this.#byKey.delete(row.key);
      if (
        row?.interactionId !== undefined &&
        this.#settledByInteraction.get(row.interactionId) === oldest
      ) {
        this.#settledByInteraction.delete(row.interactionId);
      }
    }
    if (this.#settledHead > 1024 && this.#settledHead * 2 > this.#settled.length) {
      this.#settled = this.#settled.slice(this.#settledHead);
      this.#settledHead = 0;
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

  #changed(ask: StoredAsk): void {
    this.#fanout.emit({ type: 'changed', askId: ask.askId, version: ask.version });
  }

  #open(): void {
    if (this.#closed) throw new Error('The memory ask store is closed.');
  }
}

function record(entry: Entry, event: AskAuditEvent): void {
  if (entry.rest === undefined) entry.rest = [event];
  else entry.rest.push(event);
}
