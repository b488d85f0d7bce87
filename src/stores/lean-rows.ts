/**
 * What a stored row can leave out because it holds it elsewhere, and how to put it back: a lean
 * snapshot leaves out what the row holds in columns of its own (the ask id, times, outcome,
 * questions) and XState's empty bookkeeping, with flags saying what was left out, so the row
 * reads back exactly as written; an event's data is left out where the row it is written with
 * stands for it. Dialect-neutral: the SQLite store uses it (schema versions 7 and 10), and any
 * store may.
 */
import { type AskAuditEvent, INITIAL_ASK_STATE, startDataOf } from '../engine/audit.js';
import { notifiedRecipientOf } from './ask-query.js';
import type { StoredAsk } from './ask-store.js';
import { ColumnFault, CorruptAskRowError } from './row-columns.js';

// What the snapshot column leaves out, one bit each (never renumber: rows on disk carry them).
const CONTEXT_ASK_ID = 1;
const CONTEXT_CREATED_AT = 2;
const CONTEXT_DEADLINE_AT = 4;
const CONTEXT_OUTCOME = 8;
const OUTPUT = 16;
const EMPTY_HISTORY_VALUE = 32;
const EMPTY_CHILDREN = 64;
const CONTEXT_QUESTIONS = 128;
// Schema version 7: the machine's status (`done` exactly when the row is final), its state
// value (the row's state) and an empty `progress` list.
const STATUS = 256;
const VALUE = 512;
const EMPTY_PROGRESS = 1024;
const KNOWN_BITS = 2047;

export interface Packed {
  ask: StoredAsk;
  json: string;
  bits: number;
}

/** The last ask packed: its snapshot and `packed` columns are written one after the other. */
let lastPacked: Packed | undefined;

export function packed(ask: StoredAsk): Packed {
  if (lastPacked?.ask === ask) return lastPacked;
  lastPacked = pack(ask);
  return lastPacked;
}

/**
 * The snapshot without what the row carries elsewhere. Only values that are the very same
 * (`===`) as the row's are left out, as the service's rows have them, so reading puts back
 * exactly what was there; anything else is kept as it is.
 */
function pack(ask: StoredAsk): Packed {
  const { snapshot } = ask;
  const context = snapshot.context;
  if (typeof context !== 'object' || context === null || Array.isArray(context)) {
    return { ask, json: JSON.stringify(snapshot), bits: 0 };
  }
  let bits = 0;
  const leanContext: Record<string, unknown> = {};
  for (const key in context) {
    const value = (context as Record<string, unknown>)[key];
    const bit =
      key === 'askId' && value === ask.askId
        ? CONTEXT_ASK_ID
        : key === 'createdAt' && value === ask.createdAt
          ? CONTEXT_CREATED_AT
          : key === 'deadlineAt' && value !== undefined && value === ask.deadlineAt
            ? CONTEXT_DEADLINE_AT
            : key === 'outcome' && value !== undefined && value === ask.outcome
              ? CONTEXT_OUTCOME
              : key === 'questions' && value === ask.questions
                ? CONTEXT_QUESTIONS
                : key === 'progress' && Array.isArray(value) && value.length === 0
                  ? EMPTY_PROGRESS
                  : 0;
    if (bit === 0) leanContext[key] = value;
    else bits |= bit;
  }
  const lean: Record<string, unknown> = {};
  for (const key in snapshot) {
    const value = snapshot[key];
    const bit =
      key === 'context'
        ? -1
        : key === 'status' && value === (ask.final ? 'done' : 'active')
          ? STATUS
          : key === 'value' && value === ask.state
            ? VALUE
            : key === 'output' && value !== undefined && value === ask.outcome
              ? OUTPUT
              : key === 'historyValue' && isEmptyObject(value)
                ? EMPTY_HISTORY_VALUE
                : key === 'children' && isEmptyObject(value)
                  ? EMPTY_CHILDREN
                  : 0;
    if (bit === -1) lean[key] = leanContext;
    else if (bit === 0) lean[key] = value;
    else bits |= bit;
  }
  return { ask, json: JSON.stringify(lean), bits };
}

