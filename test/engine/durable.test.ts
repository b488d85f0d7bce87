/**
 * Asks live in the store: several services sharing one store (a restart, a second worker, a
 * retried webhook) never give an ask two outcomes. Each case here failed before the store
 * became the ask's source of truth.
 */
import { describe, expect, it, vi } from 'vitest';
import {
  type AskAuditEvent,
  type AskStore,
  createInteractionService,
  createMemoryAskStore,
  createScriptedProvider,
} from '../../src/index.js';
import { ASK_STORE_METHODS } from '../../src/stores/store-ports.js';
import { CountingClock, manualProvider, tick, yesNo } from './helpers.js';

const answer = (title: string) => [
  { questionId: 'q1', response: { kind: 'selection' as const, selections: [title] } },
];

async function historyOf(
  service: { history(id: string): AsyncIterable<AskAuditEvent> },
  id: string,
) {
  const events: AskAuditEvent[] = [];
  for await (const event of service.history(id)) events.push(event);
  return events;
}

function deferredPair(store: AskStore, interactionId = 'chat-1') {
  const first = createInteractionService({ store });
  first.registerProvider(createScriptedProvider([{ defer: interactionId }], { loop: true }));
  const second = createInteractionService({ store });
  return { first, second };
}

describe('two services, one store', () => {
  it('lets exactly one of two simultaneous resumes win; the other is told ASK_SETTLED', async () => {
    const store = createMemoryAskStore();
    const { first, second } = deferredPair(store);
    const { id } = first.start(yesNo);
    await tick();
    const results = await Promise.allSettled([
      first.resume('chat-1', answer('Yes')),
      second.resume('chat-1', answer('No')),
    ]);
    const won = results.filter((result) => result.status === 'fulfilled');
    const lost = results.filter((result) => result.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect((lost[0] as PromiseRejectedResult).reason).toMatchObject({ code: 'ASK_SETTLED' });
    const stored = await first.get(id);
    expect(stored?.outcome).toEqual((won[0] as PromiseFulfilledResult<unknown>).value);
    const history = await historyOf(first, id);
    expect(
      history.filter((event) => event.to === 'answered' && event.from !== 'answered'),
    ).toHaveLength(1);
    expect(history.at(-1)).toMatchObject({ type: 'late-answer', data: { source: 'resume' } });
  });

  it('hands an answer given on another service to the ask() waiting here, and stops this provider', async () => {
    const store = createMemoryAskStore();
    const provider = manualProvider();
    const worker = createInteractionService({ store });
    worker.registerProvider(provider);
    const webPage = createInteractionService({ store });
    const handle = worker.start(yesNo, { timeoutMs: 60_000 });
    await tick();
    const { signal } = provider.calls[0]!.ctx;
    expect(await webPage.answer(handle.id, answer('yes'))).toEqual({
      status: 'answered',
      answers: answer('Yes'),
    });
    expect(await handle.outcome).toEqual({ status: 'answered', answers: answer('Yes') });
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toMatchObject({ code: 'ASK_SETTLED' });
  });

  it('records a provider answer that arrives after another service answered, and changes nothing', async () => {
    const store = createMemoryAskStore();
    const clock = new CountingClock();
    const provider = manualProvider();
    const worker = createInteractionService({ store, clock });
    worker.registerProvider(provider);
    const other = createInteractionService({ store, clock });
    const handle = worker.start(yesNo, { timeoutMs: 1_000 });
    await tick();
    await other.answer(handle.id, answer('No'));
    await handle.outcome;
    provider.calls[0]!.resolve({ status: 'answered', answers: answer('Yes') });
    await tick();
    // The old deadline timer of the worker never overwrites the outcome.
    clock.increment(1_000);
    await tick();
    expect((await worker.get(handle.id))?.outcome).toEqual({
      status: 'answered',
      answers: answer('No'),
    });
    expect(clock.armed.size).toBe(0);
    const history = await historyOf(worker, handle.id);
    expect(history.map((event) => event.type)).toEqual(['start', 'answer', 'late-answer']);
    expect(history.at(-1)).toMatchObject({ data: { source: 'provider', status: 'answered' } });
  });

  it('refuses to restore a snapshot taken before the ask settled: it is never asked twice', async () => {
    const store = createMemoryAskStore();
    const provider = manualProvider();
    const first = createInteractionService({ store });
    first.registerProvider(provider);
    const handle = first.start(yesNo);
    await tick();
    const early = first.getPersistedSnapshot(handle.id)!;
    provider.calls[0]!.resolve({ status: 'answered', answers: answer('Yes') });
    await handle.outcome;
    const second = createInteractionService({ store });
    const secondProvider = manualProvider();
    second.registerProvider(secondProvider);
    await expect(second.restore(early)).rejects.toMatchObject({ code: 'ASK_SETTLED' });
    await tick();
    expect(secondProvider.calls).toHaveLength(0);
    expect((await historyOf(first, handle.id)).at(-1)).toMatchObject({
      type: 'late-answer',
      data: { source: 'restore' },
    });
  });

  it('refuses a second open ask on one interaction id, naming it; resume reaches the first', async () => {
    const store = createMemoryAskStore();
    const { first } = deferredPair(store, 'thread-9');
    const one = first.start(yesNo);
    expect(await one.outcome).toMatchObject({ status: 'deferred', interactionId: 'thread-9' });
    const two = first.start({ question: 'And the other?', options: ['A', 'B'] });
    const outcome = await two.outcome;
    expect(outcome).toMatchObject({ status: 'cancelled', reason: 'provider-error' });
    expect((outcome as { message: string }).message).toContain('"thread-9"');
    expect((outcome as { message: string }).message).toContain(one.id);
    expect(await first.resume('thread-9', answer('Yes'))).toMatchObject({ status: 'answered' });
    expect((await first.get(one.id))?.state).toBe('answered');
  });

  it('times out a deferred ask that only the store holds, from a service that never saw it', async () => {
    const store = createMemoryAskStore();
    const clock = new CountingClock();
    const first = createInteractionService({ store, clock });
    first.registerProvider(createScriptedProvider([{ defer: 'mail-1' }]));
    const { id } = first.start(yesNo, { timeoutMs: 5_000 });
    await tick();
    await first.close();
    const sweeper = createInteractionService({ store, clock, sweepIntervalMs: 5 });
    clock.increment(5_000);
    await vi.waitFor(async () =>
      expect((await sweeper.get(id))?.outcome).toEqual({ status: 'timedOut', deadlineAt: 5_000 }),
    );
    await sweeper.close();
  });

  it('times out an orphaned pending ask whose service went away', async () => {
    const store = createMemoryAskStore();
    const clock = new CountingClock();
    const gone = createInteractionService({ store, clock, sweepIntervalMs: Infinity });
    gone.registerProvider(manualProvider());
    const handle = gone.start(yesNo, { timeoutMs: 2_000 });
    await tick();
    await gone.close();
    await expect(handle.outcome).rejects.toThrow(/closed/);
    const other = createInteractionService({ store, clock, sweepIntervalMs: 5 });
    clock.increment(2_000);
    await vi.waitFor(async () => expect((await other.get(handle.id))?.state).toBe('timedOut'));
    await other.close();
  });

  it('does not ask twice for one idempotency key, on any service sharing the store', async () => {
    const store = createMemoryAskStore();
    const provider = manualProvider();
    const first = createInteractionService({ store });
    first.registerProvider(provider);
    const second = createInteractionService({ store });
    second.registerProvider(manualProvider());
    const a = first.start(yesNo, { key: 'tool-call-7' });
    const b = first.start(yesNo, { key: 'tool-call-7' });
    const c = second.start(yesNo, { key: 'tool-call-7' });
    expect(b.id).toBe(a.id);
    expect(c.id).toBe(a.id);
    await tick();
    expect(provider.calls).toHaveLength(1);
    provider.calls[0]!.resolve({ status: 'answered', answers: answer('Yes') });
    const outcomes = await Promise.all([a.outcome, b.outcome, c.outcome]);
    expect(new Set(outcomes.map((outcome) => JSON.stringify(outcome))).size).toBe(1);
    // After the outcome, the same key still answers with it, and asks nobody.
    expect(await second.ask(yesNo, { key: 'tool-call-7' })).toEqual(outcomes[0]);
    await expect(first.ask({ question: 'Other?' }, { key: 'tool-call-7' })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
    });
  });

  it('keeps asks in the store on close, for another service to answer', async () => {
    const store = createMemoryAskStore();
    const provider = manualProvider();
    const first = createInteractionService({ store });
    first.registerProvider(provider);
    const handle = first.start(yesNo);
    await tick();
    await first.close();
    expect(provider.calls[0]!.ctx.signal.aborted).toBe(true);
    await expect(handle.outcome).rejects.toThrow(/closed/);
    const second = createInteractionService({ store });
    expect((await second.get(handle.id))?.state).toBe('pending');
    expect(await second.answer(handle.id, answer('No'))).toMatchObject({ status: 'answered' });
    expect(() => first.start(yesNo)).toThrow(/closed/);
  });
});

