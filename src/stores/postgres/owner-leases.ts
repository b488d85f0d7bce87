/**
 * The PostgreSQL store's owner leases: one row per service, renewed while it is open (the
 * sweep and the purge leave an ask to its live owner: `noLiveOwner` in `ask-rules-sql.ts`).
 */
import { settleHeardBy } from '../ask-rules-sql.js';
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
      update ${s.asks} a set owner = null
      where a.id = ${askId} and ${settleHeardBy(this.#db.rules, 'a', owner)}
    `;
  }
}
