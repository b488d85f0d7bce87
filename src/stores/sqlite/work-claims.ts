/**
 * The SQLite store's work claims (migration 14): the statements, and a claim as one write
 * transaction of the store's (read the claim, take it if `claimable`), so two processes on the
 * file never both take it.
 */

import { heldBy } from '../ask-rules-sql.js';
import {
  checkClaimKey,
  checkWorkClaim,
  claimable,
  type WorkClaim,
  type WorkClaimRequest,
  type WorkClaimRow,
  workClaimOf,
} from '../work-claims.js';
import type { StoreConnection } from './connection.js';
import type { SqliteStatement } from './database.js';
import { SQLITE_RULES } from './rules.js';

/** The statements' SQL, prepared with the store's others. */
export function workClaimSql() {
  return {
    claimRow: 'SELECT holder, lease_until, done_at FROM ask_claims WHERE "key" = ?',
    takeClaim: `INSERT INTO ask_claims ("key", holder, lease_until, ask_id) VALUES (?, ?, ?, ?)
       ON CONFLICT ("key") DO UPDATE SET holder = excluded.holder,
         lease_until = excluded.lease_until, ask_id = excluded.ask_id, done_at = NULL`,
    renewClaim: `UPDATE ask_claims SET lease_until = MAX(lease_until, ?)
       WHERE "key" = ? AND ${heldBy(SQLITE_RULES, 'ask_claims', '?')} AND lease_until > ?`,
    finishClaim: `UPDATE ask_claims SET done_at = ?
       WHERE "key" = ? AND ${heldBy(SQLITE_RULES, 'ask_claims', '?')}`,
    releaseClaim: `DELETE FROM ask_claims WHERE "key" = ? AND ${heldBy(SQLITE_RULES, 'ask_claims', '?')}`,
    // A purged ask's claims go with it (`ask_claims_ask`).
    deleteClaims: 'DELETE FROM ask_claims WHERE ask_id = (SELECT id FROM asks WHERE seq = ?)',
  } as const;
}

/** The prepared statements of `workClaimSql`. */
export type WorkClaimStatements = Record<keyof ReturnType<typeof workClaimSql>, SqliteStatement>;

/** `claimWork`, inside the store's write transaction. */
function claimWorkHere(
  statements: WorkClaimStatements,
  request: WorkClaimRequest,
  now: number,
): WorkClaim {
  const { key, holder, until, askId } = request;
  const found = statements.claimRow.get(key) as
    | { holder: string; lease_until: number; done_at: number | null }
    | undefined;
  let row: WorkClaimRow | undefined =
    found === undefined
      ? undefined
      : {
          holder: found.holder,
          leaseUntil: Number(found.lease_until),
          doneAt: found.done_at === null ? undefined : Number(found.done_at),
        };
  if (claimable(row, holder, now)) {
    statements.takeClaim.run(key, holder, until, askId ?? null);
    row = { holder, leaseUntil: until, doneAt: undefined };
  }
  return workClaimOf(key, row as WorkClaimRow, holder);
}

/** `claimWork`: `request`'s claim, taken when `claimable`, in one write transaction. */
export async function claimWork(
  connection: StoreConnection,
  request: WorkClaimRequest,
  now: number,
): Promise<WorkClaim> {
  checkWorkClaim(request, now);
  const { opened, statements } = await connection.openToWrite();
  return connection.write(opened, () => claimWorkHere(statements, request, now));
}

/** `renewWork`: extends the lease while it is `holder`'s, not done and not run out at `now`. */
export async function renewWork(
  connection: StoreConnection,
  key: string,
  holder: string,
  until: number,
  now: number,
): Promise<boolean> {
  checkClaimKey(key, holder, ['until', until], ['now', now]);
  const { statements } = await connection.openToWrite();
  return Number(statements.renewClaim.run(until, key, holder, now).changes) > 0;
}

/** `finishWork`: the claim is done, while it is `holder`'s. */
export async function finishWork(
  connection: StoreConnection,
  key: string,
  holder: string,
  at: number,
): Promise<boolean> {
  checkClaimKey(key, holder, ['at', at]);
  const { statements } = await connection.openToWrite();
  return Number(statements.finishClaim.run(at, key, holder).changes) > 0;
}

/** `releaseWork`: deletes the claim while it is `holder`'s and not done. */
export async function releaseWork(
  connection: StoreConnection,
  key: string,
  holder: string,
): Promise<boolean> {
  checkClaimKey(key, holder);
  const { statements } = await connection.openToWrite();
  return Number(statements.releaseClaim.run(key, holder).changes) > 0;
}
