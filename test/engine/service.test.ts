import { describe, expect, it, vi } from 'vitest';
import {
  type AskAuditEvent,
  createInteractionService,
  createMemoryAskStore,
  createScriptedProvider,
  type InspectionEvent,
  isUserInteractionError,
  REDACTED,
} from '../../src/index.js';
import { CountingClock, manualProvider, tick, yesNo } from './helpers.js';

const yes = [{ questionId: 'q1', response: { kind: 'selection' as const, selections: ['Yes'] } }];

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return isUserInteractionError(error) ? error.code : `not a UserInteractionError: ${error}`;
  }
  return undefined;
}

describe('providers', () => {
  it('refuses a second provider while the first is registered', () => {
    const service = createInteractionService();
    service.registerProvider(manualProvider());
    expect(codeOf(() => service.registerProvider(manualProvider()))).toBe('DUPLICATE_PROVIDER');
  });

  it('frees the slot on dispose, and a second dispose does not remove the next provider', async () => {
    const service = createInteractionService();
    const dispose = service.registerProvider(manualProvider());
    dispose();
    service.registerProvider(createScriptedProvider([{ answer: yes }]));
    dispose();
    expect(await service.ask(yesNo)).toEqual({ status: 'answered', answers: yes });
  });

  it('rejects an ask with NO_PROVIDER when nobody can be asked', async () => {
    const service = createInteractionService();
    await expect(service.ask(yesNo)).rejects.toMatchObject({ code: 'NO_PROVIDER' });
  });

  it('rejects requests that can never be delivered before any provider sees them', async () => {
    const provider = manualProvider();
    const service = createInteractionService();
    service.registerProvider(provider);
    await expect(service.ask({ questions: [] })).rejects.toMatchObject({ code: 'EMPTY_QUESTIONS' });
    const five = Array.from({ length: 5 }, (_, i) => ({ question: `Question ${i}?` }));
    await expect(service.ask({ questions: five })).rejects.toMatchObject({
      code: 'TOO_MANY_QUESTIONS',
    });
    await expect(service.ask({ question: 42 } as never)).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
    });
    await expect(
      service.ask({
        question: 'Approve?',
        options: ['Go', 'Stop'],
        intent: { kind: 'plan-review', approve: 'Go' },
      }),
    ).rejects.toMatchObject({ code: 'BAD_INTENT' });
    await expect(
      service.ask({
        question: 'Pick',
        allowMultiple: true,
        options: Array.from({ length: 65 }, (_, i) => `o${i}`),
      }),
    ).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED' });
    await expect(service.ask(yesNo, { timeoutMs: 0 })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
    });
    expect(provider.calls).toHaveLength(0);
  });
});

