/** The default store: asks and their histories in this process's memory, shared by its services. */
import type { AskAuditEvent } from '../engine/audit.js';
import { DeadlineHeap, type HeapSlot } from '../engine/deadline-heap.js';
import { checkStoreText } from '../rules/store-text.js';
import { notInsertedAnswer } from './ask-create.js';
import {
  type AskListFilter,
  type AskListPage,
  type AskListResult,
  checkPurge,
  listedAsk,
  matchesQuery,
  pageOf,
  readAskQuery,
} from './ask-query.js';
import type {
  AskCreateResult,
  AskStore,
  AskStoreChange,
  AskSubscribeOptions,
  AskUpdateResult,
  AskWrite,
  ClaimedOutboxEntry,
  ListedAsk,
  StoredAsk,
} from './ask-store.js';
import { ChangeFanout, subscriberWriter } from './change-fanout.js';
import { roundSpent } from './claim-lanes.js';
import { MemoryWorkClaims } from './memory-work-claims.js';
import {
  checkOutboxClaim,
  checkOutboxRenew,
  checkOutboxTake,
  claimedEntryOf,
  type OutboxRow,
  type OutboxRowStart,
  outboxRowStart,
  outboxRowsOf,
} from './outbox.js';
import { checkOwnerLease, leaseRuns } from './owner-lease.js';
import type { WorkClaim, WorkClaimRequest } from './work-claims.js';

/** An outbox entry as this store keeps it, and its place in the heap of claimable entries. */
interface OutboxSlot extends Omit<OutboxRow, 'lease'>, OutboxRowStart, HeapSlot {
  done: boolean;
}

/**
 * Same semantics as the durable stores, for one process: services created with the same memory
 * store see each other's asks, answers and deadlines. Rows are kept as given and must not be
 * mutated afterwards (the service writes a new row per transition). Settled asks are kept, as
 * in a database, until `purge` deletes them: the service's `retention` option does, and a
 * service that creates its own memory store purges it by default (see `InteractionServiceOptions`).
 *
 * @example
 * const store = createMemoryAskStore();
 * const worker = createInteractionService({ store, retention: { finalAfterMs: 3_600_000 } });
 * const webhook = createInteractionService({ store }); // answers worker's asks
 */
export function createMemoryAskStore(options: Record<string, never> = {}): AskStore {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`Expected no options or {}, got ${String(options)}.`);
  }
  for (const name of Object.keys(options)) {
    // The count cap of earlier releases gave way to time-based retention.
    throw new TypeError(
      name === 'maxSettledAsks'
        ? 'createMemoryAskStore no longer takes `maxSettledAsks`: settled asks are deleted by age, with the service option `retention: { finalAfterMs }` (or `service.purge`).'
        : `Unknown memory store option \`${name}\`.`,
    );
  }
  return new MemoryAskStore();
}

/**
 * One ask: its current row, its history and its place in a heap. The history is `first`, then
 * `rest`: nothing, the second event bare (most asks have two), or from the third on a list of
 * every event after the first (see `record`). The heap: while the ask is open with a deadline,
 * the deadline heap; once it is final, the heap of settled asks by `updatedAt`. Never both (a
 * final ask has no deadline to keep), so the two share one slot.
 */
interface Entry extends HeapSlot {
  row: StoredAsk;
  first: AskAuditEvent;
  rest: AskAuditEvent | AskAuditEvent[] | undefined;
}

