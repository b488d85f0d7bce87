/**
 * The rules of the SQL stores, each spelled once as an SQL condition that SQLite and PostgreSQL
 * both run: whose ask a sweep may time out, which ask is due, which a purge may delete, which
 * outbox entry a sender may claim, what an ask's settle does to its entries. A dialect supplies
 * only how a piece of a statement is built (postgres.js's tagged template, or plain text with
 * its placeholders written in) and how a boolean column is tested; the memory store keeps the
 * same rules as code (`leaseRuns`, and its own outbox and claim loops).
 */

/** How a rule's condition is written into a dialect's statements. */
export interface RuleDialect<Piece> {
  /**
   * Builds a piece of a statement from a template: postgres.js's `sql` (each value a bound
   * parameter, unless it is a piece or made by `raw`), or `textPiece` (each value text).
   */
  sql: (strings: TemplateStringsArray, ...values: unknown[]) => Piece;
  /** A name (table, alias, column) inserted as it is. */
  raw: (text: string) => unknown;
  /** `column` tested for `value`, as the dialect spells a boolean column (`final`, `final = 1`). */
  is: (column: string, value: boolean) => unknown;
}

/** The owner leases' table (`owner`, `lease_until`), as the statement names it. */
export interface LeaseTable {
  leases: unknown;
}

/** The outbox table, as the statement names it. */
export interface OutboxTable {
  outbox: unknown;
}

/** A template of plain text: for a dialect whose statements are text with placeholders. */
export function textPiece(strings: TemplateStringsArray, ...values: unknown[]): string {
  let text = strings[0] as string;
  for (let index = 0; index < values.length; index++) {
    text += String(values[index]) + (strings[index + 1] as string);
  }
  return text;
}

/**
 * Who may take an ask over: an ask (row alias `ask`) that names no owner, or one whose owner's
 * lease does not run past `now` (`leaseRuns`). The one rule by which `claimDue` leaves a
 * pending ask to its live owner, and `purge` a final one its live owner has not heard settle.
 */
export function noLiveOwner<Piece>(
  d: RuleDialect<Piece>,
  names: LeaseTable,
  ask: string,
  now: unknown,
): Piece {
  const a = d.raw(ask);
  return d.sql`(${a}.owner is null or not exists (
      select 1 from ${names.leases} l where l.owner = ${a}.owner and l.lease_until > ${now}))`;
}

/** A due ask (row alias `ask`): open, its deadline passed at `now`, and no live owner holds it. */
export function dueAsk<Piece>(
  d: RuleDialect<Piece>,
  names: LeaseTable,
  ask: string,
  now: unknown,
): Piece {
  return d.sql`${d.is(`${ask}.final`, false)} and ${d.raw(ask)}.deadline_at <= ${now}
            and ${noLiveOwner(d, names, ask, now)}`;
}

/**
 * An ask (row alias `ask`) a purge may delete: final, settled before `finalBefore`, and not one
 * whose live owner has not heard of its settle (the row still names it).
 */
export function purgeable<Piece>(
  d: RuleDialect<Piece>,
  names: LeaseTable,
  ask: string,
  finalBefore: unknown,
  now: unknown,
): Piece {
  return d.sql`${d.is(`${ask}.final`, true)} and ${d.raw(ask)}.updated_at < ${finalBefore}
        and ${noLiveOwner(d, names, ask, now)}`;
}

/**
 * An outbox entry (row alias `entry`) a sender may claim at `now`: not done, due, not leased,
 * and not held back (see `notHeldBack`). Which channels the sender reads is the dialect's to add.
 */
export function claimableEntry<Piece>(
  d: RuleDialect<Piece>,
  names: OutboxTable,
  entry: string,
  now: unknown,
): Piece {
  const e = d.raw(entry);
  return d.sql`${e}.done_at is null and ${e}.due_at <= ${now} and ${e}.claimed_until <= ${now}
          and ${notHeldBack(d, names, entry, now)}`;
}

/**
 * An outbox entry (row alias `entry`) that is about the open ask, or whose ask has no such entry
 * being sent (leased at `now`): how an ask ended waits for the message about it while open.
 */
