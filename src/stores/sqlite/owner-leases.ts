/**
 * The SQLite store's owner leases (migration 11): one row per service in `ask_leases`, keyed by
 * the owner's number in `ask_owners`, as the asks' rows name their owner.
 */
import { checkOwnerLease } from '../owner-lease.js';
import type { StoreConnection } from './connection.js';

/** `acknowledgeSettled`: the owner heard its ask settle, which a purge may now delete. */
export async function acknowledgeSettled(
  connection: StoreConnection,
  askId: string,
  owner: string,
): Promise<void> {
  checkOwnerLease(owner);
  const { opened, statements } = await connection.openToWrite();
  connection.write(opened, () => statements.acknowledgeSettled.run(askId, owner));
}

/** `renewOwnerLease`: `owner` is live until `until`. */
export async function renewOwnerLease(
  connection: StoreConnection,
  owner: string,
  until: number,
): Promise<void> {
  checkOwnerLease(owner, until);
  const { opened, statements } = await connection.openToWrite();
  // The owner's name first (a row names it by number), in the same transaction.
  connection.write(opened, () => {
    statements.insertOwner.run(owner);
    statements.renewLease.run(owner, until);
  });
  connection.named([owner]);
}

/** `releaseOwnerLease`: `owner` is live no more. */
export async function releaseOwnerLease(connection: StoreConnection, owner: string): Promise<void> {
  checkOwnerLease(owner);
  const { statements } = await connection.openToWrite();
  statements.releaseLease.run(owner);
}

/** `ownerLeaseUntil`: when `owner`'s lease runs out, if it has one. */
export async function ownerLeaseUntil(
  connection: StoreConnection,
  owner: string,
): Promise<number | undefined> {
  checkOwnerLease(owner);
  const { statements } = await connection.open();
  const row = statements.leaseUntil.get(owner) as { lease_until: number } | undefined;
  return row === undefined ? undefined : Number(row.lease_until);
}