class MemoryAskStore implements AskStore {
  readonly #asks = new Map<string, Entry>();
  /** Each interaction id's ask: the open ask that holds it (unique), else the last to settle. */
  readonly #byInteraction = new Map<string, string>();
  /**
   * The ask that settled last with an interaction id an open ask holds now, to be found again
   * once that open ask lets the id go (rare: one map, so an ask that settles with its own id,
   * as most do, leaves both maps as they are instead of moving between two).
   */
  readonly #settledBehind = new Map<string, string>();
  readonly #byKey = new Map<string, string>();
  /** The ids of purged asks (tombstones): `create` never gives one to a new ask. */
  readonly #retired = new Set<string>();
  readonly #fanout = new ChangeFanout();
  /** Open asks with a deadline, earliest first: a sweep reads only the due ones. */
  readonly #deadlines = new DeadlineHeap<Entry>();
  /** Final asks, least recently updated first: `purge` reads only what it deletes. */
  readonly #settled = new DeadlineHeap<Entry>();
  /** Outbox entries by delivery id, and each ask's delivery ids (for settling and purging). */
  readonly #outbox = new Map<string, OutboxSlot>();
  readonly #outboxByAsk = new Map<string, Set<string>>();
  /** Each owner's lease: until when it runs. */
  readonly #leases = new Map<string, number>();
  /** Work claims (`claimWork`), deleted with the ask they belong to. */
  readonly #claims = new MemoryWorkClaims();
  /**
   * Entries not done, with a due time, by when each may next be claimed (due, and its lease run
   * out): a claim reads only what is claimable, however many entries were ever written.
   */
  readonly #outboxDue = new DeadlineHeap<OutboxSlot>();
  #closed = false;

