/**
 * The SQLite store's outbox: entries stored with the write that causes them (`queueOutbox`),
 * claimed under the write lock by whichever process looks, taken by the sender that wrote them
 * leased to itself, and marked done, retried or renewed.
 */
import type { AskAuditEvent } from '../../engine/audit.js';
import type { AskWrite, ClaimedOutboxAsk, ClaimedOutboxEntry } from '../ask-store.js';
import {
  checkOutboxClaim,
  checkOutboxRenew,
  checkOutboxTake,
  claimedEntryOf,
  outboxRowsOf,
} from '../outbox.js';
import { CorruptAskRowError } from '../row-columns.js';
import { outboxParams } from './batch.js';
import type { StoreConnection } from './connection.js';
import { type AskRow, eventParams, readClaimedAsk } from './rows.js';
import type { Statements } from './statements.js';

/** `claimOutbox`: due entries on `channels`, leased for `leaseMs`. */
export async function claimOutbox(
  connection: StoreConnection,
  now: number,
  limit: number,
  leaseMs: number,
  channels: readonly string[],
): Promise<ClaimedOutboxEntry[]> {
  checkOutboxClaim(now, limit, leaseMs, channels);
  const { opened, statements } = await connection.openToWrite();
  const wanted = JSON.stringify(channels);
  // Most looks find nothing due: they read, and take the write lock only when there is work.
  if (statements.outboxAnyDue.get(wanted, now, now, now) === undefined) return [];
  // Read and leased under the write lock: a process claiming at the same moment waits, then
  // finds these entries leased.
  const corrupt: unknown[] = [];
  const claimed = connection.write(opened, () => {
    const rows = statements.outboxDue.all(wanted, now, now, now, limit) as ClaimedRow[];
    for (const row of rows) statements.outboxLease.run(now + leaseMs, row.delivery_id);
    // Read in the claim, so `attempts` counts this claim too.
    return claimedEntries(rows, 1, corrupt);
  });
  for (const error of corrupt) connection.onError(error);
  return claimed;
}

/** `takeOutbox`: the entries `sender` wrote leased to itself, with their asks. */
export async function takeOutbox(
  connection: StoreConnection,
  sender: string,
  deliveryIds: readonly string[],
  now: number,
): Promise<ClaimedOutboxEntry[]> {
  checkOutboxTake(sender, deliveryIds, now);
  if (deliveryIds.length === 0) return [];
  const { statements } = await connection.open();
  const rows = statements.outboxLeased.all(
    JSON.stringify(deliveryIds),
    sender,
    now,
  ) as ClaimedRow[];
  const corrupt: unknown[] = [];
  const taken = claimedEntries(rows, 0, corrupt);
  for (const error of corrupt) connection.onError(error);
  return taken;
}

/** `completeOutbox`: the entry is done (and `event` appended), once. */
export async function completeOutbox(
  connection: StoreConnection,
  deliveryId: string,
  at: number,
  event?: AskAuditEvent,
): Promise<boolean> {
  const { opened, statements } = await connection.openToWrite();
  // Not worth a wait for the disk: a done mark a power loss undoes sends the message again,
  // as a crash before the mark does (the outbox sends at least once).
  return connection.write(
    opened,
    () => {
      const { changes } = statements.outboxComplete.run(at, deliveryId);
      if (Number(changes) === 0) return false;
      if (event !== undefined) statements.insertEvent.run(...eventParams(event), event.askId);
      return true;
    },
    { unsynced: true },
  );
}

/** `retryOutbox`: the entry is due again at `retryAt`, leased to no one. */
export async function retryOutbox(
  connection: StoreConnection,
  deliveryId: string,
  retryAt: number,
): Promise<void> {
  const { statements } = await connection.openToWrite();
  statements.outboxRetry.run(retryAt, deliveryId);
}

/** `renewOutbox`: extends the lease of the entry's try `attempts`, while it is still that try's. */
export async function renewOutbox(
  connection: StoreConnection,
  deliveryId: string,
  attempts: number,
  until: number,
): Promise<boolean> {
  checkOutboxRenew(deliveryId, attempts, until);
  const { statements } = await connection.openToWrite();
  const { changes } = statements.outboxRenew.run(until, deliveryId, attempts);
  return Number(changes) > 0;
}

/** Inside a write that applied: stores its outbox entries; a final write settles the ask's waiting ones. */
export function queueOutbox(statements: Statements, write: AskWrite): void {
  const { ask } = write;
  if (ask.final) {
    statements.outboxDropOpen.run(ask.askId, ask.updatedAt);
    statements.outboxSettled.run(ask.updatedAt, ask.askId);
  }
  for (const row of outboxRowsOf(write)) statements.insertOutbox.run(...outboxParams(row));
}

/** An outbox row selected with its ask's `CLAIMED_ASK_COLUMNS`. */
type ClaimedRow = AskRow & {
  delivery_id: string;
  ask_id: string;
  channel: string;
  due_at: number;
  while_open: number;
  payload: string;
  attempts: number;
};

/**
 * The entries of claimed rows (`attempts` read before this claim's count is added: `added`);
 * a row whose ask cannot be read goes to `corrupt` instead, and its entry waits out its lease.
 */
function claimedEntries(
  rows: ClaimedRow[],
  added: number,
  corrupt: unknown[],
): ClaimedOutboxEntry[] {
  const entries: ClaimedOutboxEntry[] = [];
  for (const row of rows) {
    let ask: ClaimedOutboxAsk;
    try {
      ask = readClaimedAsk(row);
    } catch (error) {
      if (!(error instanceof CorruptAskRowError)) throw error;
      corrupt.push(error);
      continue;
    }
    const fields = {
      deliveryId: row.delivery_id,
      askId: row.ask_id,
      channel: row.channel,
      dueAt: Number(row.due_at),
      whileOpen: Number(row.while_open) === 1,
      payload: JSON.parse(row.payload) as unknown,
      attempts: Number(row.attempts) + added,
    };
    entries.push(claimedEntryOf(fields, ask));
  }
  return entries;
}
