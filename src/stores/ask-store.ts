/**
 * The contract every ask store implements (memory, SQLite, PostgreSQL). The store is the
 * source of truth of an ask: a service's memory is only a cache of it. Every transition is one
 * conditional write (compare-and-set on `version`) in the same transaction as the audit event
 * it appends, so with any number of services sharing a store an ask has exactly one outcome.
 *
 * A store persists and finds; it never decides. The service computes every new row with the
 * ask machine and hands the store the complete row to write; the store checks nothing but the
 * version and its unique keys. Rows are JSON-serializable.
 */
import type { AskAttachment } from '../contracts/attachment.js';
import type { AskOutcome } from '../contracts/outcome.js';
import type { AskUserQuestion } from '../contracts/question.js';
import type { AskAuditEvent, AskState } from '../engine/audit.js';
import type { AskListFilter, AskListPage, AskListResult } from './ask-query.js';
import type { WorkClaimStore } from './work-claims.js';

export type {
  AskListFilter,
  AskListPage,
  AskListResult,
  AskTimeRange,
  UnreadableAsk,
} from './ask-query.js';

/** The JSON-serializable persisted snapshot of the ask machine (`machine.getPersistedSnapshot`). */
export type PersistedAskSnapshot = Record<string, unknown>;

/** One ask as the store keeps it. */
export interface StoredAsk {
  askId: string;
  /** The machine state (for queries and people; the service decides from `snapshot`). */
  state: AskState;
  /** 1 when created, +1 per transition. */
  version: number;
  /** The machine's persisted snapshot: the ask's whole state. */
  snapshot: PersistedAskSnapshot;
  /** The normalized questions, so any service can render or validate an answer. */
  questions: AskUserQuestion[];
  /** Set once the ask left `pending` (the deferral, then the final outcome). */
  outcome?: AskOutcome;
  /** Set while and after the ask is deferred; unique among asks that are not `final`. */
  interactionId?: string;
  /** The caller's idempotency key; unique. */
  key?: string;
  /** Absolute time (ms since the epoch) when the ask times out; absent = never. */
  deadlineAt?: number;
  /**
   * The id of the service that delivers the ask to its provider, while the ask is in a state
   * that is delivered (pending): the ask is that service's while its lease runs
   * (`renewOwnerLease`); once the lease has run out, any service may take it over. A final ask
   * still names it when another service settled the ask and the owner has not heard of it yet:
   * `purge` leaves such an ask to its owner (while its lease runs) until the owner clears the
   * name (`acknowledgeSettled`). A deferred ask names none.
   */
  owner?: string;
  /** True once the machine reached a final state: nothing changes the ask any more. */
  final: boolean;
  createdAt: number;
  updatedAt: number;
  /**
   * What the caller kept with the ask (`start`'s `attachment`): written with the row at create
   * and never changed by a transition, so a store's update leaves it as it is.
   */
  attachment?: AskAttachment;
}

/**
 * An ask as `list` returns it: the row without the machine snapshot (a list shows asks, it
 * never moves them on) and without its attachment (which may be large: `get` reads it), with
 * the session and the agent the snapshot holds.
 */
export type ListedAsk = Omit<StoredAsk, 'snapshot' | 'attachment'> & {
  sessionId?: string;
  agent?: string;
};

/** One write: the complete new row and the audit event appended with it, atomically. */
export interface AskWrite {
  ask: StoredAsk;
  event: AskAuditEvent;
  /**
   * Messages caused by this transition, written in the same transaction (the outbox): they are
   * stored if and only if the write applies. An entry whose `deliveryId` is stored already is
   * left as it is, so a retried write never queues a message twice.
   */
  outbox?: readonly OutboxEntry[];
  /**
   * Who makes the write: an opaque token (a service writes its own id). The store keeps it only
   * to leave this writer's subscriber out of the news of it (`AskSubscribeOptions.writer`); it
   * is not stored with the ask. A store that ignores it still keeps the contract: the writer
   * then hears of its own writes and ignores them by their version.
   */
  writer?: string;
}

/**
 * A message waiting in the store to be sent (`ask-engine/notify` writes and sends them). The
 * store keeps `payload` as given and never reads it; it only keeps the entry's times.
 */
