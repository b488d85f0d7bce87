/**
 * A sweep's batch of writes as plain data (`BatchPlan`), the SQL that applies it, and the one
 * function that runs that SQL inside a write transaction (`applyBatchPlan`). The store's own
 * connection runs it, and so does the store's worker thread (worker.ts), which is
 * handed this function's source: it uses nothing but its arguments.
 */

import { droppedAtSettle, waitsForSettle } from '../ask-rules-sql.js';
import type { AskWrite } from '../ask-store.js';
import { type OutboxRow, outboxRowStart, outboxRowsOf } from '../outbox.js';
import { columnList } from '../row-columns.js';
import type { SqliteStatement, SqliteValue } from './database.js';
import { EVENT_COLUMNS, eventParams, UPDATED_COLUMNS, updateParams } from './rows.js';
import { SQLITE_RULES } from './rules.js';

/** A due row `settle` wrote anew: its row number, the version it was read at, the write. */
export interface SettledRow {
  seq: number;
  version: number;
  write: AskWrite;
}

/**
 * A batch of writes, each row under the same version check as `update`. Its lists are JSON
 * text, each element led by the row's number: text crosses to the worker thread as one copy.
 */
export interface BatchPlan {
  /** Owner names to add to `ask_owners` first (names this store does not know are there). */
  owners: string[];
  /** How many rows: when all of them applied, `settled` is used as it is. */
  size: number;
  /** [row number, expected version, ...UPDATED_COLUMNS' values] per row. */
  rows: string;
  /** [row number, ...EVENT_COLUMNS' values]: one event per row, in the rows' order. */
  events: string;
  /** [row number, ask id, settled at] per final row. */
  settled: string;
  /** [row number, ...`insertOutbox`'s parameters] per outbox entry. */
  outbox: string;
}

/** What applied: the rows the version check let through, and each one's appended event id. */
export interface BatchResult {
  updated: number[];
  /** [row number, event id]. */
  eventIds: [number, number][];
}

/** An entry waiting for its ask to settle, due once it does (`waitsForSettle`). */
export const WAITING_FOR_SETTLE = waitsForSettle(SQLITE_RULES, 'ask_outbox');

/** The statements `applyBatchPlan` runs, by name. */
export type BatchStatements = Record<keyof ReturnType<typeof batchSql>, SqliteStatement>;

/** The SQL of the statements a batch runs (prepared by the store and by the sweep's worker). */
export function batchSql() {
  const eventColumns = columnList(EVENT_COLUMNS);
  return {
    insertOwner: 'INSERT INTO ask_owners (name) VALUES (?) ON CONFLICT DO NOTHING',
    // [...UPDATED_COLUMNS' values, row number, expected version]: `update`'s version check.
    updateRow: `UPDATE asks SET ${UPDATED_COLUMNS.map(
      (column) => `${column.column} = ${column.placeholder ?? '?'}`,
    ).join(', ')} WHERE seq = ? AND version = ?`,
    // [ask row number, ...EVENT_COLUMNS' values].
    insertEventRow: `INSERT INTO ask_events (ask, ${eventColumns})
       VALUES (${['ask', ...EVENT_COLUMNS].map(() => '?').join(', ')}) RETURNING id`,
    // Each element: [row number, ask id, settled at].
    outboxSettledBatch: `UPDATE ask_outbox SET due_at = b.value ->> 2 FROM json_each(?) AS b
       WHERE ask_outbox.ask_id = b.value ->> 1 AND ${WAITING_FOR_SETTLE}`,
    // Its parameter is the settled list, given twice; the settle drops what a single write's
    // does (`droppedAtSettle`), at each ask's own settle time.
    outboxDropOpenBatch: `DELETE FROM ask_outbox
       WHERE ask_id IN (SELECT value ->> 1 FROM json_each(?))
         AND ${droppedAtSettle(
           SQLITE_RULES,
           'ask_outbox',
           `(SELECT b.value ->> 2 FROM json_each(?) AS b WHERE b.value ->> 1 = ask_outbox.ask_id)`,
         )}`,
    insertOutbox: `INSERT INTO ask_outbox
         (delivery_id, ask_id, channel, due_at, while_open, payload, attempts, claimed_until, claimed_by)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
  };
}

/** `insertOutbox`'s parameters for one entry. */
export function outboxParams(row: OutboxRow): SqliteValue[] {
  const { attempts, claimedUntil, claimedBy } = outboxRowStart(row);
  return [
    row.deliveryId,
    row.askId,
    row.channel,
    row.dueAt ?? null,
    row.whileOpen ? 1 : 0,
    JSON.stringify(row.payload),
    attempts,
    claimedUntil,
    claimedBy ?? null,
  ];
}

/** The plan of a batch: `owners` are the names to add first. */
export function planBatch(batch: readonly SettledRow[], owners: string[]): BatchPlan {
  const rows: unknown[][] = [];
  const events: unknown[][] = [];
  const settled: unknown[][] = [];
  const outbox: unknown[][] = [];
  for (const { seq, version, write } of batch) {
    const { ask, event } = write;
    rows.push([seq, version, ...updateParams(ask)]);
    events.push([seq, ...eventParams(event, ask)]);
    if (ask.final) settled.push([seq, ask.askId, ask.updatedAt]);
    for (const row of outboxRowsOf(write)) outbox.push([seq, ...outboxParams(row)]);
  }
  return {
    owners,
    size: batch.length,
    rows: JSON.stringify(rows),
    events: JSON.stringify(events),
    settled: JSON.stringify(settled),
    outbox: JSON.stringify(outbox),
  };
}

/**
 * Inside a write transaction: applies a plan, each row under its version check; only rows whose
 * check held get their events and outbox entries (their settled entries in one statement).
 *
 * Runs in the sweep's worker thread too, from its source: it must use nothing but its
 * arguments and plain JavaScript (no imports, no helpers of this module).
 */
export function applyBatchPlan(statements: BatchStatements, plan: BatchPlan): BatchResult {
  for (const owner of plan.owners) statements.insertOwner.run(owner);
  const updated: number[] = [];
  const eventIds: [number, number][] = [];
  const applied = new Set<number>();
  // Row by row through prepared statements: measured cheaper than one statement reading the
  // batch from JSON (`json_each`), which parses a row's array again for each column.
  const rows = JSON.parse(plan.rows) as unknown[][];
  const events = JSON.parse(plan.events) as unknown[][];
  for (let index = 0; index < rows.length; index++) {
    const row = rows[index] as unknown[];
    const seq = row[0] as number;
    const { changes } = statements.updateRow.run(...row.slice(2), seq, row[1]);
    if (Number(changes) === 0) continue;
    updated.push(seq);
    applied.add(seq);
    const event = statements.insertEventRow.get(...(events[index] as unknown[])) as { id: number };
    eventIds.push([seq, Number(event.id)]);
  }
  if (applied.size === 0) return { updated, eventIds };
  if (plan.settled !== '[]') {
    // The plan's own text when every row applied (the usual case).
    const settled =
      applied.size === plan.size
        ? plan.settled
        : JSON.stringify(
            (JSON.parse(plan.settled) as [number][]).filter((entry) => applied.has(entry[0])),
          );
    statements.outboxDropOpenBatch.run(settled, settled);
    statements.outboxSettledBatch.run(settled);
  }
  if (plan.outbox !== '[]') {
    for (const entry of JSON.parse(plan.outbox) as unknown[][]) {
      if (applied.has(entry[0] as number)) statements.insertOutbox.run(...entry.slice(1));
    }
  }
  return { updated, eventIds };
}
