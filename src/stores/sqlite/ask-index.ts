/**
 * The SQLite store's index: `list`, a page of asks by filters each read as an index range
 * (`listStatement`), and `purge`, which deletes settled asks in short batches.
 */
import {
  type AskListFilter,
  type AskListPage,
  type AskListResult,
  checkPurge,
  pageOf,
  readAskQuery,
} from '../ask-query.js';
import type { ListedAsk } from '../ask-store.js';
import { listStatement } from '../list-sql.js';
import { readListedPage } from '../row-columns.js';
import type { StoreConnection } from './connection.js';
import { type AskRow, readListed } from './rows.js';
import { LIST_DIALECT } from './statements.js';

/** `list`: one page of the asks `filter` selects, newest first. */
export async function listAsks(
  connection: StoreConnection,
  filter?: AskListFilter,
  page?: AskListPage,
): Promise<AskListResult<ListedAsk>> {
  const query = readAskQuery<number>(filter, page, 'number');
  const { opened, statements } = await connection.open();
  const { text, params } = listStatement(query, LIST_DIALECT, 0);
  let statement = statements.lists.get(text);
  if (statement === undefined) {
    statement = opened.db.prepare(text);
    statements.lists.set(text, statement);
  }
  const rows = statement.all(...params) as (AskRow & { seq: number })[];
  const listed = pageOf(rows, query.limit, (row) => ({
    createdAt: Number(row.created_at),
    tie: Number(row.seq),
  }));
  return readListedPage(listed, readListed);
}

/**
 * `purge`: up to `limit` asks settled before `finalBefore` whose live owner (if any) heard they
 * settled, with their events, outbox entries and work claims; their ids are retired.
 */
export async function purgeAsks(
  connection: StoreConnection,
  finalBefore: number,
  limit: number,
  now: number,
): Promise<number> {
  checkPurge(finalBefore, limit, now);
  const { opened, statements } = await connection.openToWrite();
  // One short write transaction per call: the caller purges in batches, so writers queued
  // behind it wait for one batch at most.
  return connection.write(
    opened,
    () => {
      const doomed = statements.settled.all(finalBefore, now, limit) as { seq: number }[];
      if (doomed.length === 0) return 0;
      const { id: lastEventId } = statements.lastEventId.get() as { id: number };
      let lastSeq = 0;
      for (const { seq } of doomed) {
        statements.retire.run(seq);
        statements.deleteOutbox.run(seq);
        statements.deleteClaims.run(seq);
        statements.deleteEvents.run(seq);
        statements.deleteAsk.run(seq);
        if (seq > lastSeq) lastSeq = seq;
      }
      // Row numbers never go back: where the newest ask went, `ask_last_seq` keeps its number.
      statements.holdAskSeq.run(lastSeq, lastSeq);
      // Event ids never go back: where the newest events went, a placeholder keeps their id.
      statements.holdEventId.run(lastEventId, lastEventId);
      statements.dropEventIdHolders.run(lastEventId);
      return doomed.length;
    },
    { asks: (purged) => purged },
  );
}
