/**
 * The SQLite store's ask log: creating and updating asks (with their events and outbox entries,
 * in one write transaction), appending events, and reading asks and their histories.
 */
import { type AskAuditEvent, startDataOf } from '../../engine/audit.js';
import { checkStoreText } from '../../rules/store-text.js';
import { notInsertedAnswer } from '../ask-create.js';
import type { AskCreateResult, AskUpdateResult, AskWrite, StoredAsk } from '../ask-store.js';
import { startStandsFor } from '../lean-rows.js';
import { CorruptAskRowError } from '../row-columns.js';
import type { SqliteChangeFeed } from './change-feed.js';
import type { StoreConnection } from './connection.js';
import { readTransaction } from './database.js';
import { queueOutbox } from './outbox-claims.js';
import {
  type AskRow,
  askParams,
  eventParams,
  impliedStartRow,
  readAsk,
  readEvent,
  updateParams,
} from './rows.js';
import type { Statements } from './statements.js';

/** `create`: the ask, its start event (unless its row stands for it) and its outbox entries. */
export async function createAsk(
  connection: StoreConnection,
  feed: SqliteChangeFeed,
  write: AskWrite,
): Promise<AskCreateResult> {
  const { opened, statements } = await connection.openToWrite();
  const { ask, event } = write;
  let eventId: number | undefined;
  let seq: number | undefined;
  const named: string[] = [];
  const refused = connection.write(opened, (): AskCreateResult | undefined => {
    connection.owner(statements, ask.owner, named);
    const inserted = statements.insertAsk.run(...askParams(ask), ask.askId);
    if (Number(inserted.changes) === 0) {
      const found = (statements.byId.get(ask.askId) ??
        (ask.key === undefined ? undefined : statements.byKey.get(ask.key))) as AskRow | undefined;
      return notInsertedAnswer(ask, {
        existing: found === undefined ? undefined : readAsk(found),
        retired: found === undefined && statements.retired.get(ask.askId) !== undefined,
        holder: found === undefined ? holder(statements, ask) : undefined,
      });
    }
    seq = rowId(inserted);
    // Most starts are the row's own (schema version 10): the history reads them from it.
    if (!startStandsFor(event, ask)) {
      eventId = rowId(statements.insertEvent.run(...eventParams(event, ask), ask.askId));
    }
    queueOutbox(statements, write);
    return undefined;
  });
  connection.named(named);
  if (refused !== undefined) return refused;
  feed.written(ask.askId, ask.version, eventId, write.writer, seq);
  return { created: true };
}

/** `update`, under the version check: the ask, its event and its outbox entries. */
export async function updateAsk(
  connection: StoreConnection,
  feed: SqliteChangeFeed,
  write: AskWrite,
  expectedVersion: number,
): Promise<AskUpdateResult> {
  const { opened, statements } = await connection.openToWrite();
  const { ask, event } = write;
  let eventId: number | undefined;
  const named: string[] = [];
  const result = connection.write(opened, (): AskUpdateResult => {
    let changes: number;
    try {
      connection.owner(statements, ask.owner, named);
      changes = Number(
        statements.updateAsk.run(...updateParams(ask), ask.askId, expectedVersion).changes,
      );
    } catch (error) {
      if (!isOpenInteractionConflict(error)) throw error;
      return {
        ok: false,
        reason: 'interaction-id',
        holder: holder(statements, ask) ?? '(unknown)',
      };
    }
    if (changes === 0) {
      const current = statements.byId.get(ask.askId) as AskRow | undefined;
      return { ok: false, reason: 'version', current: current && readAsk(current) };
    }
    eventId = rowId(statements.insertEvent.run(...eventParams(event, ask), ask.askId));
    queueOutbox(statements, write);
    return { ok: true };
  });
  connection.named(named);
  if (result.ok) feed.written(ask.askId, ask.version, eventId, write.writer);
  return result;
}

