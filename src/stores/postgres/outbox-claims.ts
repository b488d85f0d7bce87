/**
 * The PostgreSQL store's outbox: entries claimed and leased by their senders (`FOR UPDATE SKIP
 * LOCKED`, so senders claiming at once take disjoint entries), taken, completed, retried, renewed.
 */
import type { AskAuditEvent } from '../../engine/audit.js';
import { claimableEntry, leasedForTry, takenBy } from '../ask-rules-sql.js';
import type { ClaimedOutboxEntry } from '../ask-store.js';
import { checkOutboxClaim, checkOutboxRenew, checkOutboxTake, claimedEntryOf } from '../outbox.js';
import { json, type PostgresConnection } from './connection.js';
import { CorruptAskRowError, EVENT_COLUMNS, parseClaimedAskRow, recordOf } from './rows.js';

export class PostgresOutbox {
  readonly #db: PostgresConnection;

  constructor(db: PostgresConnection) {
    this.#db = db;
  }

  async claim(
    now: number,
    limit: number,
    leaseMs: number,
    channels: readonly string[],
  ): Promise<ClaimedOutboxEntry[]> {
    checkOutboxClaim(now, limit, leaseMs, channels);
    const sql = await this.#db.open();
    const s = this.#db.schema;
    // One statement: due rows are locked with SKIP LOCKED and leased, so senders claiming at
    // the same moment take disjoint rows, and a row leased by one is not due for the other.
    // How an ask ended waits while a message about the open ask is being sent (leased).
    // Each comes with what the sender needs of its ask, so it reads nothing more.
    const rows = await sql`
      update ${s.outbox} o
      set attempts = o.attempts + 1, claimed_until = ${now + leaseMs}, claimed_by = null
      from ${s.asks} a
      where a.id = o.ask_id and o.delivery_id = any(array(
        select delivery_id from ${s.outbox} c
        where ${claimableEntry(this.#db.rules, s, 'c', now)}
          and c.channel in (select jsonb_array_elements_text(${sql.json(json(channels))}::jsonb))
        order by due_at limit ${limit}
        for update skip locked
      ))
      returning o.delivery_id, o.ask_id, o.channel, o.due_at, o.while_open, o.payload, o.attempts,
        ${s.claimedAskColumns}
    `.values();
    return this.#claimedEntries(rows);
  }

  async take(
    sender: string,
    deliveryIds: readonly string[],
    now: number,
  ): Promise<ClaimedOutboxEntry[]> {
    checkOutboxTake(sender, deliveryIds, now);
    if (deliveryIds.length === 0) return [];
    const sql = await this.#db.open();
    const s = this.#db.schema;
    const rows = await sql`
      select o.delivery_id, o.ask_id, o.channel, o.due_at, o.while_open, o.payload, o.attempts,
        ${s.claimedAskColumns}
      from ${s.outbox} o join ${s.asks} a on a.id = o.ask_id
      where o.delivery_id in (select jsonb_array_elements_text(${sql.json(json(deliveryIds))}::jsonb))
        and ${takenBy(this.#db.rules, 'o', sender, now)}
    `.values();
    return this.#claimedEntries(rows);
  }

  /** Claimed or taken rows as their senders get them, earliest first; a corrupt ask is reported. */
  #claimedEntries(rows: readonly unknown[][]): ClaimedOutboxEntry[] {
    const claimed: ClaimedOutboxEntry[] = [];
    for (const [deliveryId, askId, channel, dueAt, whileOpen, payload, attempts, ...ask] of rows) {
      try {
        const fields = {
          deliveryId: String(deliveryId),
          askId: String(askId),
          channel: String(channel),
          dueAt: Number(dueAt),
          whileOpen: whileOpen === true,
          payload: payload as unknown,
          attempts: Number(attempts),
        };
        claimed.push(claimedEntryOf(fields, parseClaimedAskRow(ask)));
      } catch (error) {
        // An ask row that cannot be read is reported; its entry waits out its lease.
        if (!(error instanceof CorruptAskRowError)) throw error;
        this.#db.onError(error);
      }
    }
    return claimed.sort((a, b) => a.dueAt - b.dueAt);
  }

  async complete(deliveryId: string, at: number, event?: AskAuditEvent): Promise<boolean> {
    const sql = await this.#db.open();
    const s = this.#db.schema;
    const events = event === undefined ? [] : [recordOf(EVENT_COLUMNS, event)];
    // The entry and its audit event in one statement: done once, audited once.
    const [[done] = []] = await sql`
      with done as (
        update ${s.outbox} set done_at = ${at}, claimed_until = 0
        where delivery_id = ${deliveryId} and done_at is null
        returning ask_id
      ), event as (
        insert into ${s.events} (${s.eventColumns})
        select ${s.eventColumns}
        from jsonb_to_recordset(${sql.json(json(events))}::jsonb) as w(${s.eventTypes})
        where exists (select from done)
          and exists (select from ${s.asks} where id = w.ask_id for key share)
      )
      select count(*)::int from done
    `.values();
    return done === 1;
  }

  async retry(deliveryId: string, retryAt: number): Promise<void> {
    const sql = await this.#db.open();
    const s = this.#db.schema;
    await sql`
      update ${s.outbox} set due_at = ${retryAt}, claimed_until = 0, claimed_by = null
      where delivery_id = ${deliveryId} and done_at is null
    `;
  }

  async renew(deliveryId: string, attempts: number, until: number): Promise<boolean> {
    checkOutboxRenew(deliveryId, attempts, until);
    const sql = await this.#db.open();
    const s = this.#db.schema;
    // A claim at the same moment locks the row first (and counts a new try) or finds it leased.
    const { count } = await sql`
      update ${s.outbox} o set claimed_until = greatest(o.claimed_until, ${until})
      where o.delivery_id = ${deliveryId} and ${leasedForTry(this.#db.rules, 'o', attempts)}
    `;
    return count > 0;
  }
}