export interface OutboxEntry {
  /** The stable id of the message (its Message-ID / webhook-id); unique in the store. */
  deliveryId: string;
  askId: string;
  /** Who sends it: only a dispatcher that has this channel claims the entry. */
  channel: string;
  /**
   * When it may be sent (ms since the epoch), or `'settled'`: once the ask is final. The write
   * that makes the ask final makes such entries due at that write's `updatedAt`.
   */
  due: number | 'settled';
  /**
   * True for a message about an open ask (a question, a reminder, an escalation): the write
   * that makes the ask final deletes it if it was not sent yet and is not leased (being sent) at
   * that write's `updatedAt`. While such a message of an ask is leased, the ask's other entries
   * (how it ended) are not claimed: a person reads of the open ask before they read how it ended.
   */
  whileOpen?: boolean;
  /** What to send: JSON, kept as given. */
  payload: unknown;
  /**
   * Stored already claimed (its first try) by `sender` until `until`: a sender that writes a
   * message due at once sends it without claiming it (`takeOutbox`); if it dies, the entry is
   * claimed again once `until` has passed, as any claimed entry is.
   */
  lease?: OutboxLease;
}

/** A sender's lease on an outbox entry written with it. */
export interface OutboxLease {
  /** The sender's own id (unique per sender, e.g. a random UUID). */
  sender: string;
  /** Until when (ms since the epoch) no other sender may claim the entry. */
  until: number;
}

/** An entry handed to one sender (`claimOutbox`, or `takeOutbox` for its own): due, and leased to it. */
export interface ClaimedOutboxEntry extends Omit<OutboxEntry, 'due'> {
  /** When it became due. */
  dueAt: number;
  /** Claims so far, this one included: 1 on the first try. */
  attempts: number;
  /**
   * Its ask as the claim found it (read in the claim, so the sender needs no read of its own):
   * whether it settled, how, and when. Never the snapshot.
   */
  ask: ClaimedOutboxAsk;
}

/** What a claimed outbox entry tells of its ask. */
export type ClaimedOutboxAsk = Pick<
  StoredAsk,
  'askId' | 'state' | 'final' | 'outcome' | 'updatedAt'
>;

/**
 * What `create` reports: written, the ask that already holds the id or key, or that the id
 * belonged to a purged ask.
 */
export type AskCreateResult =
  | { created: true }
  /** An ask with this id or this key exists already; nothing was written. */
  | { created: false; existing: StoredAsk }
  /**
   * The id belonged to an ask that `purge` deleted: an id is never used again (a link or token
   * signed for the purged ask must never name a new one), so nothing was written.
   */
  | { created: false; retired: true };

/** What `update` reports: written, or which condition failed so nothing was. */
export type AskUpdateResult =
  | { ok: true }
  /** The ask is not at `expectedVersion` (another service wrote first); nothing was written. */
  | { ok: false; reason: 'version'; current: StoredAsk | undefined }
  /** `interactionId` belongs to another ask that is not final; nothing was written. */
  | { ok: false; reason: 'interaction-id'; holder: string };

/**
 * What a store tells its subscribers: an ask was written (by any service, this one included,
 * unless it subscribed as that write's writer), or changes may have been missed (a reconnect)
 * and open asks should be read again.
 */
export type AskStoreChange =
  | { type: 'changed'; askId: string; version: number }
  | { type: 'missed' };

/** How a subscriber listens (`AskStore.subscribe`). */
export interface AskSubscribeOptions {
  /**
   * The subscriber's own writer token (`AskWrite.writer`): it is not told of an ask whose latest
   * write in a batch of news it made itself, since it knows that version already (its write was
   * version-checked). Writes of every other writer, and writes without a writer, are told as
   * usual, so services sharing one store object still hear each other. Best effort: a store
   * may still tell of such a write (a subscriber checks versions anyway), never leave out one
   * of another writer.
   */
  writer?: string;
}

/**
 * The ask log, the port every store implements first: asks and their audit events, written by
 * compare-and-set, found, swept when due, told to subscribers, and the owners' leases. A
 * service runs on a store that implements only this port; notifications need the outbox port
 * (`AskOutbox`) and `service.list` / `purge` / `retention` the index port (`AskIndex`).
 */