/** `append`: an event of a known ask. */
export async function appendEvent(
  connection: StoreConnection,
  event: AskAuditEvent,
): Promise<void> {
  const { statements } = await connection.openToWrite();
  const { changes } = statements.insertEvent.run(...eventParams(event), event.askId);
  if (Number(changes) === 0) {
    throw new Error(`Cannot append an audit event to unknown ask ${event.askId}.`);
  }
}

/** The ask `lookup` (by id, by key or by interaction id) finds for `value`, if any. */
export async function findAsk(
  connection: StoreConnection,
  lookup: 'byId' | 'byKey' | 'byInteraction',
  value: string,
): Promise<StoredAsk | undefined> {
  const { statements } = await connection.open();
  return readOptional(statements[lookup].get(value));
}

/** `history`: the ask's events in order, its start read from its row where that stands for it. */
export async function* historyOf(
  connection: StoreConnection,
  askId: string,
): AsyncIterable<AskAuditEvent> {
  checkStoreText(askId, 'askId');
  const { opened, statements } = await connection.open();
  // One read transaction: events appended while the caller iterates belong to a later read,
  // and the ask's row read for its start is the one these events belong to.
  const rows = readTransaction(opened.db, () => {
    const events = statements.history.all(askId) as Record<string, unknown>[];
    const first = events[0];
    if (first?.type === 'start') {
      // A start event whose data its ask's row stands for (see `eventParams`).
      if (first.data === null) first.start_data = startOf(statements, askId)?.start_data;
      return events;
    }
    // No start row: the ask's row stands for all of it (`startStandsFor`), if there is an ask.
    const start = startOf(statements, askId);
    return start === undefined ? events : [start, ...events];
  });
  for (const row of rows) {
    const event = historyEvent(connection.onError, row, askId);
    if (event !== undefined) yield event;
  }
}

/**
 * The start event row the ask's row stands for (`impliedStartRow`), undefined when there is
 * no such ask. From a row that cannot be read, a start without its data, which fails to read:
 * the history reports it (`historyEvent`) and goes on with the rest.
 */
function startOf(statements: Statements, askId: string): Record<string, unknown> | undefined {
  const row = statements.byId.get(askId) as AskRow | undefined;
  if (row === undefined) return undefined;
  const ask = readableAsk(row);
  return impliedStartRow(row.created_at, ask && startDataOf(ask));
}

/**
 * One event of a history, or undefined for one that does not parse: it is reported to
 * `onError` and left out, so one bad row never hides the rest of the history.
 */
function historyEvent(
  onError: (error: unknown) => void,
  row: Record<string, unknown>,
  askId: string,
): AskAuditEvent | undefined {
  try {
    return readEvent(row, askId);
  } catch (error) {
    if (!(error instanceof CorruptAskRowError)) throw error;
    onError(error);
    return undefined;
  }
}

/** The id of the open ask that holds `ask`'s interaction id. */
function holder(statements: Statements, ask: StoredAsk): string | undefined {
  const row = statements.openHolder.get(ask.interactionId ?? null, ask.askId) as
    | { id: string }
    | undefined;
  // The unique index said someone holds it; under the write lock it is still there.
  return row?.id;
}

/** The ask of `row`, or undefined when the row cannot be read (a corrupt row). */
function readableAsk(row: AskRow): StoredAsk | undefined {
  try {
    return readAsk(row);
  } catch (error) {
    if (!(error instanceof CorruptAskRowError)) throw error;
    return undefined;
  }
}

function readOptional(row: unknown): StoredAsk | undefined {
  return row === undefined ? undefined : readAsk(row as AskRow);
}

/** The unique index on open interaction ids refused the row (SQLite's own message). */
function isOpenInteractionConflict(error: unknown): boolean {
  return (
    error instanceof Error && /UNIQUE constraint failed: asks\.interaction_id/.test(error.message)
  );
}

function rowId(result: { lastInsertRowid?: number | bigint }): number | undefined {
  return result.lastInsertRowid === undefined ? undefined : Number(result.lastInsertRowid);
}
