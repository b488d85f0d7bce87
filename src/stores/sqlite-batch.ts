/**
 * A sweep's batch of writes as plain data (`BatchPlan`), the SQL that applies it, and the one
 * function that runs that SQL inside a write transaction (`applyBatchPlan`). The store's own
 * connection runs it, and so does the sweep's worker thread (sqlite-sweep-worker.ts), which is
 * handed this function's source: it uses nothing but its arguments.
 */
import type { AskWrite } from './ask-store.js';
import { type OutboxRow, outboxRowsOf } from './outbox.js';
import { columnList } from './row-columns.js';
import type { SqliteStatement, SqliteValue } from './sqlite-database.js';
import { EVENT_COLUMNS, eventParams, UPDATED_COLUMNS, updateParams } from './sqlite-rows.js';

/** A due row `settle` wrote anew: its row number, the version it was read at, the write. */
export interface SettledRow {
  seq: number;
  version: number;
  write: AskWrite;
}

/**
 * A batch of writes, each row under the same version check as `update`. Its lists are JSON
 * text, each element led by the row's number: the statements read them with `json_each`, and
 * text crosses to the worker thread as one copy.
 */
export interface BatchPlan {
  /** Owner names to add to `ask_owners` first (names this store does not know are there). */
  owners: string[];
  /** How many rows: when all of them applied, the lists below are used as they are. */
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

/** The statements `applyBatchPlan` runs, by name. */
export type BatchStatements = Record<keyof ReturnType<typeof batchSql>, SqliteStatement>;

/** The SQL of the statements a batch runs (prepared by the store and by the sweep's worker). */
export function batchSql() {
  const eventColumns = columnList(EVENT_COLUMNS);
  return {
    insertOwner: 'INSERT INTO ask_owners (name) VALUES (?) ON CONFLICT DO NOTHING',
    // Each element of the array: [row number, expected version, ...UPDATED_COLUMNS' values].
    updateBatch: `UPDATE asks SET ${UPDATED_COLUMNS.map(
      (column, index) =>
        `${column.column} = ${(column.placeholder ?? '?').replace('?', `b.value ->> ${index + 2}`)}`,
    ).join(', ')}
       FROM json_each(?) AS b
       WHERE asks.seq = b.value ->> 0 AND asks.version = b.value ->> 1
       RETURNING asks.seq AS seq`,
    // Each element: [ask row number, ...EVENT_COLUMNS' values], one event per ask; each id is
    // returned with its ask (RETURNING promises no order).
    insertEventBatch: `INSERT INTO ask_events (ask, ${eventColumns})
       SELECT ${['ask', ...EVENT_COLUMNS].map((_, index) => `value ->> ${index}`).join(', ')}
       FROM json_each(?) ORDER BY key
       RETURNING id, ask`,
    // Each element: [row number, ask id, settled at].
    outboxSettledBatch: `UPDATE ask_outbox SET due_at = b.value ->> 2 FROM json_each(?) AS b
       WHERE ask_outbox.ask_id = b.value ->> 1 AND due_at IS NULL AND done_at IS NULL`,
    outboxDropOpenBatch: `DELETE FROM ask_outbox
       WHERE ask_id IN (SELECT value ->> 1 FROM json_each(?))
         AND while_open = 1 AND done_at IS NULL`,
    insertOutbox: `INSERT INTO ask_outbox
         (delivery_id, ask_id, channel, due_at, while_open, payload, attempts, claimed_until, claimed_by)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
  };
}

/** `insertOutbox`'s parameters for one entry. */
export function outboxParams(row: OutboxRow): SqliteValue[] {
  return [
    row.deliveryId,
    row.askId,
    row.channel,
    row.dueAt ?? null,
    row.whileOpen ? 1 : 0,
    JSON.stringify(row.payload),
    row.lease === undefined ? 0 : 1,
    row.lease?.until ?? 0,
    row.lease?.sender ?? null,
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
 * Inside a write transaction: applies a plan in one statement per table (the rows, their
 * events, their settled outbox entries) and one per new outbox entry. Only rows whose version
 * check held get their events and entries.
 *
 * Runs in the sweep's worker thread too, from its source: it must use nothing but its
 * arguments and plain JavaScript (no imports, no helpers of this module).
 */
export function applyBatchPlan(statements: BatchStatements, plan: BatchPlan): BatchResult {
  for (const owner of plan.owners) statements.insertOwner.run(owner);
  const updated: number[] = [];
  const applied = new Set<number>();
  for (const row of statements.updateBatch.all(plan.rows) as { seq: number }[]) {
    const seq = Number(row.seq);
    updated.push(seq);
    applied.add(seq);
  }
  const eventIds: [number, number][] = [];
  if (applied.size === 0) return { updated, eventIds };
  // A list of the rows that applied: the plan's own text when all did (the usual case).
  const kept = (list: string): string =>
    applied.size === plan.size
      ? list
      : JSON.stringify((JSON.parse(list) as [number][]).filter((entry) => applied.has(entry[0])));
  const events = statements.insertEventBatch.all(kept(plan.events)) as {
    id: number;
    ask: number;
  }[];
  for (const row of events) eventIds.push([Number(row.ask), Number(row.id)]);
  if (plan.settled !== '[]') {
    const settled = kept(plan.settled);
    statements.outboxDropOpenBatch.run(settled);
    statements.outboxSettledBatch.run(settled);
  }
  if (plan.outbox !== '[]') {
    for (const entry of JSON.parse(plan.outbox) as unknown[][]) {
      if (applied.has(entry[0] as number)) statements.insertOutbox.run(...entry.slice(1));
    }
  }
  return { updated, eventIds };
}
