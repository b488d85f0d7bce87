/**
 * Rows as the service writes them, for store tests: normalized questions, machine snapshots in
 * the persisted shape, outcomes and audit events of the real contracts. A store must keep them
 * exactly, so the builders fill every kind of field a row can carry.
 */
import type { AskAuditEvent, AskOutcome, AskState, AskStore, StoredAsk } from 'ask-engine';
import { startDataOf } from '../../src/engine/audit.js';

export type AskWrite = Parameters<AskStore['update']>[0];

export const shipQuestions: StoredAsk['questions'] = [
  {
    id: 'q1',
    question: 'Ship the release to production?',
    header: 'Release',
    context: 'Build 4127 passed **all** checks; the changelog lists 12 fixes.',
    options: [
      { title: 'Yes', description: 'Deploy now' },
      { title: 'No', description: 'Keep it on staging' },
    ],
    allowMultiple: false,
    allowFreeform: false,
    allowComment: true,
  },
  {
    id: 'q2',
    question: 'Which regions first? — «Ünïcode» stays 文字',
    header: 'Regions',
    options: [{ title: 'eu-west' }, { title: 'us-east' }, { title: 'ap-south' }],
    allowMultiple: true,
    allowFreeform: true,
    allowComment: false,
  },
];

const finalStates: readonly AskState[] = ['answered', 'cancelled', 'timedOut', 'aborted'];

export interface RowOptions {
  askId: string;
  state?: AskState;
  version?: number;
  outcome?: AskOutcome;
  interactionId?: string;
  key?: string;
  deadlineAt?: number;
  owner?: string;
  at?: number;
  /** Default 1_700_000_000_000. */
  createdAt?: number;
  sessionId?: string;
  agent?: string;
}

/** A complete row in `state`, with a persisted snapshot that says the same. */
export function askRow(options: RowOptions): StoredAsk {
  const state = options.state ?? 'pending';
  const createdAt = options.createdAt ?? 1_700_000_000_000;
  const at = options.at ?? createdAt;
  const final = finalStates.includes(state);
  const context = {
    askId: options.askId,
    questions: shipQuestions,
    createdAt,
    ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
    ...(options.agent === undefined ? {} : { agent: options.agent }),
    ...(options.deadlineAt === undefined ? {} : { deadlineAt: options.deadlineAt }),
    ...(options.outcome === undefined ? {} : { outcome: options.outcome }),
  };
  return {
    askId: options.askId,
    state,
    version: options.version ?? 1,
    snapshot: {
      status: final ? 'done' : 'active',
      value: state,
      context,
      children: {},
      historyValue: {},
      ...(final ? { output: options.outcome } : {}),
    },
    questions: shipQuestions,
    ...(options.outcome === undefined ? {} : { outcome: options.outcome }),
    ...(options.interactionId === undefined ? {} : { interactionId: options.interactionId }),
    ...(options.key === undefined ? {} : { key: options.key }),
    ...(options.deadlineAt === undefined ? {} : { deadlineAt: options.deadlineAt }),
    ...(options.owner === undefined ? {} : { owner: options.owner }),
    final,
    createdAt,
    updatedAt: at,
  };
}

export const answeredOutcome: AskOutcome = {
  status: 'answered',
  answers: [
    {
      questionId: 'q1',
      response: { kind: 'selection', selections: ['Yes'], comment: 'After the 5 pm freeze 🚀' },
    },
    { questionId: 'q2', response: null },
  ],
};

export const deferredOutcome = (interactionId: string): AskOutcome => ({
  status: 'deferred',
  interactionId,
  message: 'Asked in the #release thread',
});

/** The `start` write of a new ask. */
export function startWrite(options: RowOptions): AskWrite {
  const ask = askRow(options);
  return {
    ask,
    event: {
      askId: ask.askId,
      type: 'start',
      at: ask.createdAt,
      from: null,
      to: ask.state,
      data: {
        questions: ask.questions.length,
        ...(ask.deadlineAt === undefined ? {} : { deadlineAt: ask.deadlineAt }),
        toolCallId: `call-${ask.askId}`,
        ...(ask.key === undefined ? {} : { key: ask.key }),
      },
    },
  };
}

/**
 * The `start` write of a new ask as the service writes it: its event says nothing the row does
 * not (its data is `startDataOf` the row), so a SQLite file keeps no row for it (version 10).
 */
