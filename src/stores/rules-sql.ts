/**
 * The stores' rules about asks and outbox entries that a SQL store tests in its statements,
 * written once for SQLite and PostgreSQL (as `list-sql.ts` writes `list`): which asks are due to
 * time out, which a purge may delete, which outbox entries a sender may claim. The memory store
 * keeps the same rules in code (`leaseRuns`, its heaps and `#heldBack`).
 *
 * A flag is tested as the dialect writes it (`SqlDialect.writeFlag`: 1 and 0 in SQLite, booleans
 * in PostgreSQL); each bound value is a placeholder function, called once per occurrence in the
 * text's order (SQLite binds `?` each time, PostgreSQL may bind `$n`).
 */
import type { SqlDialect } from './row-columns.js';

/** The condition that flag `column` is `value`, as `dialect` writes flags. */
export function flagSql(dialect: SqlDialect, column: string, value: boolean): string {
  return `${column} = ${String(dialect.writeFlag(value))}`;
}

/** The placeholder of a bound value, called once for each place the value appears. */
export type Bind = () => string;

/** Where the rules read: the asks, the owner leases and the outbox, as a statement names them. */
export interface RuleTables {
  /** The asks table, or its alias in the statement (qualifies the asks' columns). */
  asks: string;
  /** The owner leases table (`owner`, `lease_until`), keyed as the asks' rows name their owner. */
  leases: string;
  /** The outbox table. */
  outbox: string;
}

/**
 * True for an ask that names no owner, or one whose owner's lease does not run past `now`: the
 * one rule by which `claimDue` leaves a pending ask to its live owner and `purge` a final one its
 * live owner has not heard settle (`leaseRuns` in code).
 */
export function noLiveOwnerSql(tables: RuleTables, now: Bind): string {
  const { asks, leases } = tables;
  return `(${asks}.owner IS NULL OR NOT EXISTS
           (SELECT 1 FROM ${leases} l WHERE l.owner = ${asks}.owner AND l.lease_until > ${now()}))`;
}

/** A due ask, to time out at `now`: open, its deadline reached, and no live owner to do it. */
export function dueAskSql(dialect: SqlDialect, tables: RuleTables, now: Bind): string {
  const { asks } = tables;
  return `${flagSql(dialect, `${asks}.final`, false)} AND ${asks}.deadline_at <= ${now()}
         AND ${noLiveOwnerSql(tables, now)}`;
}

/**
 * An ask a purge at `now` may delete: final since before `finalBefore`, and no live owner that
 * has not heard it settle (the row still names an owner until it acknowledges the settle).
 */
export function purgeableSql(
  dialect: SqlDialect,
  tables: RuleTables,
  finalBefore: Bind,
  now: Bind,
): string {
  const { asks } = tables;
  return `${flagSql(dialect, `${asks}.final`, true)} AND ${asks}.updated_at < ${finalBefore()}
         AND ${noLiveOwnerSql(tables, now)}`;
}

/**
 * An outbox entry (alias `entry`) a sender may claim at `now`: not done, due, not leased, and
 * not held back. An entry about how the ask ended is held back while one about the open ask
 * (`whileOpen`) is being sent (leased past `now`), so the two never arrive out of order.
 */
export function claimableEntrySql(
  dialect: SqlDialect,
  tables: RuleTables,
  entry: string,
  now: Bind,
): string {
  return `${entry}.done_at IS NULL AND ${entry}.due_at IS NOT NULL AND ${entry}.due_at <= ${now()}
         AND ${entry}.claimed_until <= ${now()}
         AND (${flagSql(dialect, `${entry}.while_open`, true)} OR NOT EXISTS (
           SELECT 1 FROM ${tables.outbox} w
           WHERE w.ask_id = ${entry}.ask_id AND ${flagSql(dialect, 'w.while_open', true)}
             AND w.done_at IS NULL AND w.claimed_until > ${now()}))`;
}

/**
 * An outbox entry (alias `entry`) waiting for its ask to settle (`due: 'settled'`): when the ask
 * settles, it becomes due at the settle's time.
 */
export function awaitingSettleSql(entry: string): string {
  return `${entry}.due_at IS NULL AND ${entry}.done_at IS NULL`;
}

/**
 * An outbox entry (alias `entry`) that an ask's settle at `settledAt` drops: one about the open
 * ask (`whileOpen`), not sent, and not being sent then; one being sent (leased past the settle)
 * stays, to be marked done or dropped by a later claim.
 */
export function droppedAtSettleSql(dialect: SqlDialect, entry: string, settledAt: Bind): string {
  return `${flagSql(dialect, `${entry}.while_open`, true)} AND ${entry}.done_at IS NULL
         AND ${entry}.claimed_until <= ${settledAt()}`;
}

/**
 * An outbox entry (alias `entry`) still leased for its try `attempts`: not done, not released,
 * and not claimed again since (a new claim counts a new try), so its lease may be renewed.
 */
export function leasedForTrySql(entry: string, attempts: Bind): string {
  return `${entry}.attempts = ${attempts()} AND ${entry}.done_at IS NULL
         AND ${entry}.claimed_until > 0`;
}

/**
 * An outbox entry (alias `entry`) that `sender` wrote leased to itself and may still send at
 * `now`: not done, and its lease runs past `now` (no claim took it meanwhile).
 */
export function takenBySql(entry: string, sender: Bind, now: Bind): string {
  return `${entry}.claimed_by = ${sender()} AND ${entry}.done_at IS NULL
         AND ${entry}.claimed_until > ${now()}`;
}

/**
 * The order in which `findByInteractionId` meets an interaction id's asks: the open one first
 * (there is at most one), then the one written last; `tie` (a column) breaks equal times, newest
 * first.
 */
export function byInteractionOrderSql(asks: string, tie?: string): string {
  const last = tie === undefined ? '' : `, ${asks}.${tie} DESC`;
  return `${asks}.final ASC, ${asks}.updated_at DESC${last}`;
}

/**
 * An ask whose owner `owner` hears that it settled (`acknowledgeSettled`): final, and still
 * naming that owner. A purge may delete it from then on (`purgeableSql`).
 */
export function settleHeardSql(dialect: SqlDialect, asks: string, owner: Bind): string {
  return `${flagSql(dialect, `${asks}.final`, true)} AND ${asks}.owner = ${owner()}`;
}

/**
 * A work claim (alias `claim`) that `holder` holds: not done, so it may finish or release it
 * (`claimable` says who may take one).
 */
export function heldWorkSql(claim: string, holder: Bind): string {
  return `${claim}.holder = ${holder()} AND ${claim}.done_at IS NULL`;
}

/** A work claim `holder` holds whose lease runs past `now`: it may renew it. */
export function renewableWorkSql(claim: string, holder: Bind, now: Bind): string {
  return `${heldWorkSql(claim, holder)} AND ${claim}.lease_until > ${now()}`;
}
