/** Rows for store tests: complete asks and their events, as a service would write them. */
import type { AskAuditEvent, AskWrite, StoredAsk } from 'ask-engine';

export type { AskWrite } from 'ask-engine';

const QUESTIONS: StoredAsk['questions'] = [
  {
    id: 'q1',
    question: 'Deploy now?',
    header: 'Deploy',
    options: [{ title: 'Yes' }, { title: 'No' }],
    allowMultiple: false,
    allowFreeform: false,
    allowComment: false,
  },
];

export function pendingAsk(askId: string, extra: Partial<StoredAsk> = {}): AskWrite {
  const ask: StoredAsk = {
    askId,
    state: 'pending',
    version: 1,
    snapshot: { status: 'active', value: 'pending', context: { askId } },
    questions: QUESTIONS,
    final: false,
    createdAt: 1_000,
    updatedAt: 1_000,
    ...extra,
  };
  const event: AskAuditEvent = {
    askId,
    type: 'start',
    at: ask.createdAt,
    from: null,
    to: 'pending',
    data: { questions: 1 },
  };
  return { ask, event };
}

export function deferred(ask: StoredAsk, interactionId: string, at = ask.updatedAt + 1): AskWrite {
  return {
    ask: {
      ...ask,
      state: 'deferred',
      version: ask.version + 1,
      snapshot: { ...ask.snapshot, value: 'deferred' },
      interactionId,
      outcome: { status: 'deferred', interactionId },
      updatedAt: at,
    },
    event: {
      askId: ask.askId,
      type: 'provider.deferred',
      at,
      from: ask.state,
      to: 'deferred',
      data: { interactionId },
    },
  };
}

export function answered(ask: StoredAsk, at = ask.updatedAt + 1): AskWrite {
  const answers = [
    { questionId: 'q1', response: { kind: 'selection' as const, selections: ['Yes'] } },
  ];
  return {
    ask: {
      ...ask,
      state: 'answered',
      version: ask.version + 1,
      snapshot: { ...ask.snapshot, status: 'done', value: 'answered' },
      outcome: { status: 'answered', answers },
      final: true,
      updatedAt: at,
    },
    event: {
      askId: ask.askId,
      type: 'answer',
      at,
      from: ask.state,
      to: 'answered',
      data: { answers },
    },
  };
}

export function timedOut(ask: StoredAsk, at: number): AskWrite {
  return {
    ask: {
      ...ask,
      state: 'timedOut',
      version: ask.version + 1,
      snapshot: { ...ask.snapshot, status: 'done', value: 'timedOut' },
      outcome: { status: 'timedOut', deadlineAt: ask.deadlineAt as number },
      final: true,
      updatedAt: at,
    },
    event: {
      askId: ask.askId,
      type: 'deadline',
      at,
      from: ask.state,
      to: 'timedOut',
      data: { at },
    },
  };
}