describe('answers from the provider', () => {
  const cases: [string, unknown, RegExp][] = [
    ['an unknown question id', [{ questionId: 'q9', response: null }], /unknown question "q9"/],
    ['a duplicate question id', [...yes, ...yes], /answered twice/],
    ['a missing answer', [], /"q1" has no answer/],
    [
      'a selection that is no option',
      [{ questionId: 'q1', response: { kind: 'selection', selections: ['Maybe'] } }],
      /"Maybe".*not one of its option titles/,
    ],
    [
      'two selections on a single-select',
      [{ questionId: 'q1', response: { kind: 'selection', selections: ['Yes', 'No'] } }],
      /allows one selection, got 2/,
    ],
    [
      'freeform where it is not allowed',
      [{ questionId: 'q1', response: { kind: 'freeform', text: 'ok' } }],
      /does not allow a typed answer/,
    ],
    [
      'a comment where comments are off',
      [{ questionId: 'q1', response: { kind: 'selection', selections: ['Yes'], comment: 'sure' } }],
      /does not allow a comment/,
    ],
    [
      'a skip on a single question',
      [{ questionId: 'q1', response: null }],
      /only a question of a wizard can be skipped/,
    ],
  ];
  for (const [what, answers, message] of cases) {
    it(`ends the ask cancelled / invalid-answer for ${what}`, async () => {
      const service = createInteractionService();
      service.registerProvider(
        createScriptedProvider([{ resolve: { status: 'answered', answers } }]),
      );
      const outcome = await service.ask(yesNo);
      expect(outcome).toMatchObject({ status: 'cancelled', reason: 'invalid-answer' });
      expect(outcome.status === 'cancelled' && outcome.message).toMatch(message);
    });
  }

  it('matches selections case-insensitively and returns the option’s own spelling', async () => {
    const service = createInteractionService();
    service.registerProvider(
      createScriptedProvider([
        { answer: [{ questionId: 'q1', response: { kind: 'selection', selections: ['yES'] } }] },
      ]),
    );
    expect(await service.ask(yesNo)).toEqual({ status: 'answered', answers: yes });
  });

  it('refuses empty typed text and a deferral without an interaction id', async () => {
    const service = createInteractionService();
    service.registerProvider(
      createScriptedProvider([
        { answer: [{ questionId: 'q1', response: { kind: 'freeform', text: '  ' } }] },
        { resolve: { status: 'deferred', interactionId: '' } },
      ]),
    );
    expect(await service.ask({ question: 'Name?' })).toMatchObject({
      reason: 'invalid-answer',
      message: expect.stringMatching(/empty typed answer/),
    });
    expect(await service.ask({ question: 'Name?' })).toMatchObject({
      reason: 'invalid-answer',
      message: expect.stringMatching(/without an interaction id/),
    });
  });

  it('ends the ask cancelled / provider-error when the provider throws, with its message', async () => {
    const service = createInteractionService();
    service.registerProvider(createScriptedProvider([{ throw: new Error('socket closed') }]));
    expect(await service.ask(yesNo)).toEqual({
      status: 'cancelled',
      reason: 'provider-error',
      message: 'The provider failed: socket closed',
    });
  });

  it('records an answer that arrives after the outcome and changes nothing', async () => {
    const clock = new CountingClock();
    const provider = manualProvider();
    const service = createInteractionService({ clock });
    const trail: AskAuditEvent[] = [];
    service.events$.subscribe((event) => trail.push(event));
    service.registerProvider(provider);
    const handle = service.start(yesNo, { timeoutMs: 1_000 });
    await tick();
    clock.increment(1_000);
    expect(await handle.outcome).toMatchObject({ status: 'timedOut' });
    provider.calls[0]!.resolve({ status: 'answered', answers: yes });
    await tick();
    expect(handle.getSnapshot().outcome?.status).toBe('timedOut');
    expect(trail.map((event) => event.type)).toEqual(['start', 'deadline', 'late-answer']);
    expect(trail[2]).toMatchObject({
      from: 'timedOut',
      to: 'timedOut',
      data: { source: 'provider', status: 'answered' },
    });
  });
});

describe('the provider signal', () => {
  it('is aborted with the cause whatever the exit, and no timer outlives the ask', async () => {
    const clock = new CountingClock();
    const provider = manualProvider();
    const service = createInteractionService({ clock });
    service.registerProvider(provider);
    const controller = new AbortController();
    const answered = service.start(yesNo, { timeoutMs: 2_000 });
    const timedOut = service.start(yesNo, { timeoutMs: 1_500 });
    const aborted = service.start(yesNo, { timeoutMs: 2_000, signal: controller.signal });
    const drained = service.start(yesNo, { timeoutMs: 2_000 });
    await tick();
    const [a, t, b, d] = provider.calls.map((call) => call.ctx.signal);
    // All deadlines share one timer.
    expect(clock.armed.size).toBe(1);

    provider.calls[0]!.resolve({ status: 'answered', answers: yes });
    await answered.outcome;
    expect(a?.aborted).toBe(true);
    expect(isUserInteractionError(a?.reason, 'ASK_SETTLED')).toBe(true);

    clock.increment(1_500);
    await timedOut.outcome;
    expect(t?.reason).toMatchObject({ name: 'TimeoutError' });

    const cause = new Error('user pressed ctrl+c');
    controller.abort(cause);
    expect(await aborted.outcome).toEqual({
      status: 'aborted',
      cause,
      message: 'user pressed ctrl+c',
    });
    expect(b?.reason).toBe(cause);

    await service.drain('host restarting');
    expect(await drained.outcome).toEqual({
      status: 'aborted',
      cause: 'host restarting',
      message: 'host restarting',
    });
    expect(d?.reason).toBe('host restarting');
    expect(clock.armed.size).toBe(0);
  });

  it('is already aborted for a signal read after the ask settled', async () => {
    const service = createInteractionService();
    let late: AbortSignal | undefined;
    service.registerProvider({
      async ask(_request, ctx) {
        setTimeout(() => {
          late = ctx.signal;
        }, 0);
        return { status: 'answered', answers: yes };
      },
    });
    await service.ask(yesNo);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(late?.aborted).toBe(true);
  });

  it('ends the ask aborted at once when the caller’s signal is already aborted', async () => {
    const provider = manualProvider();
    const service = createInteractionService();
    service.registerProvider(provider);
    const outcome = await service.ask(yesNo, { signal: AbortSignal.abort('too late') });
    expect(outcome).toEqual({ status: 'aborted', cause: 'too late', message: 'too late' });
    await tick();
    expect(provider.calls).toHaveLength(0);
  });
});