/** Puts back into a lean snapshot what `pack` left out (`store` names the store in errors). */
export function unpack(ask: StoredAsk, bits: number, store: string): void {
  if (bits === 0) return;
  const lean = ask.snapshot;
  const stored = lean.context;
  if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) {
    throw new CorruptAskRowError(ask.askId, 'snapshot', 'its context is not a JSON object', store);
  }
  const context: Record<string, unknown> = {};
  if (bits & CONTEXT_ASK_ID) context.askId = ask.askId;
  if (bits & CONTEXT_CREATED_AT) context.createdAt = ask.createdAt;
  if (bits & EMPTY_PROGRESS) context.progress = [];
  Object.assign(context, stored);
  if (bits & CONTEXT_DEADLINE_AT) context.deadlineAt = ask.deadlineAt;
  if (bits & CONTEXT_QUESTIONS) context.questions = ask.questions;
  if (bits & CONTEXT_OUTCOME) context.outcome = ask.outcome;
  const snapshot: Record<string, unknown> = {};
  if (bits & STATUS) snapshot.status = ask.final ? 'done' : 'active';
  if (bits & VALUE) snapshot.value = ask.state;
  for (const key in lean) {
    if (key === 'context') {
      if (bits & EMPTY_HISTORY_VALUE) snapshot.historyValue = {};
      snapshot.context = context;
      if (bits & EMPTY_CHILDREN) snapshot.children = {};
    } else {
      snapshot[key] = lean[key];
    }
  }
  if (bits & OUTPUT) snapshot.output = ask.outcome;
  ask.snapshot = snapshot;
}

/**
 * True when `ask`'s first row stands for all of its start `event`, so the event needs no row
 * of its own (schema version 10): its time is the row's creation time, it comes from no state
 * into 'pending', and its data is what the row gives (`startDataOf`). `impliedStartRow` reads
 * it back from the row.
 */
export function startStandsFor(event: AskAuditEvent, ask: StoredAsk): boolean {
  return (
    event.type === 'start' &&
    event.at === ask.createdAt &&
    event.from === null &&
    event.to === INITIAL_ASK_STATE &&
    ask.state === INITIAL_ASK_STATE &&
    notifiedRecipientOf(event) === undefined &&
    dataStandsFor(event, ask)
  );
}

export function dataStandsFor(event: AskAuditEvent, ask: StoredAsk | undefined): boolean {
  const data = event.data as Record<string, unknown>;
  if (event.type === 'deadline') return sameData(data, { at: event.at });
  if (ask === undefined) return false;
  if (event.type === 'start') return ask.version === 1 && sameData(data, startDataOf(ask));
  if (ask.final && ask.outcome?.status === 'answered') {
    const { answers, answeredBy } = ask.outcome;
    return sameData(data, answeredBy === undefined ? { answers } : { answers, answeredBy });
  }
  return false;
}

/** The same keys with the very same (`===`) values. */
function sameData(data: Record<string, unknown>, expected: Record<string, unknown>): boolean {
  if (typeof data !== 'object' || data === null) return false;
  let keys = 0;
  for (const key in data) {
    if (data[key] !== expected[key]) return false;
    keys++;
  }
  for (const _ in expected) keys--;
  return keys === 0;
}

export function readBits(value: unknown): number {
  const bits = typeof value === 'bigint' ? Number(value) : value;
  if (typeof bits !== 'number' || !Number.isInteger(bits) || (bits & ~KNOWN_BITS) !== 0) {
    throw new ColumnFault('not a set of packing flags this build knows', value);
  }
  return bits;
}

function isEmptyObject(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  for (const _ in value) return false;
  return true;
}