  async create(write: AskWrite): Promise<AskCreateResult> {
    this.#open();
    const { ask } = write;
    const existing =
      this.#asks.get(ask.askId) ??
      (ask.key === undefined ? undefined : this.#asks.get(this.#byKey.get(ask.key) ?? ''));
    const retired = existing === undefined && this.#retired.has(ask.askId);
    const holder = existing === undefined && !retired ? this.#openHolder(ask) : undefined;
    if (existing !== undefined || retired || holder !== undefined) {
      return notInsertedAnswer(ask, { existing: existing?.row, retired, holder });
    }
    // Checked before anything is stored: a bad entry refuses the whole write.
    const rows = outboxRowsOf(write);
    const entry: Entry = {
      row: ask,
      first: write.event,
      rest: undefined,
      heapDeadline: 0,
      heapOrder: 0,
      heapIndex: -1,
    };
    this.#asks.set(ask.askId, entry);
    this.#schedule(entry, false);
    if (ask.key !== undefined) this.#byKey.set(ask.key, ask.askId);
    if (ask.interactionId !== undefined) this.#index(ask);
    this.#queue(write, rows);
    this.#fanout.changed(ask.askId, ask.version, write.writer);
    return { created: true };
  }

  async update(write: AskWrite, expectedVersion: number): Promise<AskUpdateResult> {
    this.#open();
    const { ask } = write;
    const entry = this.#asks.get(ask.askId);
    if (entry === undefined || entry.row.version !== expectedVersion) {
      return { ok: false, reason: 'version', current: entry?.row };
    }
    const holder = this.#openHolder(ask);
    if (holder !== undefined) return { ok: false, reason: 'interaction-id', holder };
    // Checked before anything is stored: a bad entry refuses the whole write.
    this.#apply(entry, write, outboxRowsOf(write));
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
    checkStoreText(askId, 'askId');
    return this.#asks.get(askId)?.row;
  }

  async findByInteractionId(interactionId: string): Promise<StoredAsk | undefined> {
    this.#open();
    checkStoreText(interactionId, 'interactionId');
    const askId = this.#byInteraction.get(interactionId);
    return askId === undefined ? undefined : this.#asks.get(askId)?.row;
  }

  async findByKey(key: string): Promise<StoredAsk | undefined> {
    this.#open();
    checkStoreText(key, 'key');
    const askId = this.#byKey.get(key);
    return askId === undefined ? undefined : this.#asks.get(askId)?.row;
  }

  async *history(askId: string): AsyncIterable<AskAuditEvent> {
    this.#open();
    checkStoreText(askId, 'askId');
    const entry = this.#asks.get(askId);
    if (entry === undefined) return;
    // A copy: events appended while the caller iterates belong to a later read.
    yield* eventsOf(entry);
  }

  async claimDue(
    now: number,
    limit: number,
    settle: (ask: StoredAsk) => AskWrite | undefined,
    enough?: () => boolean,
  ): Promise<AskWrite[]> {
    this.#open();
    const applied: AskWrite[] = [];
    // Asks `settle` declines (a row it refuses), and asks a live owner holds, do not count and must not starve the others:
    // they are taken out while this sweep reads past them, and put back at its end.
    const declined: Entry[] = [];
    while (applied.length < limit) {
      if (roundSpent(applied.length, enough)) break;
      const entry = this.#deadlines.popDue(now);
      if (entry === undefined) break;
      // A live owner times its own asks out: they are read past like a declined one.
      if (this.#heldByLiveOwner(entry.row, now)) {
        declined.push(entry);
        continue;
      }
      const write = settle(entry.row);
      if (write === undefined || write.ask.version !== entry.row.version + 1) {
        declined.push(entry);
        continue;
      }
      this.#apply(entry, write, outboxRowsOf(write));
      applied.push(write);
    }
    for (const entry of declined) this.#deadlines.restore(entry);
    return applied;
  }

  async claimOutbox(
    now: number,
    limit: number,
    leaseMs: number,
    channels: readonly string[],
  ): Promise<ClaimedOutboxEntry[]> {
    this.#open();
    checkOutboxClaim(now, limit, leaseMs, channels);
    const wanted = new Set(channels);
    const claimed: OutboxSlot[] = [];
    // Entries this claim may not take (another channel's, or held back) are taken out while it
    // reads past them, and put back at its end, as `claimDue` does.
    const passed: OutboxSlot[] = [];
    while (claimed.length < limit) {
      const slot = this.#outboxDue.popDue(now);
      if (slot === undefined) break;
      if (!wanted.has(slot.channel) || this.#heldBack(slot, now)) {
        passed.push(slot);
        continue;
      }
      slot.attempts++;
      slot.claimedUntil = now + leaseMs;
      slot.claimedBy = undefined;
      this.#claimableAt(slot);
      claimed.push(slot);
    }
    for (const slot of passed) this.#outboxDue.restore(slot);
    return claimed
      .sort((a, b) => (a.dueAt as number) - (b.dueAt as number))
      .map((slot) => this.#claimed(slot));
  }

  async takeOutbox(
    sender: string,
    deliveryIds: readonly string[],
    now: number,
  ): Promise<ClaimedOutboxEntry[]> {
    this.#open();
    checkOutboxTake(sender, deliveryIds, now);
    const taken: OutboxSlot[] = [];
    for (const id of deliveryIds) {
      const slot = this.#outbox.get(id);
      if (
        slot !== undefined &&
        !slot.done &&
        slot.claimedBy === sender &&
        slot.claimedUntil > now &&
        this.#asks.has(slot.askId)
      ) {
        taken.push(slot);
      }
    }
    return taken.sort((a, b) => (a.dueAt ?? 0) - (b.dueAt ?? 0)).map((slot) => this.#claimed(slot));
  }

  /** A message about how the ask ended, while one about the open ask is being sent. */
  #heldBack(slot: OutboxSlot, now: number): boolean {
    if (slot.whileOpen) return false;
    for (const id of this.#outboxByAsk.get(slot.askId) ?? []) {
      const other = this.#outbox.get(id) as OutboxSlot;
      if (other.whileOpen && !other.done && other.claimedUntil > now) return true;
    }
    return false;
  }

  /** A claimed or taken slot as the sender gets it, with its ask. */
  #claimed(slot: OutboxSlot): ClaimedOutboxEntry {
    const { askId, state, final, outcome, updatedAt } = (this.#asks.get(slot.askId) as Entry).row;
    const fields = {
      deliveryId: slot.deliveryId,
      askId: slot.askId,
      channel: slot.channel,
      dueAt: slot.dueAt as number,
      whileOpen: slot.whileOpen,
      payload: slot.payload,
      attempts: slot.attempts,
    };
    return claimedEntryOf(
      fields,
      outcome === undefined
        ? { askId, state, final, updatedAt }
        : { askId, state, final, outcome, updatedAt },
    );
  }

  async completeOutbox(deliveryId: string, _at: number, event?: AskAuditEvent): Promise<boolean> {
    this.#open();
    const slot = this.#outbox.get(deliveryId);
    if (slot === undefined || slot.done) return false;
    slot.done = true;
    this.#outboxDue.delete(slot);
    const entry = event === undefined ? undefined : this.#asks.get(event.askId);
    if (entry !== undefined && event !== undefined) record(entry, event);
    return true;
  }

  async retryOutbox(deliveryId: string, retryAt: number): Promise<void> {
    this.#open();
    const slot = this.#outbox.get(deliveryId);
    if (slot === undefined || slot.done) return;
    slot.dueAt = retryAt;
    slot.claimedUntil = 0;
    slot.claimedBy = undefined;
    this.#claimableAt(slot);
  }

  async renewOutbox(deliveryId: string, attempts: number, until: number): Promise<boolean> {
    this.#open();
    checkOutboxRenew(deliveryId, attempts, until);
    const slot = this.#outbox.get(deliveryId);
    // A released entry (a retry) has no lease left to extend: `claimedUntil` 0.
    if (slot === undefined || slot.done || slot.attempts !== attempts || slot.claimedUntil === 0) {
      return false;
    }
    slot.claimedUntil = Math.max(slot.claimedUntil, until);
    if (slot.dueAt !== undefined) this.#claimableAt(slot);
    return true;
  }

  async list(filter?: AskListFilter, page?: AskListPage): Promise<AskListResult<ListedAsk>> {
    this.#open();
    const query = readAskQuery<string>(filter, page, 'string');
    const { after } = query;
    const keyed = query.equal.find((each) => each.filter === 'key');
    const candidates =
      keyed === undefined
        ? this.#asks.values()
        : [this.#asks.get(this.#byKey.get(keyed.value) ?? '')];
    const rows: StoredAsk[] = [];
    for (const entry of candidates) {
      if (entry === undefined) continue;
      const { row } = entry;
      if (after !== undefined && compareNewestFirst(row, after.createdAt, after.tie) <= 0) continue;
      if (matchesQuery(row, query, () => eventsOf(entry))) rows.push(row);
    }
    rows.sort((a, b) => compareNewestFirst(a, b.createdAt, b.askId));
    const listed = pageOf(rows.slice(0, query.limit + 1), query.limit, (row) => ({
      createdAt: row.createdAt,
      tie: row.askId,
    }));
    const items = listed.rows.map(listedAsk);
    return listed.cursor === undefined ? { items } : { items, cursor: listed.cursor };
  }

  async purge(finalBefore: number, limit: number, now: number): Promise<number> {
    this.#open();
    checkPurge(finalBefore, limit, now);
    let purged = 0;
    // Asks whose live owner has not heard of their settle are read past, and put back after.
    const kept: Entry[] = [];
    while (purged < limit) {
      const entry = this.#settled.popBefore(finalBefore);
      if (entry === undefined) break;
      if (this.#heldByLiveOwner(entry.row, now)) {
        kept.push(entry);
        continue;
      }
      this.#forget(entry.row);
      purged++;
    }
    for (const entry of kept) this.#settled.restore(entry);
    return purged;
  }

  async acknowledgeSettled(askId: string, owner: string): Promise<void> {
    this.#open();
    checkOwnerLease(owner);
    const entry = this.#asks.get(askId);
    if (entry === undefined || !entry.row.final || entry.row.owner !== owner) return;
    // The same version, without the name: rows handed out are frozen, so a new one.
    const { owner: _heard, ...row } = entry.row;
    entry.row = Object.freeze(row);
  }

  async renewOwnerLease(owner: string, until: number): Promise<void> {
    this.#open();
    checkOwnerLease(owner, until);
    this.#leases.set(owner, until);
  }

  async releaseOwnerLease(owner: string): Promise<void> {
    this.#open();
    checkOwnerLease(owner);
    this.#leases.delete(owner);
  }

  async ownerLeaseUntil(owner: string): Promise<number | undefined> {
    this.#open();
    checkOwnerLease(owner);
    return this.#leases.get(owner);
  }

  async claimWork(request: WorkClaimRequest, now: number): Promise<WorkClaim> {
    this.#open();
    return this.#claims.claim(request, now);
  }

  async renewWork(key: string, holder: string, until: number, now: number): Promise<boolean> {
    this.#open();
    return this.#claims.renew(key, holder, until, now);
  }

  async finishWork(key: string, holder: string, at: number): Promise<boolean> {
    this.#open();
    return this.#claims.finish(key, holder, at);
  }

  async releaseWork(key: string, holder: string): Promise<boolean> {
    this.#open();
    return this.#claims.release(key, holder);
  }

  subscribe(listener: (change: AskStoreChange) => void, options?: AskSubscribeOptions): () => void {
    this.#open();
    return this.#fanout.subscribe(listener, subscriberWriter(options));
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#fanout.close();
  }

  #apply(entry: Entry, write: AskWrite, rows: readonly OutboxRow[]): void {
    const { ask, event } = write;
    const previous = entry.row;
    if (previous.interactionId !== undefined && previous.interactionId !== ask.interactionId) {
      this.#unindex(previous);
    }
    entry.row = ask;
    this.#schedule(entry, previous.final);
    if (ask.interactionId !== undefined) this.#index(ask);
    record(entry, event);
    this.#queue(write, rows);
    this.#fanout.changed(ask.askId, ask.version, write.writer);
  }

  /** Stores a write's outbox entries; a final write settles the ask's waiting ones. */
  #queue(write: AskWrite, rows: readonly OutboxRow[]): void {
    // Most writes carry no outbox and settle nothing: no lookup for them.
    if (write.outbox === undefined && !write.ask.final) return;
    const { askId } = write.ask;
    let ids = this.#outboxByAsk.get(askId);
    if (write.ask.final && ids !== undefined) {
      for (const id of ids) {
        const slot = this.#outbox.get(id) as OutboxSlot;
        if (slot.done) continue;
        // One being sent stays, to be marked done (or claimed and dropped once its lease ran out).
        if (slot.whileOpen && slot.claimedUntil <= write.ask.updatedAt) {
          this.#outbox.delete(id);
          this.#outboxDue.delete(slot);
          ids.delete(id);
        } else if (slot.dueAt === undefined) {
          slot.dueAt = write.ask.updatedAt;
          this.#claimableAt(slot);
        }
      }
    }
    for (const row of rows) {
      if (this.#outbox.has(row.deliveryId)) continue;
      const slot: OutboxSlot = {
        deliveryId: row.deliveryId,
        askId: row.askId,
        channel: row.channel,
        dueAt: row.dueAt,
        whileOpen: row.whileOpen,
        payload: row.payload,
        ...outboxRowStart(row),
        done: false,
        heapDeadline: 0,
        heapOrder: 0,
        heapIndex: -1,
      };
      this.#outbox.set(row.deliveryId, slot);
      if (slot.dueAt !== undefined) this.#claimableAt(slot);
      if (ids === undefined) {
        ids = new Set();
        this.#outboxByAsk.set(askId, ids);
      }
      ids.add(row.deliveryId);
    }
  }

  /** Puts an entry with a due time in the heap of claimable entries, at when it may be claimed. */
  #claimableAt(slot: OutboxSlot): void {
    this.#outboxDue.set(slot, Math.max(slot.dueAt as number, slot.claimedUntil));
  }

  /**
   * Keeps `entry` in the deadline heap while it is open and has a deadline, and in the heap of
   * settled asks once it is final (out of the first before it goes into the second). `wasFinal`:
   * the row before was final already, so the slot is the settled heap's.
   */
  #schedule(entry: Entry, wasFinal: boolean): void {
    const { row } = entry;
    // Out of the heap whose slot it held, when it moves between open and final.
    if (wasFinal !== row.final) (wasFinal ? this.#settled : this.#deadlines).delete(entry);
    if (row.final) this.#settled.set(entry, row.updatedAt);
    else if (row.deadlineAt === undefined) this.#deadlines.delete(entry);
    else this.#deadlines.set(entry, row.deadlineAt);
  }

  /** Deletes a final ask, its history and its lookups; keeps its id as a tombstone. */
  #forget(row: StoredAsk): void {
    this.#asks.delete(row.askId);
    this.#retired.add(row.askId);
    this.#claims.forgetAsk(row.askId);
    for (const id of this.#outboxByAsk.get(row.askId) ?? []) {
      const slot = this.#outbox.get(id);
      if (slot !== undefined) this.#outboxDue.delete(slot);
      this.#outbox.delete(id);
    }
    this.#outboxByAsk.delete(row.askId);
    if (row.key !== undefined && this.#byKey.get(row.key) === row.askId)
      this.#byKey.delete(row.key);
    const id = row.interactionId;
    if (id === undefined) return;
    if (this.#byInteraction.get(id) === row.askId) this.#byInteraction.delete(id);
    else if (this.#settledBehind.get(id) === row.askId) this.#settledBehind.delete(id);
  }

  /**
   * True when `row` names an owner whose lease runs past `now`: the ask is that owner's (to
   * time out while pending, to hear of before a purge once final).
   */
  #heldByLiveOwner(row: StoredAsk, now: number): boolean {
    return row.owner !== undefined && leaseRuns(this.#leases.get(row.owner), now);
  }

  #isFinal(askId: string): boolean {
    return this.#asks.get(askId)?.row.final === true;
  }

  /** The open ask, other than `ask`, that holds the interaction id `ask` (open) would take. */
  #openHolder(ask: StoredAsk): string | undefined {
    if (ask.interactionId === undefined || ask.final) return undefined;
    const holder = this.#byInteraction.get(ask.interactionId);
    return holder !== undefined && holder !== ask.askId && !this.#isFinal(holder)
      ? holder
      : undefined;
  }

  /** Indexes `ask` (just written) under its interaction id. */
  #index(ask: StoredAsk): void {
    const id = ask.interactionId as string;
    const holder = this.#byInteraction.get(id);
    if (holder === ask.askId) {
      // The holder settled: it is the last to settle with the id now.
      if (ask.final && this.#settledBehind.size > 0) this.#settledBehind.delete(id);
      return;
    }
    const holderFinal = holder === undefined || this.#isFinal(holder);
    if (ask.final && !holderFinal) {
      this.#settledBehind.set(id, ask.askId);
      return;
    }
    // An open ask takes the id from a settled one, which waits behind it.
    if (!ask.final && holder !== undefined && holderFinal) this.#settledBehind.set(id, holder);
    this.#byInteraction.set(id, ask.askId);
  }

  /** `ask` (its row before a write) lets its interaction id go. */
  #unindex(ask: StoredAsk): void {
    const id = ask.interactionId as string;
    // A settled ask stays the last to settle with its id.
    if (ask.final || this.#byInteraction.get(id) !== ask.askId) return;
    const behind = this.#settledBehind.get(id);
    if (behind === undefined) {
      this.#byInteraction.delete(id);
    } else {
      this.#byInteraction.set(id, behind);
      this.#settledBehind.delete(id);
    }
  }

  #open(): void {
    if (this.#closed) throw new Error('The memory ask store is closed.');
  }
}

/** A new array of the ask's audit events, oldest first. */
function eventsOf(entry: Entry): readonly AskAuditEvent[] {
  const { first, rest } = entry;
  if (rest === undefined) return [first];
  return Array.isArray(rest) ? [first, ...rest] : [first, rest];
}

/** Events after the first that an ask's history keeps at its exact length (see `record`). */
const SHORT_HISTORY = 8;

function record(entry: Entry, event: AskAuditEvent): void {
  const { rest } = entry;
  // The second event is kept bare: a list of one costs two objects (65 bytes) more for every
  // ask that ends with its second event, kept as long as the ask and copied by every
  // collection that moves it (a storm's scavenges are mostly such copies).
  if (rest === undefined) entry.rest = event;
  else if (!Array.isArray(rest)) entry.rest = [rest, event];
  // Copied at its exact length while short: `push` would grow a list of two to 17 slots, over
  // 100 bytes more kept for every ask with a fourth event.
  else if (rest.length < SHORT_HISTORY) entry.rest = rest.concat([event]);
  else rest.push(event);
}

/** Positive when `row` comes after the position (createdAt, askId) in the list, newest first. */
function compareNewestFirst(row: StoredAsk, createdAt: number, askId: string): number {
  if (row.createdAt !== createdAt) return createdAt - row.createdAt;
  return row.askId < askId ? 1 : row.askId > askId ? -1 : 0;
}