describe('deferred asks', () => {
  it('resume a deferred ask with validated answers; a second resume is told ASK_SETTLED', async () => {
    const service = createInteractionService();
    service.registerProvider(
      createScriptedProvider([{ defer: 'chat-7', message: 'asked in chat' }]),
    );
    const handle = service.start(yesNo);
    expect(await handle.outcome).toEqual({
      status: 'deferred',
      interactionId: 'chat-7',
      message: 'asked in chat',
    });
    expect(handle.getSnapshot().state).toBe('deferred');
    expect(
      await service.resume('chat-7', [
        { questionId: 'q1', response: { kind: 'selection', selections: ['no'] } },
      ]),
    ).toEqual({
      status: 'answered',
      answers: [{ questionId: 'q1', response: { kind: 'selection', selections: ['No'] } }],
    });
    await expect(service.resume('chat-7', yes)).rejects.toMatchObject({ code: 'ASK_SETTLED' });
    await expect(service.resume('chat-8', yes)).rejects.toMatchObject({
      code: 'UNKNOWN_INTERACTION',
    });
  });

  it('refuses an invalid resumed answer with INVALID_ANSWER and keeps the ask open for a corrected one', async () => {
    const service = createInteractionService();
    const trail: AskAuditEvent[] = [];
    service.events$.subscribe((event) => trail.push(event));
    service.registerProvider(createScriptedProvider([{ defer: 'chat-9' }]));
    const { id } = service.start(yesNo);
    await tick();
    await expect(
      service.resume('chat-9', [{ questionId: 'q1', response: { kind: 'freeform', text: 'meh' } }]),
    ).rejects.toMatchObject({ code: 'INVALID_ANSWER' });
    expect(await service.get(id)).toMatchObject({ state: 'deferred' });
    expect(trail.at(-1)).toMatchObject({
      type: 'answer.refused',
      from: 'deferred',
      to: 'deferred',
      data: { source: 'resume' },
    });
    expect(await service.resume('chat-9', yes)).toEqual({ status: 'answered', answers: yes });
  });

  it('keeps a deferred ask through drain, and the store’s sweep still ends it at its deadline', async () => {
    const clock = new CountingClock();
    const service = createInteractionService({ clock, sweepIntervalMs: 5 });
    service.registerProvider(createScriptedProvider([{ defer: 'chat-1' }]));
    const handle = service.start(yesNo, { timeoutMs: 1_000 });
    await handle.outcome;
    await service.drain(new Error('restart'));
    expect(await service.get(handle.id)).toMatchObject({ state: 'deferred' });
    clock.increment(999);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await service.get(handle.id)).toMatchObject({ state: 'deferred' });
    clock.increment(1);
    await vi.waitFor(async () =>
      expect((await service.get(handle.id))?.outcome).toEqual({
        status: 'timedOut',
        deadlineAt: 1_000,
      }),
    );
    await service.close();
  });

  it('resumes in another service that shares the store, after the first process is gone', async () => {
    const { createMemoryAskStore } = await import('../../src/index.js');
    const store = createMemoryAskStore();
    const first = createInteractionService({ store });
    first.registerProvider(createScriptedProvider([{ defer: 'mail-3' }]));
    await first.ask(yesNo);
    const second = createInteractionService({ store });
    expect(await second.resume('mail-3', yes)).toEqual({ status: 'answered', answers: yes });
    const third = createInteractionService({ store });
    await expect(third.resume('mail-3', yes)).rejects.toMatchObject({ code: 'ASK_SETTLED' });
  });
});

