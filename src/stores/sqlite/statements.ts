/**
 * The SQLite store's prepared statements: their SQL text, built from the row's column tables
 * (`sqlite-rows.ts`, `row-columns.ts`), and `prepare`, which readies them on a connection with
 * those a sweep's batch and a work claim run (`batch.ts`, `work-claims.ts`).
 */

import {
  byInteractionOrder,
  claimableEntry,
  droppedAtSettle,
  dueAsk,
  leasedForTry,
  purgeable,
  settleHeardBy,
  takenBy,
} from '../ask-rules-sql.js';
import type { ListDialect } from '../list-sql.js';
import { columnList, placeholderList, queryColumns, selectList } from '../row-columns.js';
import { type BatchStatements, batchSql, WAITING_FOR_SETTLE } from './batch.js';
import { keyedHere, type SqliteDatabase, type SqliteStatement } from './database.js';
import {
  ASK_COLUMNS,
  CLAIMED_ASK_COLUMNS,
  EVENT_COLUMNS,
  LISTED_COLUMNS,
  UPDATED_COLUMNS,
} from './rows.js';
import { SQLITE_RULES, SQLITE_TABLES } from './rules.js';
import { EVENT_ID_HOLDER, LAST_EVENT_ID, LAST_EVENT_ID_SQL, NEXT_ASK_SEQ } from './schema.js';
import { type WorkClaimStatements, workClaimSql } from './work-claims.js';

/** The statements the store runs; those a sweep's batch runs are `BatchStatements`. */
export interface Statements extends BatchStatements, WorkClaimStatements {
  byId: SqliteStatement;
  byKey: SqliteStatement;
  byInteraction: SqliteStatement;
  openHolder: SqliteStatement;
  insertAsk: SqliteStatement;
  /** Whether an id belongs to a purged ask; `retire` keeps a purged ask's id. */
  retired: SqliteStatement;
  retire: SqliteStatement;
  updateAsk: SqliteStatement;
  insertEvent: SqliteStatement;
  history: SqliteStatement;
  due: SqliteStatement;
  settled: SqliteStatement;
  acknowledgeSettled: SqliteStatement;
  deleteEvents: SqliteStatement;
  lastEventId: SqliteStatement;
  holdAskSeq: SqliteStatement;
  holdEventId: SqliteStatement;
  dropEventIdHolders: SqliteStatement;
  deleteAsk: SqliteStatement;
  outboxSettled: SqliteStatement;
  outboxDropOpen: SqliteStatement;
  outboxAnyDue: SqliteStatement;
  outboxDue: SqliteStatement;
  outboxLeased: SqliteStatement;
  outboxLease: SqliteStatement;
  outboxComplete: SqliteStatement;
  outboxRetry: SqliteStatement;
  outboxRenew: SqliteStatement;
  deleteOutbox: SqliteStatement;
  renewLease: SqliteStatement;
  releaseLease: SqliteStatement;
  leaseUntil: SqliteStatement;
  /** `list` statements by their text, prepared on first use (one per filter shape). */
  lists: Map<string, SqliteStatement>;
}

/** How `list` reads this schema (`listStatement`). */
export const LIST_DIALECT: ListDialect = {
  table: 'asks',
  select: `seq, ${selectList(LISTED_COLUMNS)}`,
  tie: 'seq',
  columns: queryColumns(ASK_COLUMNS),
  notified: (recipient) => `seq IN (SELECT ask FROM ask_events WHERE recipient = ${recipient})`,
  placeholder: () => '?',
  rewrittenOnly: true,
};