export function notHeldBack<Piece>(
  d: RuleDialect<Piece>,
  names: OutboxTable,
  entry: string,
  now: unknown,
): Piece {
  return d.sql`(${d.is(`${entry}.while_open`, true)} or not exists (
            select 1 from ${names.outbox} w
            where w.ask_id = ${d.raw(entry)}.ask_id and ${d.is('w.while_open', true)} and w.done_at is null
              and w.claimed_until > ${now}
          ))`;
}

/**
 * An outbox entry (row alias `entry`) still leased for its try `attempts`: not done, not
 * released, not claimed again since. Only such a lease is renewed.
 */
export function leasedForTry<Piece>(
  d: RuleDialect<Piece>,
  entry: string,
  attempts: unknown,
): Piece {
  const e = d.raw(entry);
  return d.sql`${e}.attempts = ${attempts} and ${e}.done_at is null and ${e}.claimed_until > 0`;
}

/** An entry (row alias `entry`) that waits for its ask to settle: due once it does. */
export function waitsForSettle<Piece>(d: RuleDialect<Piece>, entry: string): Piece {
  const e = d.raw(entry);
  return d.sql`${e}.due_at is null and ${e}.done_at is null and ${d.is(`${entry}.while_open`, false)}`;
}

/**
 * An entry (row alias `entry`) about the open ask that goes when the ask settles at `settledAt`;
 * one being sent then (leased past it) stays, for its sender to mark done.
 */
export function droppedAtSettle<Piece>(
  d: RuleDialect<Piece>,
  entry: string,
  settledAt: unknown,
): Piece {
  const e = d.raw(entry);
  return d.sql`${d.is(`${entry}.while_open`, true)} and ${e}.done_at is null
            and ${e}.claimed_until <= ${settledAt}`;
}

/**
 * A work claim (row alias `claim`) that `holder` may take at `now` (`claimable`): not done, and
 * its lease ran out or is the holder's own.
 */
export function claimableWork<Piece>(
  d: RuleDialect<Piece>,
  claim: string,
  holder: unknown,
  now: unknown,
): Piece {
  const c = d.raw(claim);
  return d.sql`${c}.done_at is null and (${c}.lease_until <= ${now} or ${c}.holder = ${holder})`;
}

/** A work claim (row alias `claim`) that is `holder`'s and not done: renewed, finished or released. */
export function heldBy<Piece>(d: RuleDialect<Piece>, claim: string, holder: unknown): Piece {
  const c = d.raw(claim);
  return d.sql`${c}.holder = ${holder} and ${c}.done_at is null`;
}

/**
 * An outbox entry (row alias `entry`) that `sender` wrote leased to itself and may still send at
 * `now` (`takeOutbox`): not done, and its lease runs past `now` (no claim took it since).
 */
export function takenBy<Piece>(
  d: RuleDialect<Piece>,
  entry: string,
  sender: unknown,
  now: unknown,
): Piece {
  const e = d.raw(entry);
  return d.sql`${e}.claimed_by = ${sender} and ${e}.done_at is null and ${e}.claimed_until > ${now}`;
}

/**
 * An ask (row alias `ask`) whose owner `owner` hears that it settled (`acknowledgeSettled`):
 * final, and still naming that owner. A purge may delete it from then on (`purgeable`).
 */
export function settleHeardBy<Piece>(d: RuleDialect<Piece>, ask: string, owner: unknown): Piece {
  return d.sql`${d.is(`${ask}.final`, true)} and ${d.raw(ask)}.owner = ${owner}`;
}

/**
 * The order in which `findByInteractionId` meets an interaction id's asks (row alias `ask`): the
 * open one first (there is at most one), then the one written last. `tie` (a column, its alias
 * written in) breaks a tie of equal times, the larger first, so the answer is stable: SQLite's
 * row number (the row written last), PostgreSQL's ask id (it keeps no row number).
 */
export function byInteractionOrder<Piece>(d: RuleDialect<Piece>, ask: string, tie: string): Piece {
  const a = d.raw(ask);
  return d.sql`${a}.final asc, ${a}.updated_at desc, ${d.raw(tie)} desc`;
}