describe('persisted snapshots', () => {
  it('restore into a working ask whose deadline still fires (xstate#5331)', async () => {
    const clock = new CountingClock();
    const store = createMemoryAskStore();
    // Its clock stands still at 0: at the second service's 400 its 100 ms lease has run out.
    const first = createInteractionService({ clock, store, leaseMs: 100 });
    const firstProvider = manualProvider();
    first.registerProvider(firstProvider);
    const handle = first.start(yesNo, { timeoutMs: 1_000 });
    await tick();
    const persisted = JSON.parse(JSON.stringify(first.getPersistedSnapshot(handle.id)));

    const laterClock = new CountingClock();
    laterClock.set(400);
    const provider = manualProvider();
    const second = createInteractionService({ clock: laterClock, store });
    second.registerProvider(provider);
    const restored = await second.restore(persisted);
    // The first service no longer delivers it: its provider is told so.
    await tick();
    expect(firstProvider.calls[0]!.ctx.signal.aborted).toBe(true);
    expect(restored.id).toBe(handle.id);
    await tick();
    expect(provider.calls).toHaveLength(1);
    expect(provider.calls[0]!.ctx.deadlineAt).toBe(1_000);
    laterClock.increment(599);
    expect(restored.getSnapshot().state).toBe('pending');
    laterClock.increment(1);
    expect(await restored.outcome).toEqual({ status: 'timedOut', deadlineAt: 1_000 });
    expect(provider.calls[0]!.ctx.signal.aborted).toBe(true);
  });

  it('restore an ask whose deadline passed while it was stored as timed out at once', async () => {
    const store = createMemoryAskStore();
    const first = createInteractionService({ clock: new CountingClock(), store });
    first.registerProvider(manualProvider());
    const handle = first.start(yesNo, { timeoutMs: 1_000 });
    await tick();
    const persisted = first.getPersistedSnapshot(handle.id)!;
    await first.close();
    const clock = new CountingClock();
    clock.set(10_000);
    const second = createInteractionService({ clock, store, sweepIntervalMs: Infinity });
    const provider = manualProvider();
    second.registerProvider(provider);
    const restored = await second.restore(persisted);
    expect(await restored.outcome).toEqual({ status: 'timedOut', deadlineAt: 1_000 });
    await tick();
    expect(provider.calls).toHaveLength(0);
    expect(clock.armed.size).toBe(0);
  });
});