describe('answer()', () => {
  it('finds an ask started in the same turn, before the store has answered', async () => {
    const store = createMemoryAskStore();
    const service = createInteractionService({ store });
    service.registerProvider(manualProvider());
    const handle = service.start(yesNo);
    const answered = service.answer(handle.id, answer('Yes'));
    expect(await answered).toEqual({ status: 'answered', answers: answer('Yes') });
    expect(await handle.outcome).toEqual({ status: 'answered', answers: answer('Yes') });
    const history = await historyOf(service, handle.id);
    expect(history.map((event) => event.type)).toEqual(['start', 'answer']);
  });

  it('refuses invalid answers with INVALID_ANSWER and keeps the ask open', async () => {
    const store = createMemoryAskStore();
    const { first, second } = deferredPair(store);
    const { id } = first.start(yesNo);
    await tick();
    await expect(second.answer(id, answer('Maybe'))).rejects.toMatchObject({
      code: 'INVALID_ANSWER',
    });
    expect((await second.get(id))?.state).toBe('deferred');
    expect(await second.answer(id, answer('no'))).toEqual({
      status: 'answered',
      answers: answer('No'),
    });
    await expect(second.answer(id, answer('Yes'))).rejects.toMatchObject({ code: 'ASK_SETTLED' });
    await expect(second.answer('nope', answer('Yes'))).rejects.toMatchObject({
      code: 'UNKNOWN_INTERACTION',
    });
  });
});

