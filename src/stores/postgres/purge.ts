/** The PostgreSQL store's purge: final asks deleted in batches, their ids kept as tombstones. */
import { checkPurge } from '../ask-query.js';
import { purgeable } from '../ask-rules-sql.js';
import type { PostgresConnection } from './connection.js';

export class PostgresPurge {
  readonly #db: PostgresConnection;

  constructor(db: PostgresConnection) {
    this.#db = db;
  }

  async purge(finalBefore: number, limit: number, now: number): Promise<number> {
    checkPurge(finalBefore, limit, now);
    const sql = await this.#db.open();
    const s = this.#db.schema;
    // One statement per batch: rows another transaction holds (an `append` of a late answer
    // takes a key-share lock on its ask) are skipped, and left for the next purge, as are asks
    // whose live owner has not heard of their settle (the row still names it).
    const purged = await sql`
      with doomed as (
        select id from ${s.asks} a
        where ${purgeable(this.#db.rules, s, 'a', finalBefore, now)}
        order by updated_at limit ${limit}
        for update skip locked
      ), events as (
        delete from ${s.events} where ask_id in (select id from doomed)
      ), outbox as (
        delete from ${s.outbox} where ask_id in (select id from doomed)
      ), claims as (
        delete from ${s.claims} where ask_id in (select id from doomed)
      ), retired as (
        insert into ${s.purged} (id) select id from doomed on conflict do nothing
      )
      delete from ${s.asks} where id in (select id from doomed) returning id
    `.values();
    return purged.length;
  }
}