describe('audit and inspection', () => {
  it('emits every transition as an audit event, on the service and on the handle', async () => {
    const service = createInteractionService();
    const all: AskAuditEvent[] = [];
    service.events$.subscribe((event) => all.push(event));
    service.registerProvider(
      createScriptedProvider([
        {
          progress: [
            { questionId: 'q1', response: null },
            { questionId: 'q2', response: { kind: 'freeform', text: 'x' } },
          ],
          answer: [
            { questionId: 'q1', response: null },
            { questionId: 'q2', response: { kind: 'freeform', text: 'Ada' } },
          ],
        },
      ]),
    );
    const handle = service.start(
      { questions: [{ question: 'Team?' }, { question: 'Name?' }] },
      { toolCallId: 'call-1' },
    );
    const own: AskAuditEvent[] = [];
    handle.events$.subscribe((event) => own.push(event));
    await handle.outcome;
    expect(all.map(({ type, from, to }) => [type, from, to])).toEqual([
      ['start', null, 'pending'],
      ['provider.progress', 'pending', 'pending'],
      ['provider.answered', 'pending', 'answered'],
    ]);
    expect(all[0]).toMatchObject({
      askId: handle.id,
      data: { toolCallId: 'call-1', questions: 2 },
    });
    expect(all[1]!.data).toMatchObject({ answered: 1, total: 2 });
    expect(own).toEqual(all);
  });

  it('keeps typed answers out of audit and inspection events when redact is on', async () => {
    const secret = 'hunter2-the-password';
    const inspected: InspectionEvent[] = [];
    const service = createInteractionService({
      redact: true,
      inspect: (event) => inspected.push(event),
    });
    const audit: AskAuditEvent[] = [];
    service.events$.subscribe((event) => audit.push(event));
    service.registerProvider(
      createScriptedProvider([
        {
          progress: [{ questionId: 'q1', response: { kind: 'freeform', text: secret } }],
          answer: [{ questionId: 'q1', response: { kind: 'freeform', text: secret } }],
        },
      ]),
    );
    const outcome = await service.ask({ question: 'Password?' });
    expect(outcome).toMatchObject({ status: 'answered' });
    expect(JSON.stringify(outcome)).toContain(secret);
    expect(inspected.length).toBeGreaterThan(3);
    const seen = JSON.stringify(
      [
        audit,
        inspected.map((event) => ({
          ...event,
          actorRef: undefined,
          sourceRef: undefined,
          rootId: undefined,
        })),
      ],
      (key, value) => (key === 'machine' || key === 'children' ? undefined : value),
    );
    expect(seen).not.toContain(secret);
    expect(seen).toContain(REDACTED);
  });

  it('passes inspection through unredacted when the host allows it', async () => {
    const inspected: InspectionEvent[] = [];
    const service = createInteractionService({
      inspect: { next: (event) => inspected.push(event) },
    });
    service.registerProvider(createScriptedProvider([{ answer: yes }]));
    await service.ask(yesNo);
    expect(
      inspected.some(
        (event) =>
          event.type === '@xstate.snapshot' &&
          'context' in event.snapshot &&
          JSON.stringify(event.snapshot.context).includes('"Yes"'),
      ),
    ).toBe(true);
  });

  it('keeps working when an audit subscriber throws', async () => {
    const service = createInteractionService();
    service.events$.subscribe(() => {
      throw new Error('bad subscriber');
    });
    service.registerProvider(createScriptedProvider([{ answer: yes }]));
    const errors: unknown[] = [];
    const { config } = await import('rxjs');
    const previous = config.onUnhandledError;
    config.onUnhandledError = (error) => errors.push(error);
    try {
      expect(await service.ask(yesNo)).toEqual({ status: 'answered', answers: yes });
      await new Promise((resolve) => setTimeout(resolve, 5));
    } finally {
      config.onUnhandledError = previous;
    }
    expect(errors).toHaveLength(2);
  });
});

describe('a provider whose host went away', () => {
  it('ends the ask aborted with the host’s original cause when the provider rejects with an AbortError', async () => {
    const service = createInteractionService();
    const cause = new Error('host restarting for an upgrade');
    service.registerProvider({
      ask: async () => {
        throw Object.assign(new Error('drained'), { name: 'AbortError', cause });
      },
    });
    expect(await service.ask(yesNo)).toEqual({
      status: 'aborted',
      cause,
      message: 'host restarting for an upgrade',
    });
  });
});

describe('a provider that refuses the person’s answer itself', () => {
  it('ends the ask cancelled / invalid-answer with the provider’s message', async () => {
    const { UserInteractionError } = await import('../../src/index.js');
    const service = createInteractionService();
    service.registerProvider({
      ask: async () => {
        throw new UserInteractionError(
          'INVALID_ANSWER',
          'Question "q1" field q1.selection: unknown option "option9".',
        );
      },
    });
    expect(await service.ask(yesNo)).toEqual({
      status: 'cancelled',
      reason: 'invalid-answer',
      message: 'Question "q1" field q1.selection: unknown option "option9".',
    });
  });
});

