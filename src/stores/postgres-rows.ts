/**
 * Rows of the PostgreSQL store, checked as they are read back: a row someone edited by hand or
 * a column that does not parse is refused with an error naming the ask and the column, never
 * handed to a service.
 */
import { Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { AskOutcomeSchema } from '../contracts/outcome.js';
import { AskUserQuestionSchema } from '../contracts/question.js';
import {
  type AskAuditEvent,
  type AskState,
  isAskState,
  isAuditEventType,
} from '../engine/audit.js';
import type { StoredAsk } from './ask-store.js';

/** The `asks` columns in the order `parseAskRow` reads them (rows are read as value arrays). */
export const ASK_COLUMNS = [
  'id',
  'state',
  'version',
  'snapshot',
  'questions',
  'outcome',
  'interaction_id',
  'key',
  'deadline_at',
  'owner',
  'final',
  'created_at',
  'updated_at',
] as const;

/** The `ask_events` columns in the order `parseEventRow` reads them. */
export const EVENT_COLUMNS = ['ask_id', 'at', 'type', 'from_state', 'to_state', 'data'] as const;

const questionsCheck = TypeCompiler.Compile(Type.Array(AskUserQuestionSchema, { minItems: 1 }));
const outcomeCheck = TypeCompiler.Compile(AskOutcomeSchema);

/** A column of an ask that fails its check. */
export class CorruptAskRowError extends Error {
  override name = 'CorruptAskRowError';
  constructor(
    readonly askId: string,
    readonly column: string,
    detail: string,
  ) {
    super(
      `Ask ${askId} in the PostgreSQL store has a corrupt "${column}" column (${detail}); it was not used. Repair or delete the row.`,
    );
  }
}

export function parseAskRow(row: readonly unknown[]): StoredAsk {
  const [id, state, version, snapshot, questions, outcome, interactionId, key, deadlineAt] = row;
  const [owner, final, createdAt, updatedAt] = row.slice(9);
  if (typeof id !== 'string' || id === '') throw new CorruptAskRowError(String(id), 'id', 'empty');
  const fail = (column: string, detail: string, value: unknown): never => {
    throw new CorruptAskRowError(id, column, `${detail}, got ${describe(value)}`);
  };
  if (!isAskState(state)) fail('state', 'not an ask state', state);
  if (!Number.isInteger(version) || (version as number) < 1) {
    fail('version', 'not a positive integer', version);
  }
  if (!isPlainObject(snapshot)) fail('snapshot', 'not a JSON object', snapshot);
  if (!questionsCheck.Check(questions)) {
    fail('questions', firstError(questionsCheck.Errors(questions)), questions);
  }
  if (outcome !== null && !outcomeCheck.Check(outcome)) {
    fail('outcome', firstError(outcomeCheck.Errors(outcome)), outcome);
  }
  for (const [column, value] of [
    ['interaction_id', interactionId],
    ['key', key],
    ['owner', owner],
  ] as const) {
    if (value !== null && (typeof value !== 'string' || value === '')) {
      fail(column, 'not a non-empty text', value);
    }
  }
  if (deadlineAt !== null && !Number.isFinite(deadlineAt))
    fail('deadline_at', 'not a time', deadlineAt);
  if (typeof final !== 'boolean') fail('final', 'not a boolean', final);
  if (!Number.isFinite(createdAt)) fail('created_at', 'not a time', createdAt);
  if (!Number.isFinite(updatedAt)) fail('updated_at', 'not a time', updatedAt);

  const ask: StoredAsk = {
    askId: id,
    state: state as AskState,
    version: version as number,
    snapshot: snapshot as StoredAsk['snapshot'],
    questions: questions as StoredAsk['questions'],
    final: final as boolean,
    createdAt: createdAt as number,
    updatedAt: updatedAt as number,
  };
  if (outcome !== null) ask.outcome = outcome as NonNullable<StoredAsk['outcome']>;
  if (interactionId !== null) ask.interactionId = interactionId as string;
  if (key !== null) ask.key = key as string;
  if (deadlineAt !== null) ask.deadlineAt = deadlineAt as number;
  if (owner !== null) ask.owner = owner as string;
  return ask;
}

export function parseEventRow(row: readonly unknown[]): AskAuditEvent {
  const [askId, at, type, from, to, data] = row;
  const id = String(askId);
  const fail = (column: string, detail: string, value: unknown): never => {
    throw new CorruptAskRowError(id, `ask_events.${column}`, `${detail}, got ${describe(value)}`);
  };
  if (!Number.isFinite(at)) fail('at', 'not a time', at);
  if (!isAuditEventType(type)) fail('type', 'not an audit event type', type);
  if (type === 'start' ? from !== null : !isAskState(from)) {
    fail(
      'from_state',
      type === 'start' ? 'a start event has no previous state' : 'not an ask state',
      from,
    );
  }
  if (!isAskState(to)) fail('to_state', 'not an ask state', to);
  if (!isPlainObject(data)) fail('data', 'not a JSON object', data);
  return { askId: id, at, type, from, to, data } as AskAuditEvent;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function firstError(errors: Iterable<{ path: string; message: string }>): string {
  for (const error of errors) return `${error.path || '/'}: ${error.message}`;
  return 'does not match its schema';
}

function describe(value: unknown): string {
  const text =
    typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