/** Prepares every statement of the store on `db`; `list` statements are prepared on first use. */
export function prepare(db: SqliteDatabase): Statements {
  const columns = columnList(ASK_COLUMNS);
  const selected = selectList(ASK_COLUMNS);
  const placeholders = placeholderList(ASK_COLUMNS);
  const assignments = UPDATED_COLUMNS.map(
    (column) => `${column.column} = ${column.placeholder ?? '?'}`,
  ).join(', ');
  const eventColumns = columnList(EVENT_COLUMNS);
  const eventPlaceholders = EVENT_COLUMNS.map(() => '?').join(', ');
  const claimedColumns = `o.delivery_id, o.ask_id, o.channel, o.due_at, o.while_open, o.payload, o.attempts, ${columnList(CLAIMED_ASK_COLUMNS, 'a.')}`;
  return {
    byId: db.prepare(`SELECT ${selected} FROM asks WHERE id = ?`),
    byKey: db.prepare(`SELECT ${selected} FROM asks WHERE "key" = ?`),
    byInteraction: db.prepare(
      `SELECT ${selected} FROM asks WHERE interaction_id = ? ORDER BY ${byInteractionOrder(SQLITE_RULES, 'asks', 'asks.seq')} LIMIT 1`,
    ),
    openHolder: db.prepare(
      'SELECT id FROM asks WHERE interaction_id = ? AND final = 0 AND id <> ? LIMIT 1',
    ),
    // A taken id or key writes nothing (and no exception): `create` then reads who has it.
    // Nor does an id a purge retired (`ask_purged`); `create` tells that from a taken one.
    insertAsk: db.prepare(
      `INSERT INTO asks (seq, ${columns}) SELECT ${NEXT_ASK_SEQ}, ${placeholders}
       WHERE NOT EXISTS (SELECT 1 FROM ask_purged WHERE id = ?)
       ON CONFLICT DO NOTHING`,
    ),
    retired: db.prepare('SELECT 1 FROM ask_purged WHERE id = ?'),
    retire: db.prepare('INSERT OR IGNORE INTO ask_purged (id) SELECT id FROM asks WHERE seq = ?'),
    updateAsk: db.prepare(`UPDATE asks SET ${assignments} WHERE id = ? AND version = ?`),
    // The ask's row number by its id, in the same statement: nothing is appended to an unknown ask.
    insertEvent: db.prepare(
      `INSERT INTO ask_events (ask, ${eventColumns}) SELECT seq, ${eventPlaceholders} FROM asks WHERE id = ?`,
    ),
    history: db.prepare(
      `SELECT e.id AS id, ${columnList(EVENT_COLUMNS, 'e.')}, a.outcome AS outcome FROM asks a JOIN ask_events e ON e.ask = a.seq WHERE a.id = ? ORDER BY e.id`,
    ),
    // [...cursor, now, now, limit]: the due asks (`dueAsk`) in one range of `asks_due`, from
    // the cursor (deadline, deadline, row number) to `now`, in index order (deadline, then row
    // number): a batch reads only the rows it returns, wherever the cursor stands.
    due: keyedHere(
      db.prepare(
        `SELECT seq, ${selected} FROM asks
       WHERE deadline_at >= ? AND (deadline_at > ? OR seq > ?)
         AND ${dueAsk(SQLITE_RULES, SQLITE_TABLES, 'asks', '?')}
       ORDER BY deadline_at, seq LIMIT ?`,
      ),
    ),
    // [final before, now, limit]: the asks a purge may delete (`purgeable`), oldest first
    // along `asks_settled`.
    settled: db.prepare(
      `SELECT seq FROM asks WHERE ${purgeable(SQLITE_RULES, SQLITE_TABLES, 'asks', '?', '?')}
       ORDER BY updated_at LIMIT ?`,
    ),
    // The owner heard of the settle: not a transition (same version, no event, so no news).
    // [ask id, owner name]: the row names its owner by number.
    acknowledgeSettled: db.prepare(
      `UPDATE asks SET owner = NULL
       WHERE id = ? AND ${settleHeardBy(SQLITE_RULES, 'asks', '(SELECT id FROM ask_owners WHERE name = ?)')}`,
    ),
    deleteEvents: db.prepare('DELETE FROM ask_events WHERE ask = ?'),
    lastEventId: db.prepare(LAST_EVENT_ID_SQL),
    holdEventId: db.prepare(
      `INSERT INTO ask_events (id, ask, at, type, to_state) SELECT ?, ${EVENT_ID_HOLDER}, 0, '', ''
       WHERE ${LAST_EVENT_ID} < ?`,
    ),
    holdAskSeq: db.prepare(
      `INSERT INTO ask_last_seq (one, seq) SELECT 1, ? WHERE ${NEXT_ASK_SEQ} <= ?
       ON CONFLICT (one) DO UPDATE SET seq = excluded.seq`,
    ),
    // Placeholders below the one that is the largest id (or below an event that is) hold nothing.
    dropEventIdHolders: db.prepare(
      `DELETE FROM ask_events WHERE ask = ${EVENT_ID_HOLDER} AND id < ?`,
    ),
    deleteAsk: db.prepare('DELETE FROM asks WHERE seq = ? AND final = 1'),
    // [settled at, ask id]: the ask's entries waiting for its settle are due (`WAITING_FOR_SETTLE`).
    outboxSettled: db.prepare(
      `UPDATE ask_outbox SET due_at = ? WHERE ask_id = ? AND ${WAITING_FOR_SETTLE}`,
    ),
    // [ask id, settled at]: its entries about the open ask go (`droppedAtSettle`).
    outboxDropOpen: db.prepare(
      `DELETE FROM ask_outbox
       WHERE ask_id = ? AND ${droppedAtSettle(SQLITE_RULES, 'ask_outbox', '?')}`,
    ),
    // [channels as JSON, now, now, now]: whether any entry is claimable (`claimableEntry`).
    outboxAnyDue: db.prepare(
      `SELECT 1 FROM ask_outbox o
       WHERE o.channel IN (SELECT value FROM json_each(?))
         AND ${claimableEntry(SQLITE_RULES, SQLITE_TABLES, 'o', '?')}
       LIMIT 1`,
    ),
    // [channels as JSON, now, now, now, limit]: the claimable entries, with what the sender
    // needs of each entry's ask, so it reads nothing more.
    outboxDue: db.prepare(
      `SELECT ${claimedColumns} FROM ask_outbox o JOIN asks a ON a.id = o.ask_id
       WHERE o.channel IN (SELECT value FROM json_each(?))
         AND ${claimableEntry(SQLITE_RULES, SQLITE_TABLES, 'o', '?')}
       ORDER BY o.due_at LIMIT ?`,
    ),
    // Entries this sender wrote leased to itself (`takeOutbox`), with their ask.
    outboxLeased: db.prepare(
      `SELECT ${claimedColumns} FROM ask_outbox o JOIN asks a ON a.id = o.ask_id
       WHERE o.delivery_id IN (SELECT value FROM json_each(?))
         AND ${takenBy(SQLITE_RULES, 'o', '?', '?')}
       ORDER BY o.due_at`,
    ),
    outboxLease: db.prepare(
      'UPDATE ask_outbox SET attempts = attempts + 1, claimed_until = ?, claimed_by = NULL WHERE delivery_id = ?',
    ),
    outboxComplete: db.prepare(
      'UPDATE ask_outbox SET done_at = ?, claimed_until = 0 WHERE delivery_id = ? AND done_at IS NULL',
    ),
    outboxRetry: db.prepare(
      'UPDATE ask_outbox SET due_at = ?, claimed_until = 0, claimed_by = NULL WHERE delivery_id = ? AND done_at IS NULL',
    ),
    // Still this try's lease (not done, not released, not claimed again): extended.
    outboxRenew: db.prepare(
      `UPDATE ask_outbox SET claimed_until = MAX(claimed_until, ?)
       WHERE delivery_id = ? AND ${leasedForTry(SQLITE_RULES, 'ask_outbox', '?')}`,
    ),
    deleteOutbox: db.prepare(
      'DELETE FROM ask_outbox WHERE ask_id = (SELECT id FROM asks WHERE seq = ?)',
    ),
    renewLease: db.prepare(
      `INSERT INTO ask_leases (owner, lease_until) VALUES ((SELECT id FROM ask_owners WHERE name = ?), ?)
       ON CONFLICT (owner) DO UPDATE SET lease_until = excluded.lease_until`,
    ),
    releaseLease: db.prepare(
      'DELETE FROM ask_leases WHERE owner = (SELECT id FROM ask_owners WHERE name = ?)',
    ),
    leaseUntil: db.prepare(
      'SELECT l.lease_until FROM ask_leases l JOIN ask_owners o ON o.id = l.owner WHERE o.name = ?',
    ),
    lists: new Map(),
    ...prepareAll(db, batchSql()),
    ...prepareAll(db, workClaimSql()),
  };
}

function prepareAll<Names extends string>(
  db: SqliteDatabase,
  sql: Record<Names, string>,
): Record<Names, SqliteStatement> {
  const statements = {} as Record<Names, SqliteStatement>;
  for (const name of Object.keys(sql) as Names[]) statements[name] = db.prepare(sql[name]);
  return statements;
}