describe('progress reports', () => {
  it('are checked like answers, partially, and refused at the provider that sent them', async () => {
    const provider = manualProvider();
    const service = createInteractionService();
    const trail: AskAuditEvent[] = [];
    service.events$.subscribe((event) => trail.push(event));
    service.registerProvider(provider);
    const handle = service.start({
      questions: [{ question: 'Team?', options: ['Red', 'Blue'] }, { question: 'Name?' }],
    });
    await tick();
    const { ctx } = provider.calls[0]!;
    ctx.reportProgress([
      { questionId: 'q1', response: { kind: 'selection', selections: ['red'] } },
    ]);
    expect(() => ctx.reportProgress([null] as never)).toThrow(/Answer 1 must be an object/);
    expect(() =>
      ctx.reportProgress([
        { questionId: 'q1', response: { kind: 'selection', selections: ['Green'] } },
      ]),
    ).toThrow(/"Green"/);
    expect(() =>
      ctx.reportProgress([{ questionId: 'q2', response: null, extra: 1 }] as never),
    ).toThrow(/unknown field "extra"/);
    await tick();
    expect(handle.getSnapshot().progress).toEqual([
      { questionId: 'q1', response: { kind: 'selection', selections: ['Red'] } },
    ]);
    expect(trail.filter((event) => event.type === 'provider.progress')).toHaveLength(1);
    handle.cancel();
  });

  it('work when the provider destructures its context, as the README shows', async () => {
    const service = createInteractionService();
    service.registerProvider({
      async ask(_request, { signal, reportProgress }) {
        const answers = [
          { questionId: 'q1', response: { kind: 'selection' as const, selections: ['Blue'] } },
        ];
        reportProgress(answers); // the person is still on the page
        await tick();
        signal.throwIfAborted();
        return { status: 'answered', answers };
      },
    });
    const handle = service.start({ question: 'Team?', options: ['Red', 'Blue'] });
    const trail: string[] = [];
    handle.events$.subscribe((event) => trail.push(event.type));
    expect(await handle.outcome).toMatchObject({ status: 'answered' });
    expect(trail).toContain('provider.progress');
  });
});

describe('ask options', () => {
  it('are checked before anything starts', async () => {
    const provider = manualProvider();
    const service = createInteractionService();
    service.registerProvider(provider);
    await expect(service.ask(yesNo, { signal: {} as AbortSignal })).rejects.toThrow(
      /ask option `signal` to be an AbortSignal, got an object/,
    );
    await expect(service.ask(yesNo, { toolCallId: 7 as never })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
    });
    await tick();
    expect(provider.calls).toHaveLength(0);
  });
});

describe('service options', () => {
  const cases: [string, object, RegExp][] = [
    [
      'a clock without setTimeout',
      { clock: { now: () => 0 } },
      /`clock` to have now\(\), setTimeout\(\) and clearTimeout\(\), got an object/,
    ],
    [
      'an inspect that is a string',
      { inspect: 'yes' },
      /`inspect` to be a function or an observer/,
    ],
    [
      'a store of the old contract',
      { store: { save() {}, get() {}, findByInteractionId() {}, delete() {}, list() {} } },
      /`store` to implement the ask log \(create, update, .*\); it lacks create, update, append, findByKey/,
    ],
    ['redact as a string', { redact: 'true' }, /`redact` to be a boolean, got "true"/],
    ['ids as a string', { ids: 'uuid' }, /`ids` to be a function/],
    ['a sweep interval of 0', { sweepIntervalMs: 0 }, /`sweepIntervalMs`.*got 0/],
  ];
  for (const [what, options, message] of cases) {
    it(`refuses ${what}, naming it and the value`, () => {
      expect(() => createInteractionService(options as never)).toThrow(message);
    });
  }
});

describe('a redacting service’s store', () => {
  it('keeps answers only in the outcome, never in the history, and tells a second resume ASK_SETTLED', async () => {
    const store = createMemoryAskStore();
    const service = createInteractionService({ store, redact: true });
    service.registerProvider(createScriptedProvider([{ defer: 'chat-r' }]));
    const { id } = service.start(yesNo);
    await tick();
    await service.resume('chat-r', yes);
    const stored = await store.findByInteractionId('chat-r');
    expect(stored).toMatchObject({
      state: 'answered',
      outcome: { status: 'answered', answers: yes },
    });
    const history = [];
    for await (const event of service.history(id)) history.push(event);
    expect(history.map((event) => event.type)).toEqual(['start', 'provider.deferred', 'resume']);
    expect(JSON.stringify(history)).not.toContain('"Yes"');
    const other = createInteractionService({ store });
    await expect(other.resume('chat-r', yes)).rejects.toMatchObject({ code: 'ASK_SETTLED' });
  });
});