describe('cancel()', () => {
  it('ends an ask cancelled by the person from another service, and stops this provider', async () => {
    const store = createMemoryAskStore();
    const provider = manualProvider();
    const worker = createInteractionService({ store });
    worker.registerProvider(provider);
    const page = createInteractionService({ store });
    const handle = worker.start(yesNo);
    await tick();
    expect(await page.cancel(handle.id, 'user', 'declined on the page')).toEqual({
      status: 'cancelled',
      reason: 'user',
      message: 'declined on the page',
    });
    expect(await handle.outcome).toMatchObject({ status: 'cancelled', reason: 'user' });
    expect(provider.calls[0]!.ctx.signal.aborted).toBe(true);
    await expect(page.cancel(handle.id)).rejects.toMatchObject({ code: 'ASK_SETTLED' });
    await expect(page.cancel('nope')).rejects.toMatchObject({ code: 'UNKNOWN_INTERACTION' });
    await expect(page.cancel(handle.id, 'bored' as never)).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
    });
    expect((await historyOf(page, handle.id)).map((event) => event.type)).toEqual([
      'start',
      'cancel',
      'late-answer',
    ]);
  });
});

describe('hostile providers and failing stores', () => {
  for (const field of ['status', 'message', 'reason', 'interactionId', 'answers']) {
    it(`ends the ask cancelled / provider-error for a result whose "${field}" getter throws`, async () => {
      const service = createInteractionService();
      service.registerProvider({
        ask: async () => {
          const result: Record<string, unknown> = { status: 'deferred', interactionId: 'x' };
          Object.defineProperty(result, field, {
            enumerable: true,
            get() {
              throw new Error(`no ${field} for you`);
            },
          });
          return result as never;
        },
      });
      const outcome = await service.ask(yesNo);
      expect(outcome).toMatchObject({ status: 'cancelled', reason: 'provider-error' });
      expect((outcome as { message: string }).message).toContain(`no ${field} for you`);
    });
  }

  it('ends the ask cancelled / provider-error for a Proxy that throws on every read', async () => {
    const service = createInteractionService();
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('gotcha');
        },
        has() {
          throw new Error('gotcha');
        },
      },
    );
    service.registerProvider({ ask: async () => hostile as never });
    expect(await service.ask(yesNo)).toMatchObject({
      status: 'cancelled',
      reason: 'provider-error',
    });
  });

  it('rejects the caller with the store’s error when a write fails, never an unhandled rejection', async () => {
    const store = createMemoryAskStore();
    const failing: AskStore = {
      ...bind(store),
      update: async () => {
        throw new Error('disk full');
      },
    };
    const service = createInteractionService({ store: failing });
    service.registerProvider(createScriptedProvider([{ defer: 'chat-x' }]));
    await expect(service.ask(yesNo)).rejects.toThrow('disk full');
    const creating: AskStore = {
      ...bind(store),
      create: async () => {
        throw new Error('connection lost');
      },
    };
    const other = createInteractionService({ store: creating });
    other.registerProvider(createScriptedProvider([{ defer: 'chat-y' }]));
    await expect(other.ask(yesNo)).rejects.toThrow('connection lost');
  });
});

