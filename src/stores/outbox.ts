/** The outbox rules every store shares: what a write's entries become, checked once. */
import type {
  AskWrite,
  ClaimedOutboxAsk,
  ClaimedOutboxEntry,
  OutboxEntry,
  OutboxLease,
  StoredAsk,
} from './ask-store.js';
import type { Column } from './row-columns.js';

/** An outbox entry as a store keeps it: a time when it is due, or `undefined` until the ask settles. */
export interface OutboxRow {
  deliveryId: string;
  askId: string;
  channel: string;
  dueAt: number | undefined;
  whileOpen: boolean;
  payload: unknown;
  lease: OutboxLease | undefined;
}

/**
 * The rows a write inserts. A write that makes the ask final inserts its `'settled'` entries
 * due at once and leaves out its `whileOpen` ones (they are about an open ask), just as it
 * settles the entries stored before it (see `AskStore`).
 */
export function outboxRowsOf(write: AskWrite): OutboxRow[] {
  const { outbox, ask } = write;
  if (outbox === undefined || outbox.length === 0) return [];
  const rows: OutboxRow[] = [];
  for (const entry of outbox) {
    checkOutboxEntry(entry, ask);
    if (ask.final && entry.whileOpen === true) continue;
    const dueAt = entry.due === 'settled' ? (ask.final ? ask.updatedAt : undefined) : entry.due;
    rows.push({
      deliveryId: entry.deliveryId,
      askId: entry.askId,
      channel: entry.channel,
      dueAt,
      whileOpen: entry.whileOpen === true,
      payload: entry.payload,
      lease: entry.lease,
    });
  }
  return rows;
}

/** How an outbox row starts: its try and its lease (`claimedBy` undefined: no sender's own). */
export interface OutboxRowStart {
  attempts: number;
  claimedUntil: number;
  claimedBy: string | undefined;
}

/**
 * How `row` starts: written leased to its sender (`lease`, see `OutboxEntry.lease`), it is at
 * its first try, leased to that sender until the lease's end; otherwise at no try, unleased.
 */
export function outboxRowStart(row: OutboxRow): OutboxRowStart {
  return row.lease === undefined
    ? { attempts: 0, claimedUntil: 0, claimedBy: undefined }
    : { attempts: 1, claimedUntil: row.lease.until, claimedBy: row.lease.sender };
}

/** A claimed entry's own fields, as a store reads them from its row. */
export interface ClaimedOutboxFields {
  deliveryId: string;
  askId: string;
  channel: string;
  dueAt: number;
  whileOpen: boolean;
  payload: unknown;
  /** Claims so far, this one included. */
  attempts: number;
}

/**
 * A claimed (or taken) entry as its sender gets it: `whileOpen` only where it is set, and its
 * ask as the claim read it.
 */
export function claimedEntryOf(
  fields: ClaimedOutboxFields,
  ask: ClaimedOutboxAsk,
): ClaimedOutboxEntry {
  return {
    deliveryId: fields.deliveryId,
    askId: fields.askId,
    channel: fields.channel,
    dueAt: fields.dueAt,
    ...(fields.whileOpen ? { whileOpen: true } : {}),
    payload: fields.payload,
    attempts: fields.attempts,
    ask,
  };
}