export function rowStartWrite(options: RowOptions): AskWrite {
  const { ask, event } = startWrite(options);
  return {
    ask,
    event: {
      askId: ask.askId,
      type: 'start',
      at: event.at,
      from: null,
      to: ask.state,
      data: startDataOf(ask),
    },
  };
}

/** The write that moves `current` to `deferred` under `interactionId`. */
export function deferWrite(current: StoredAsk, interactionId: string): AskWrite {
  const outcome = deferredOutcome(interactionId);
  return transition(current, 'deferred', outcome, {
    askId: current.askId,
    type: 'provider.deferred',
    at: current.updatedAt + 1,
    from: current.state,
    to: 'deferred',
    data: { interactionId, message: 'Asked in the #release thread' },
  });
}

/** The write that answers `current` (pending or deferred). */
export function answerWrite(current: StoredAsk): AskWrite {
  return transition(current, 'answered', answeredOutcome, {
    askId: current.askId,
    type: current.state === 'deferred' ? 'resume' : 'answer',
    at: current.updatedAt + 1,
    from: current.state,
    to: 'answered',
    data: { answers: answeredOutcome.status === 'answered' ? answeredOutcome.answers : [] },
  });
}

/**
 * The write that answers `current` on behalf of `answeredBy`. Unredacted, the event holds the
 * very answers and answerer of the outcome (as the service writes them); redacted, its answers
 * are `'[redacted]'` and only `answeredBy` is the outcome's.
 */
export function answeredByWrite(
  current: StoredAsk,
  answeredBy: { recipient: string; channel?: string },
  redacted = false,
): AskWrite {
  const answers = answeredOutcome.status === 'answered' ? answeredOutcome.answers : [];
  return transition(
    current,
    'answered',
    { status: 'answered', answers, answeredBy },
    {
      askId: current.askId,
      type: 'answer',
      at: current.updatedAt + 1,
      from: current.state,
      to: 'answered',
      data: { answers: redacted ? '[redacted]' : answers, answeredBy },
    },
  );
}

/** The write a sweeper makes for an ask whose deadline passed. */
export function timeoutWrite(current: StoredAsk, now: number): AskWrite {
  const deadlineAt = current.deadlineAt ?? now;
  return transition(
    current,
    'timedOut',
    { status: 'timedOut', deadlineAt },
    {
      askId: current.askId,
      type: 'deadline',
      at: now,
      from: current.state,
      to: 'timedOut',
      data: { at: now },
    },
  );
}

/** A progress write by `writer` (pending -> pending): its event names who won the version. */
export function progressWrite(current: StoredAsk, writer: string): AskWrite {
  const ask = {
    ...current,
    version: current.version + 1,
    owner: writer,
    updatedAt: current.updatedAt + 1,
  };
  return {
    ask,
    event: {
      askId: current.askId,
      type: 'provider.progress',
      at: ask.updatedAt,
      from: current.state,
      to: current.state,
      data: {
        answered: 1,
        total: 2,
        answers: [{ questionId: 'q2', response: { kind: 'freeform', text: `from ${writer}` } }],
      },
    },
  };
}

/** A state-less attempt, as the service appends after an ask settled. */
export function lateAnswerEvent(askId: string, at: number): AskAuditEvent {
  return {
    askId,
    type: 'late-answer',
    at,
    from: 'answered',
    to: 'answered',
    data: { source: 'resume', status: 'answered' },
  };
}

function transition(
  current: StoredAsk,
  state: AskState,
  outcome: AskOutcome,
  event: AskAuditEvent,
): AskWrite {
  const interactionId =
    outcome.status === 'deferred' ? outcome.interactionId : current.interactionId;
  const ask = askRow({
    askId: current.askId,
    state,
    version: current.version + 1,
    outcome,
    ...(interactionId === undefined ? {} : { interactionId }),
    ...(current.key === undefined ? {} : { key: current.key }),
    ...(current.deadlineAt === undefined ? {} : { deadlineAt: current.deadlineAt }),
    ...(current.owner === undefined ? {} : { owner: current.owner }),
    ...contextOf(current),
    createdAt: current.createdAt,
    at: event.at,
  });
  return { ask, event };
}

