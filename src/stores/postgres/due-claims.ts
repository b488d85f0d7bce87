/**
 * The PostgreSQL store's sweep (`claimDue`): due asks claimed in rounds, each one statement
 * that locks them for this sweeper, settled, and written in one batch (see `PostgresBatch`).
 */
import type { Sql } from 'postgres';
import { dueAsk } from '../ask-rules-sql.js';
import type { AskWrite, StoredAsk } from '../ask-store.js';
import type { PostgresBatch, VersionedWrite } from './batch.js';
import { isConnectionLost, json, type PostgresConnection } from './connection.js';
import type { OwnWrites } from './own-writes.js';
import { parseAskRow } from './rows.js';

/** How long a due ask a sweeper could not read, or declined, is left for the asks after it. */
const CLAIM_LEASE_MS = 5_000;

export class PostgresDueClaims {
  readonly #db: PostgresConnection;
  readonly #batch: PostgresBatch;
  readonly #own: OwnWrites;
  /** Corrupt due asks already reported (id:version), so a sweep every second does not repeat them. */
  readonly #reported = new Set<string>();

  constructor(db: PostgresConnection, batch: PostgresBatch, own: OwnWrites) {
    this.#db = db;
    this.#batch = batch;
    this.#own = own;
  }

  claimDue(
    now: number,
    limit: number,
    settle: (ask: StoredAsk) => AskWrite | undefined,
  ): Promise<AskWrite[]> {
    // The asks claimed are known once each round's claim returns: news of their writes waits
    // for the whole sweep's promise (one for the sweep, not one per ask).
    return this.#own.sweep((claimed) => this.#claimDue(now, limit, settle, claimed));
  }

  async #claimDue(
    now: number,
    limit: number,
    settle: (ask: StoredAsk) => AskWrite | undefined,
    claimed: (askId: string) => void,
  ): Promise<AskWrite[]> {
    // Declined asks keep their lease (see below), so each round reaches further: the loop
    // ends when `limit` writes are applied or no due ask is left unclaimed.
    const applied: AskWrite[] = [];
    for (;;) {
      const round = await this.#claimRound(now, limit - applied.length, settle, claimed);
      applied.push(...round.applied);
      if (round.claimed === 0 || applied.length >= limit) return applied;
    }
  }

  async #claimRound(
    now: number,
    limit: number,
    settle: (ask: StoredAsk) => AskWrite | undefined,
    claimed: (askId: string) => void,
  ): Promise<{ claimed: number; applied: AskWrite[] }> {
    const sql = await this.#db.open();
    const s = this.#db.schema;
    // Not an interactive transaction (postgres 3.4.9 crashes the process when a transaction's
    // connection is cut: it writes ROLLBACK to a closed socket, porsager/postgres#1208): the
    // claim is one statement that takes a session advisory lock on each due ask it returns,
    // on a connection reserved for the round, so concurrent sweepers take disjoint asks; the
    // locks go once the round's writes are in, or with the connection if it is cut. Each
    // write is still applied only at the version read, so a sweeper that read an ask just
    // before another one's write committed can never time it out twice. A lock writes
    // nothing, where a lease written into each row cost a second row version per ask.
    // Due asks are taken in deadline order, skipping rows being written right now (SKIP
    // LOCKED), and locked one by one until `limit` are held: `offset 0` keeps the lock out of
    // the scan (no condition is pushed into a subquery with an offset), so every ask locked
    // is one the claim returns, and is unlocked after the round.
    const session = await sql.reserve();
    // A reserved connection that was cut is back in the client's pool already, to be
    // connected again: it is not used, nor released, once a query on it met the cut.
    let cut = false;
    const noting = (error: unknown) => {
      cut ||= isConnectionLost(error);
      throw error;
    };
    let locked: unknown[][] = [];
    try {
      locked = await session`
        select ${s.askColumns} from (
          select ${s.askColumns} from ${s.asks} a
          where ${dueAsk(this.#db.rules, s, 'a', now)}
            and (claimed_until is null or claimed_until < clock_timestamp())
          order by deadline_at
          offset 0
          for update skip locked
        ) due
        where pg_try_advisory_lock(${s.lockSpace}, hashtext(id))
        limit ${limit}
      `
        .values()
        .catch(noting);
      const round = await this.#settleClaimed(session, locked, settle, claimed).catch(noting);
      // The round's write released the locks; a round with nothing to write did not.
      if (round.applying) locked = [];
      return round;
    } finally {
      if (locked.length > 0 && !cut) {
        await session`
          select pg_advisory_unlock(${s.lockSpace}, hashtext(id))
          from jsonb_array_elements_text(${sql.json(json(locked.map((row) => row[0])))}::jsonb) id
        `.catch((error: unknown) => {
          cut ||= isConnectionLost(error);
          if (!cut) this.#db.onError(error);
        });
      }
      if (!cut) session.release();
    }
  }

  /**
   * Settles the claimed rows and applies their writes; a row that cannot be read, or that
   * `settle` declines, is leased for a few seconds, so this and the next sweeps reach the asks
   * after it instead of meeting it again first.
   */
  async #settleClaimed(
    sql: Sql,
    rows: readonly unknown[][],
    settle: (ask: StoredAsk) => AskWrite | undefined,
    claimed: (askId: string) => void,
  ): Promise<{ claimed: number; applied: AskWrite[]; applying: boolean }> {
    if (rows.length === 0) return { claimed: 0, applied: [], applying: false };
    const s = this.#db.schema;
    for (const row of rows) claimed(String(row[0]));
    const asks: StoredAsk[] = [];
    const declined: string[] = [];
    for (const row of rows) {
      try {
        asks.push(parseAskRow(row));
      } catch (error) {
        this.#reportCorrupt(row, error);
        declined.push(String(row[0]));
      }
    }
    asks.sort((a, b) => (a.deadlineAt as number) - (b.deadlineAt as number));
    const writes: VersionedWrite[] = [];
    for (const ask of asks) {
      const write = settle(ask);
      if (write !== undefined) writes.push({ write, expectedVersion: ask.version });
      else declined.push(ask.askId);
    }
    if (declined.length > 0) {
      await sql`
        update ${s.asks}
        set claim = ${globalThis.crypto.randomUUID()},
          claimed_until = clock_timestamp() + ${`${CLAIM_LEASE_MS} milliseconds`}::interval
        where id in (select jsonb_array_elements_text(${sql.json(declined)}::jsonb))
      `;
    }
    if (writes.length === 0) return { claimed: rows.length, applied: [], applying: false };
    const unlock = rows.map((row) => String(row[0]));
    const applied = await this.#batch.apply(sql, writes, unlock);
    return { claimed: rows.length, applied, applying: true };
  }

  #reportCorrupt(row: readonly unknown[], error: unknown): void {
    const key = `${String(row[0])}:${String(row[2])}`;
    if (this.#reported.has(key)) return;
    this.#reported.add(key);
    this.#db.onError(error);
  }
}
