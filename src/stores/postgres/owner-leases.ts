/**
 * The PostgreSQL store's owner leases: one row per service, renewed while it is open, and the
 * test by which the sweep and the purge leave an ask to its live owner.
 */
import type { Sql } from 'postgres';
import { checkOwnerLease } from '../owner-lease.js';
import { type PostgresConnection, retryRead } from './connection.js';

export class PostgresOwnerLeases {
  readonly #db: PostgresConnection;

  constructor(db: PostgresConnection) {
    this.#db = db;
  }

  async renew(owner: string, until: number): Promise<void> {
    checkOwnerLease(owner, until);
    const sql = await this.#db.open();
    const s = this.#db.schema;
    await sql`
      insert into ${s.leases} (owner, lease_until) values (${owner}, ${until})
      on conflict (owner) do update set lease_until = excluded.lease_until
    `;
  }

  async release(owner: string): Promise<void> {
    checkOwnerLease(owner);
    const sql = await this.#db.open();
    const s = this.#db.schema;
    await sql`delete from ${s.leases} where owner = ${owner}`;
  }

  async until(owner: string): Promise<number | undefined> {
    checkOwnerLease(owner);
    const sql = await this.#db.open();
    const s = this.#db.schema;
    const [row] = await retryRead(() =>
      sql`select lease_until from ${s.leases} where owner = ${owner}`.values(),
    );
    return row === undefined ? undefined : Number(row[0]);
  }

  async acknowledgeSettled(askId: string, owner: string): Promise<void> {
    checkOwnerLease(owner);
    const sql = await this.#db.open();
    const s = this.#db.schema;
    // Not a transition: the version stays and no NOTIFY is sent.
    await sql`
      update ${s.asks} set owner = null where id = ${askId} and final and owner = ${owner}
    `;
  }

  /**
   * True for an ask (alias `a`) that names no owner, or one whose lease does not run past
   * `now`: the one rule by which `claimDue` leaves a pending ask to its live owner and `purge`
   * a final one its live owner has not heard settle.
   */
  noLiveOwner(now: number): ReturnType<Sql> {
    return this.#db.sql`(a.owner is null or not exists (
      select from ${this.#db.schema.leases} l where l.owner = a.owner and l.lease_until > ${now}))`;
  }
}
