/**
 * The PostgreSQL store's work claims (migration "work claims"): each call one statement. A
 * claim is one upsert that takes the row only when `claimable` (`claimableWork`, in SQL) and
 * otherwise leaves it as it is, returning the row either way: concurrent claims on one key
 * queue on its row lock, so exactly one takes it and the others read who has it.
 */
import { claimableWork, heldBy } from '../ask-rules-sql.js';
import {
  checkClaimKey,
  checkWorkClaim,
  type WorkClaim,
  type WorkClaimRequest,
  workClaimOf,
} from '../work-claims.js';
import type { PostgresConnection } from './connection.js';

/** The schema's `ask_claims`: one holder at a time per key. */
export class PostgresWorkClaims {
  readonly #db: PostgresConnection;

  constructor(db: PostgresConnection) {
    this.#db = db;
  }

  async claim(request: WorkClaimRequest, now: number): Promise<WorkClaim> {
    checkWorkClaim(request, now);
    const sql = await this.#db.open();
    const { rules, schema } = this.#db;
    const { key, holder, until, askId } = request;
    const take = () => claimableWork(rules, 'c', rules.raw('excluded.holder'), now);
    const [row] = await sql`
      insert into ${schema.claims} as c (key, holder, lease_until, ask_id)
      values (${key}, ${holder}, ${until}, ${askId ?? null})
      on conflict (key) do update set
        holder = case when ${take()} then excluded.holder else c.holder end,
        lease_until = case when ${take()} then excluded.lease_until else c.lease_until end,
        done_at = case when ${take()} then null else c.done_at end,
        ask_id = case when ${take()} then excluded.ask_id else c.ask_id end
      returning holder, lease_until, done_at
    `.values();
    const [storedHolder, leaseUntil, doneAt] = row as [string, number, number | null];
    return workClaimOf(
      key,
      {
        holder: storedHolder,
        leaseUntil: Number(leaseUntil),
        doneAt: doneAt === null ? undefined : Number(doneAt),
      },
      holder,
    );
  }

  /** Extends the lease while it is `holder`'s, not done and not run out at `now`. */
  async renew(key: string, holder: string, until: number, now: number): Promise<boolean> {
    checkClaimKey(key, holder, ['until', until], ['now', now]);
    const sql = await this.#db.open();
    const { rules, schema } = this.#db;
    const { count } = await sql`
      update ${schema.claims} c set lease_until = greatest(c.lease_until, ${until})
      where c.key = ${key} and ${heldBy(rules, 'c', holder)} and c.lease_until > ${now}
    `;
    return count > 0;
  }

  /** Marks the claim done while it is `holder`'s. */
  async finish(key: string, holder: string, at: number): Promise<boolean> {
    checkClaimKey(key, holder, ['at', at]);
    const sql = await this.#db.open();
    const { rules, schema } = this.#db;
    const { count } = await sql`
      update ${schema.claims} c set done_at = ${at}
      where c.key = ${key} and ${heldBy(rules, 'c', holder)}
    `;
    return count > 0;
  }

  /** Deletes the claim while it is `holder`'s and not done. */
  async release(key: string, holder: string): Promise<boolean> {
    checkClaimKey(key, holder);
    const sql = await this.#db.open();
    const { rules, schema } = this.#db;
    const { count } = await sql`
      delete from ${schema.claims} c where c.key = ${key} and ${heldBy(rules, 'c', holder)}
    `;
    return count > 0;
  }
}