export interface AskLog {
  /**
   * Inserts a new ask (`version` 1) and its `start` event. If an ask with the same id or the
   * same key exists, writes nothing and returns it. If the id belonged to an ask `purge`
   * deleted, writes nothing and says so (`retired`): ids are never reused.
   */
  create(write: AskWrite): Promise<AskCreateResult>;
  /**
   * Replaces the ask with `write.ask` (whose version is `expectedVersion + 1`) and appends
   * `write.event`, only if the stored ask is still at `expectedVersion`. A write's `outbox`
   * entries ride in the same transaction; a store without the outbox port is never given any
   * (the notify provider refuses such a store).
   */
  update(write: AskWrite, expectedVersion: number): Promise<AskUpdateResult>;
  /** Appends an event that changes no state (a late answer, a refused answer). */
  append(event: AskAuditEvent): Promise<void>;
  /** The ask with this id, or `undefined`. */
  get(askId: string): Promise<StoredAsk | undefined>;
  /** The ask that is not final with this interaction id, else the one that settled last. */
  findByInteractionId(interactionId: string): Promise<StoredAsk | undefined>;
  /** The ask started with this idempotency key, or `undefined`. */
  findByKey(key: string): Promise<StoredAsk | undefined>;
  /** The ask's audit events, oldest first. */
  history(askId: string): AsyncIterable<AskAuditEvent>;
  /**
   * Claims asks that are not final and whose deadline is at or before `now`, oldest deadline
   * first, skipping asks another service is claiming at the same moment, and asks whose `owner`
   * holds a lease running past `now` (`renewOwnerLease`): a live owner times out its own asks
   * (the sweep is for deferred asks, and asks whose owner went away). For each, calls
   * `settle` (synchronous, pure) and applies the write it returns as `update` would (same
   * version check), until `limit` writes are applied; an ask `settle` declines (returns
   * `undefined` for) does not count towards `limit`. Returns the writes that were applied.
   *
   * `enough`, when given, is asked before each further ask once one write is applied: when it
   * returns true, the round has used its slice of the event loop (whatever slowed it). The
   * claim then ends there and the asks not yet settled stay due, as they are; or, in a store
   * that writes beside the event loop, the loop turns and the claim goes on: the first call
   * after a true starts a new slice. A store may ignore it. The memory store ends its claim;
   * the SQLite store goes on (its worker writes the claim in one transaction at its end); the
   * PostgreSQL store leases its batch before settling it and settles the whole batch.
   */
  claimDue(
    now: number,
    limit: number,
    settle: (ask: StoredAsk) => AskWrite | undefined,
    enough?: () => boolean,
  ): Promise<AskWrite[]>;
  /**
   * True for a store whose `claimDue` mostly waits for another process (a database server).
   * The sweeper then sizes its rounds by this process's own CPU time: the time a round waits,
   * for a reply or for the CPU a busy machine gives the database meanwhile, is not its work.
   */
  readonly remote?: boolean;
  /**
   * `owner` heard that the final ask `askId` settled: the row no longer names it (if it still
   * does), so `purge` may delete the ask. Not a transition: the version stays, no event is
   * appended and subscribers are told nothing. Does nothing for an ask that is not final, is
   * gone, or names another owner (or none).
   */
  acknowledgeSettled(askId: string, owner: string): Promise<void>;
  /**
   * Calls `listener` for changes on a later turn of the event loop: news of a write arrives
   * after that write's promise settled, and the changes of one turn are told once per ask, at
   * its latest version. With `options.writer`, news of the subscriber's own writes is left out
   * (see `AskSubscribeOptions`). Returns the unsubscribe function.
   */
  subscribe(listener: (change: AskStoreChange) => void, options?: AskSubscribeOptions): () => void;
  /**
   * Holds `owner`'s lease until `until` (ms since the epoch, on the service clock), or renews
   * it: one record per owner, however many asks it owns. While it runs, the owner is live: its
   * asks are neither swept (`claimDue`) nor taken over by another service.
   */
  renewOwnerLease(owner: string, until: number): Promise<void>;
  /** Ends `owner`'s lease (its service closed): its asks are anyone's to take over or sweep. */
  releaseOwnerLease(owner: string): Promise<void>;
  /** Until when `owner`'s lease runs (ms since the epoch), or `undefined` when it holds none. */
  ownerLeaseUntil(owner: string): Promise<number | undefined>;
  /** Releases the store's connections and timers; the data stays. */
  close(): Promise<void>;
}

/**
 * The outbox port: messages written in an ask's write (`AskWrite.outbox`), claimed by one
 * sender at a time under a lease, and marked done with their audit event. The notify provider
 * needs it; a store that implements it implements all of it.
 */