/** The session and agent a row's snapshot carries, to keep them in its next row. */
function contextOf(current: StoredAsk): { sessionId?: string; agent?: string } {
  const { sessionId, agent } = current.snapshot.context as { sessionId?: string; agent?: string };
  return {
    ...(sessionId === undefined ? {} : { sessionId }),
    ...(agent === undefined ? {} : { agent }),
  };
}

/** Collects an async iterable (a store's history). */
export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

/** Resolves once `condition()` holds, polling every 5 ms; rejects after `timeoutMs`. */
export async function waitUntil(
  condition: () => boolean,
  what: string,
  timeoutMs = 3_000,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

type EventOfType<T extends AskAuditEvent['type']> = AskAuditEvent & { type: T };

/**
 * One audit event of every type, with the data the service gives it. The mapped type makes
 * this exhaustive: a type added to `AskAuditEvent` fails to compile here until it has a sample.
 */
export function sampleEvents(
  askId: string,
  at: number,
): {
  [T in AskAuditEvent['type']]: EventOfType<T>;
} {
  const answers = answeredOutcome.status === 'answered' ? answeredOutcome.answers : [];
  const base = { askId, at };
  const move = (from: AskState, to: AskState) => ({ ...base, from, to });
  return {
    start: {
      ...base,
      type: 'start',
      from: null,
      to: 'pending',
      data: { questions: 2, deadlineAt: at + 60_000, toolCallId: 'call-1', key: 'k-1' },
    },
    'provider.answered': {
      ...move('pending', 'answered'),
      type: 'provider.answered',
      data: { answers },
    },
    answer: { ...move('pending', 'answered'), type: 'answer', data: { answers: '[redacted]' } },
    resume: { ...move('deferred', 'answered'), type: 'resume', data: { answers } },
    'response.recorded': {
      ...move('pending', 'answered'),
      type: 'response.recorded',
      data: { by: 'ana', answers, decided: 'quorum' },
    },
    'response.refused': {
      ...move('deferred', 'deferred'),
      type: 'response.refused',
      data: { by: 'ben', reason: 'duplicate' },
    },
    'provider.progress': {
      ...move('pending', 'pending'),
      type: 'provider.progress',
      data: { answered: 1, total: 2, answers },
    },
    'provider.cancelled': {
      ...move('pending', 'cancelled'),
      type: 'provider.cancelled',
      data: { reason: 'user', message: 'Not now' },
    },
    cancel: { ...move('deferred', 'cancelled'), type: 'cancel', data: { reason: 'unavailable' } },
    'provider.failed': {
      ...move('pending', 'cancelled'),
      type: 'provider.failed',
      data: { reason: 'provider-error', message: 'Chat API returned 503' },
    },
    'provider.deferred': {
      ...move('pending', 'deferred'),
      type: 'provider.deferred',
      data: { interactionId: 'thread-1', message: 'Asked in #release' },
    },
    abort: { ...move('pending', 'aborted'), type: 'abort', data: { message: 'The run stopped' } },
    deadline: { ...move('deferred', 'timedOut'), type: 'deadline', data: { at } },
    'late-answer': {
      ...move('timedOut', 'timedOut'),
      type: 'late-answer',
      data: { source: 'resume', status: 'timedOut' },
    },
    'answer.refused': {
      ...move('pending', 'pending'),
      type: 'answer.refused',
      data: { source: 'answer', message: 'Option "Maybe" is not offered' },
    },
    'callback.failed': {
      ...move('pending', 'pending'),
      type: 'callback.failed',
      data: { callback: 'onUpdate', message: 'host callback threw' },
    },
    restore: { ...move('pending', 'pending'), type: 'restore', data: { version: 3 } },
    notified: {
      ...move('deferred', 'deferred'),
      type: 'notified',
      data: { recipient: 'alice', channel: 'email', deliveryId: 'msg_1', kind: 'created' },
    },
    reminded: {
      ...move('deferred', 'deferred'),
      type: 'reminded',
      data: { recipient: 'alice', channel: 'email', deliveryId: 'msg_2', seq: 1 },
    },
    escalated: {
      ...move('deferred', 'deferred'),
      type: 'escalated',
      data: { recipient: 'bob', channel: 'webhook', deliveryId: 'msg_3', seq: 1 },
    },
  };
}
