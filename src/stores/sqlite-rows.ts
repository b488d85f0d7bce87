/**
 * Rows of the `asks` and `ask_events` tables to and from the store contract's types. JSON
 * columns are parsed on the way out; one that does not parse is an error naming the ask and the
 * column, never a row with a hole in it. (The service checks the parsed row's schema itself.)
 */
import type { AskAuditEvent, AskState } from '../engine/audit.js';
import type { StoredAsk } from './ask-store.js';
import { messageOf, type SqliteValue } from './sqlite-database.js';

/** The columns of `asks`, in the order `askParams` binds them. */
export const ASK_COLUMNS =
  'state, version, snapshot, questions, outcome, interaction_id, "key", deadline_at, owner, final, created_at, updated_at';

/** An `asks` row as SQLite returns it. */
export interface AskRow {
  id: string;
  state: string;
  version: number;
  snapshot: string;
  questions: string;
  outcome: string | null;
  interaction_id: string | null;
  key: string | null;
  deadline_at: number | null;
  owner: string | null;
  final: number;
  created_at: number;
  updated_at: number;
}

/**
 * The questions' JSON by array: every row of one ask carries the same questions array (rows are
 * not mutated once written), so each ask's questions are serialized once, not once per write.
 */
const questionsJson = new WeakMap<object, string>();

/** The values of `ASK_COLUMNS` for `ask`. */
export function askParams(ask: StoredAsk): SqliteValue[] {
  let questions = questionsJson.get(ask.questions);
  if (questions === undefined) {
    questions = JSON.stringify(ask.questions);
    questionsJson.set(ask.questions, questions);
  }
  return [
    ask.state,
    ask.version,
    JSON.stringify(ask.snapshot),
    questions,
    ask.outcome === undefined ? null : JSON.stringify(ask.outcome),
    ask.interactionId ?? null,
    ask.key ?? null,
    ask.deadlineAt ?? null,
    ask.owner ?? null,
    ask.final ? 1 : 0,
    ask.createdAt,
    ask.updatedAt,
  ];
}

/** The values of an `ask_events` insert: ask_id, at, type, json. */
export function eventParams(event: AskAuditEvent): SqliteValue[] {
  return [event.askId, event.at, event.type, JSON.stringify(event)];
}

export function readAsk(row: AskRow): StoredAsk {
  const ask: StoredAsk = {
    askId: row.id,
    state: row.state as AskState,
    version: Number(row.version),
    snapshot: parseColumn(row, 'snapshot', 'object'),
    questions: parseColumn(row, 'questions', 'array'),
    final: Number(row.final) !== 0,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
  if (row.outcome !== null) ask.outcome = parseColumn(row, 'outcome', 'object');
  if (row.interaction_id !== null) ask.interactionId = row.interaction_id;
  if (row.key !== null) ask.key = row.key;
  if (row.deadline_at !== null) ask.deadlineAt = Number(row.deadline_at);
  if (row.owner !== null) ask.owner = row.owner;
  return ask;
}

export function readEvent(row: { id: number; json: string }, askId: string): AskAuditEvent {
  const event = parseJson(row.json, () => `event ${row.id} of ask ${askId}`);
  if (!isObject(event)) {
    throw new Error(`Event ${row.id} of ask ${askId} in the SQLite store is not a JSON object.`);
  }
  return event as unknown as AskAuditEvent;
}

function parseColumn<T>(
  row: AskRow,
  column: 'snapshot' | 'questions' | 'outcome',
  shape: 'object' | 'array',
): T {
  const value = parseJson(row[column] as string, () => `the ${column} column of ask ${row.id}`);
  if (shape === 'array' ? !Array.isArray(value) : !isObject(value)) {
    throw new Error(
      `The ${column} column of ask ${row.id} in the SQLite store is corrupt: expected a JSON ${shape}.`,
    );
  }
  return value as T;
}

function parseJson(text: string, what: () => string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${capitalize(what())} in the SQLite store is corrupt: ${messageOf(error)}`, {
      cause: error,
    });
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