export interface AskOutbox {
  /**
   * Claims up to `limit` outbox entries of `channels` that are due at `now`, not sent, not
   * leased to another sender, and not held back by a leased `whileOpen` entry of their ask
   * (see `OutboxEntry.whileOpen`), earliest first, and leases them until `now + leaseMs`: two
   * services claiming at the same moment get different entries. An entry whose sender died is
   * claimed again once its lease ran out (at least once, with the same `deliveryId`).
   */
  claimOutbox(
    now: number,
    limit: number,
    leaseMs: number,
    channels: readonly string[],
  ): Promise<ClaimedOutboxEntry[]>;
  /**
   * The entries among `deliveryIds` that are stored, not done, and still leased at `now` to
   * `sender` by the write that stored them (`OutboxEntry.lease`), with their ask, as
   * `claimOutbox` hands them; a read, no write. An entry whose lease ran out, or that another
   * sender claimed since, is not returned.
   */
  takeOutbox(
    sender: string,
    deliveryIds: readonly string[],
    now: number,
  ): Promise<ClaimedOutboxEntry[]>;
  /**
   * Marks the entry done at `at` (sent, or given up on) and appends `event` to its ask's history
   * in the same transaction; a done entry is never claimed again. False if the entry is gone or
   * done already (nothing is appended then). A store may commit it without waiting for the
   * disk (the SQLite store does): a mark that a power loss undoes only sends the message again,
   * as a crash before the mark does.
   */
  completeOutbox(deliveryId: string, at: number, event?: AskAuditEvent): Promise<boolean>;
  /** Releases a claimed entry to be claimed again at `retryAt` (a send that may pass later). */
  retryOutbox(deliveryId: string, retryAt: number): Promise<void>;
  /**
   * Extends the lease of the entry that a claim (or its write's `lease`) handed out as its
   * `attempts`-th try to `until`, so that no other sender claims it while its send runs: only if
   * it is still that try's, that is, not done, not released for a retry, and not claimed again
   * since (even once its lease ran out, as long as nobody claimed it). Returns whether it did:
   * false means another sender may be sending it now.
   */
  renewOutbox(deliveryId: string, attempts: number, until: number): Promise<boolean>;
}

/**
 * The index port: asks found by what people ask of them (`list`) and final asks deleted when
 * old (`purge`). `service.list`, `service.purge` and the `retention` option need it.
 */
export interface AskIndex {
  /**
   * The asks matching `filter`, newest first (by `createdAt`, then by an order of the store's
   * own for asks created at the same time), `page.limit` at a time (default 50, at most 1,000;
   * more is refused, never cut). `cursor` is set when more may follow: pass it back for the next
   * page. Cursors are positions in that order, so asks written while paging never make an ask
   * appear twice. A bad filter, limit or cursor is refused with `INVALID_REQUEST` naming it.
   * A row with a corrupt column is left out of `items` and named in `unreadable`; the others
   * are listed.
   */
  list(filter?: AskListFilter, page?: AskListPage): Promise<AskListResult<ListedAsk>>;
  /**
   * Deletes up to `limit` final asks whose `updatedAt` (the time they settled) is before
   * `finalBefore`, oldest first, with their audit events, in one short transaction. Asks that
   * are not final (pending, deferred) are never deleted, nor is a final ask whose `owner` has
   * not heard of its settle while that owner's lease runs past `now` (the rule `claimDue`
   * uses): its caller waits for the outcome, which the owner must still be able to read. Such
   * an ask is deleted by a purge once its owner acknowledged the settle (`acknowledgeSettled`)
   * or its lease ran out. Returns how many were deleted: fewer than `limit` means none is left
   * to delete. Their outbox entries are deleted with them, and the work claims that
   * belong to them (`WorkClaimRequest.askId`). Each deleted ask's id is kept (a
   * tombstone: the id alone), so `create` never gives it to a new ask.
   */
  purge(finalBefore: number, limit: number, now: number): Promise<number>;
}

/**
 * Where asks and their audit events live, with every port: the ask log, the outbox, the index
 * and the work claims (`WorkClaimStore`, by which hosts do a piece of work once). Services
 * sharing one store share their asks. Memory, SQLite (`ask-engine/sqlite`) and PostgreSQL
 * (`ask-engine/postgres`) implement it.
 */
export interface AskStore extends AskLog, AskOutbox, AskIndex, WorkClaimStore {}