function checkOutboxEntry(entry: OutboxEntry, ask: StoredAsk): void {
  if (typeof entry?.deliveryId !== 'string' || entry.deliveryId === '') {
    throw new TypeError(
      `Expected an outbox entry's \`deliveryId\` to be a non-empty string, got ${String(entry?.deliveryId)}.`,
    );
  }
  if (entry.askId !== ask.askId) {
    throw new TypeError(
      `Outbox entry ${entry.deliveryId} is for ask ${String(entry.askId)} but was written with ask ${ask.askId}.`,
    );
  }
  if (typeof entry.channel !== 'string' || entry.channel === '') {
    throw new TypeError(
      `Expected outbox entry ${entry.deliveryId}'s \`channel\` to be a non-empty string, got ${String(entry.channel)}.`,
    );
  }
  if (
    entry.lease !== undefined &&
    (typeof entry.lease?.sender !== 'string' ||
      entry.lease.sender === '' ||
      !Number.isFinite(entry.lease.until))
  ) {
    throw new TypeError(
      `Expected outbox entry ${entry.deliveryId}'s \`lease\` to be { sender (a non-empty string), until (a time) }, got ${JSON.stringify(entry.lease)}.`,
    );
  }
  if (entry.due !== 'settled' && !(Number.isFinite(entry.due) && entry.due >= 0)) {
    throw new TypeError(
      `Expected outbox entry ${entry.deliveryId}'s \`due\` to be a time (ms since the epoch) or 'settled', got ${String(entry.due)}.`,
    );
  }
  // About the open ask and due once it settles: it would never be sent (a settle drops what is
  // about the open ask), so the stores would have to guess; refused where it is written.
  if (entry.due === 'settled' && entry.whileOpen === true) {
    throw new TypeError(
      `Outbox entry ${entry.deliveryId} is \`whileOpen\` (about the open ask) and due when the ask settles ('settled'): a settle drops what is about the open ask. Give it a time, or leave out \`whileOpen\`.`,
    );
  }
}

/** The fields of `ClaimedOutboxAsk` (every one, checked by the type): what a claim reads of each ask. */
const CLAIMED_ASK_FIELDS: ReadonlySet<string> = new Set(
  Object.keys({
    askId: true,
    state: true,
    final: true,
    outcome: true,
    updatedAt: true,
  } satisfies Record<keyof ClaimedOutboxAsk, true>),
);

/** A store's ask columns that a claim reads: those of `ClaimedOutboxAsk`'s fields, in order. */
export function claimedAskColumns(
  columns: readonly Column<StoredAsk>[],
): readonly Column<ClaimedOutboxAsk>[] {
  return columns.filter(
    (column) => column.field !== undefined && CLAIMED_ASK_FIELDS.has(column.field),
  ) as unknown as readonly Column<ClaimedOutboxAsk>[];
}

/** Checks `takeOutbox`'s arguments, with an error that names the wrong one. */
export function checkOutboxTake(sender: string, deliveryIds: readonly string[], now: number): void {
  if (typeof sender !== 'string' || sender === '') {
    throw new TypeError(`Expected \`sender\` to be a non-empty string, got ${String(sender)}.`);
  }
  if (!Array.isArray(deliveryIds) || deliveryIds.some((id) => typeof id !== 'string')) {
    throw new TypeError('Expected `deliveryIds` to be an array of delivery ids.');
  }
  if (!Number.isFinite(now)) throw new TypeError(`Expected \`now\` to be a time, got ${now}.`);
}

/** Checks `claimOutbox`'s arguments, with an error that names the wrong one. */
export function checkOutboxClaim(
  now: number,
  limit: number,
  leaseMs: number,
  channels: readonly string[],
): void {
  if (!Number.isFinite(now)) throw new TypeError(`Expected \`now\` to be a time, got ${now}.`);
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new TypeError(`Expected \`limit\` to be an integer from 1 and up, got ${limit}.`);
  }
  if (!Number.isSafeInteger(leaseMs) || leaseMs < 1) {
    throw new TypeError(`Expected \`leaseMs\` to be whole milliseconds from 1 up, got ${leaseMs}.`);
  }
  if (!Array.isArray(channels) || channels.some((name) => typeof name !== 'string')) {
    throw new TypeError('Expected `channels` to be an array of channel names.');
  }
}

/** Checks `renewOutbox`'s arguments, with an error that names the wrong one. */
export function checkOutboxRenew(deliveryId: string, attempts: number, until: number): void {
  if (typeof deliveryId !== 'string' || deliveryId === '') {
    throw new TypeError(
      `Expected \`deliveryId\` to be a non-empty string, got ${String(deliveryId)}.`,
    );
  }
  if (!Number.isSafeInteger(attempts) || attempts < 1) {
    throw new TypeError(
      `Expected \`attempts\` to be the claimed entry's try, an integer from 1 up, got ${attempts}.`,
    );
  }
  if (!Number.isFinite(until))
    throw new TypeError(`Expected \`until\` to be a time, got ${until}.`);
}