describe('what comes out of the store is checked', () => {
  it('refuses a tampered row with a clear error, and delivers nothing', async () => {
    const store = createMemoryAskStore();
    const first = createInteractionService({ store });
    first.registerProvider(createScriptedProvider([{ defer: 'chat-t' }]));
    const { id } = first.start(yesNo);
    await tick();
    const row = (await store.get(id))!;
    const huge = Array.from({ length: 10 }, (_, index) => ({
      ...row.questions[0]!,
      id: `q${index + 1}`,
      allowMultiple: true,
      options: Array.from({ length: 500 }, (_, option) => ({ title: `Option ${option}` })),
    }));
    await store.update(
      {
        ask: { ...row, version: row.version + 1, questions: huge },
        event: {
          askId: id,
          type: 'cancel',
          at: 0,
          from: 'deferred',
          to: 'deferred',
          data: { reason: 'user' },
        },
      },
      row.version,
    );
    const second = createInteractionService({ store });
    await expect(second.answer(id, answer('Yes'))).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      message: expect.stringContaining(id),
    });
    await expect(second.get(id)).rejects.toThrow(/questions/);
  });

  it('refuses a corrupt snapshot on restore and leaves nothing behind; drain still works', async () => {
    const service = createInteractionService();
    const provider = manualProvider();
    service.registerProvider(provider);
    const handle = service.start(yesNo);
    await tick();
    await expect(service.restore({ value: 'pending', context: 7 } as never)).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
    });
    await expect(
      service.restore({ status: 'active', value: 'flying', context: {} } as never),
    ).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    await service.drain(new Error('bye'));
    expect(await handle.outcome).toMatchObject({ status: 'aborted', message: 'bye' });
  });
});

describe('outcomes handed out', () => {
  it('are frozen all the way down, so nothing handed out can change the audit trail or the store', async () => {
    const store = createMemoryAskStore();
    const service = createInteractionService({ store });
    const trail: AskAuditEvent[] = [];
    service.events$.subscribe((event) => trail.push(event));
    service.registerProvider(createScriptedProvider([{ answer: answer('Yes') }]));
    const handle = service.start(yesNo);
    const outcome = await handle.outcome;
    expect(Object.isFrozen(outcome)).toBe(true);
    expect(() => {
      (outcome as { answers: unknown[] }).answers.push('x');
    }).toThrow(TypeError);
    const audited = trail.find((event) => event.type === 'provider.answered')!;
    expect(audited.data).toEqual({ answers: answer('Yes') });
    expect((await store.get(handle.id))?.outcome).toEqual({
      status: 'answered',
      answers: answer('Yes'),
    });
    expect(() => {
      (audited.data as { answers: unknown[] }).answers.push('x');
    }).toThrow(TypeError);
    const snapshot = handle.getSnapshot();
    expect(Object.isFrozen(snapshot)).toBe(true);
    expect(Object.isFrozen(snapshot.outcome)).toBe(true);
    expect(snapshot.outcome).toEqual(outcome);
  });
});

/** A store's methods as plain functions, to override one of them. */
function bind(store: AskStore): AskStore {
  const bound: Record<string, unknown> = {};
  for (const name of ASK_STORE_METHODS) {
    bound[name] = (store[name] as (...args: unknown[]) => unknown).bind(store);
  }
  return bound as unknown as AskStore;
}
