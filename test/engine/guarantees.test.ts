/**
 * The service's promises at its edges (issue 15): rows that went back or disagree with
 * themselves, keys whose questions come back reordered, objects handed out, failures reported,
 * the row written before it is relied on, replies bound to their deferral, drain and close with
 * a first write in flight, redaction kept with the ask, and a sweeper that never races the
 * deadline timers of the service holding an ask.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteAskStore } from 'ask-engine/sqlite';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type AskAuditEvent,
  type AskStore,
  type AskUserRequest,
  createInteractionService,
  createMemoryAskStore,
  type StoredAsk,
  systemClock,
} from '../../src/index.js';
import { ASK_STORE_METHODS } from '../../src/stores/store-ports.js';
import { CountingClock, manualProvider, tick, yesNo } from './helpers.js';

const picked = (title: string) => [
  { questionId: 'q1', response: { kind: 'selection' as const, selections: [title] } },
];
const startEvent = (askId: string): AskAuditEvent => ({
  askId,
  type: 'start',
  at: 1,
  from: null,
  to: 'pending',
  data: { questions: 1 },
});

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function stores(): [string, () => AskStore][] {
  return [
    ['memory', () => createMemoryAskStore()],
    [
      'SQLite',
      () => {
        const dir = mkdtempSync(join(tmpdir(), 'ask-guarantees-'));
        dirs.push(dir);
        return createSqliteAskStore({ path: join(dir, 'asks.db') });
      },
    ],
  ];
}

/** A store's methods as plain functions, to override one of them. */
function bind(store: AskStore): AskStore {
  const bound: Record<string, unknown> = {};
  for (const name of ASK_STORE_METHODS) {
    bound[name] = (store[name] as (...args: unknown[]) => unknown).bind(store);
  }
  return bound as unknown as AskStore;
}

/** A copy of a row read from the store, with `change` applied (rows are frozen). */
async function edited(store: AskStore, askId: string, change: (row: StoredAsk) => StoredAsk) {
  const row = structuredClone((await store.get(askId)) as StoredAsk);
  return change(row);
}

describe.each(stores())('a stored version that went back (%s store)', (_name, makeStore) => {
  it('is reported through onError and refused, never retried forever', async () => {
    const store = makeStore();
    const errors: unknown[] = [];
    const service = createInteractionService({ store, onError: (error) => errors.push(error) });
    const provider = manualProvider();
    service.registerProvider(provider);
    const handle = service.start(yesNo);
    await handle.stored;
    const backup = await edited(store, handle.id, (row) => row);
    provider.calls[0]!.ctx.reportProgress(picked('Yes'));
    await tick();
    expect((await store.get(handle.id))?.version).toBe(2);
    // A restored backup: the row is back at version 1 while this service knows version 2.
    const restored = await store.update({ ask: backup, event: startEvent(handle.id) }, 2);
    expect(restored.ok).toBe(true);
    const refusal = await service.answer(handle.id, picked('No')).catch((error) => error);
    expect(String(refusal.message)).toMatch(/went back in the store from version 2 to 1/);
    expect(errors).toHaveLength(1);
    expect((await store.get(handle.id))?.version).toBe(1);
    await service.close();
    await store.close();
  });
});

describe('a stored row that contradicts itself', () => {
  async function tampered(change: (row: StoredAsk) => StoredAsk) {
    const store = createMemoryAskStore();
    const service = createInteractionService({ store, onError: () => undefined });
    service.registerProvider(manualProvider());
    const handle = service.start(yesNo);
    await handle.stored;
    handle.cancel();
    await handle.outcome;
    const row = await edited(store, handle.id, change);
    const other = { ...row, askId: 'tampered', snapshot: row.snapshot };
    (other.snapshot.context as { askId: string }).askId = 'tampered';
    await store.create({ ask: other, event: startEvent('tampered') });
    return { service, store };
  }

  it('is refused when it is final without an outcome (a waiting caller would hang)', async () => {
    const { service } = await tampered((row) => {
      delete row.outcome;
      delete (row.snapshot.context as { outcome?: unknown }).outcome;
      return row;
    });
    await expect(service.get('tampered')).rejects.toThrow(/cancelled without an outcome/);
  });

  it('is refused when its outcome differs from its snapshot', async () => {
    const { service } = await tampered((row) => ({
      ...row,
      outcome: { status: 'cancelled', reason: 'unavailable' },
    }));
    await expect(service.get('tampered')).rejects.toThrow(/outcome differs from its snapshot/);
  });

  it('is refused when its answers select an option nobody offered', async () => {
    const { service } = await tampered((row) => {
      const outcome = { status: 'answered' as const, answers: picked('Maybe') };
      (row.snapshot as { value: string }).value = 'answered';
      (row.snapshot.context as { outcome: unknown }).outcome = outcome;
      return { ...row, state: 'answered', outcome };
    });
    await expect(service.get('tampered')).rejects.toThrow(/never offered/);
  });

  it('is read when only a question rule of today refuses it (rules may tighten later)', async () => {
    const { service } = await tampered((row) => {
      (row.questions[0] as { question: string }).question = '\u200b';
      return row;
    });
    expect((await service.get('tampered'))?.state).toBe('cancelled');
  });
});

describe('idempotency keys', () => {
  it('name the same request when a store hands the questions back with keys reordered', async () => {
    const memory = createMemoryAskStore();
    // A jsonb column reorders object keys: every row comes back with its keys sorted.
    const sorted = (value: unknown): unknown =>
      Array.isArray(value)
        ? value.map(sorted)
        : typeof value === 'object' && value !== null
          ? Object.fromEntries(
              Object.keys(value)
                .sort()
                .reverse()
                .map((key) => [key, sorted((value as Record<string, unknown>)[key])]),
            )
          : value;
    const store = bind(memory);
    store.create = async (write) => {
      const result = await memory.create(write);
      return result.created || !('existing' in result)
        ? result
        : { created: false, existing: sorted(result.existing) as StoredAsk };
    };
    const first = createInteractionService({ store });
    const second = createInteractionService({ store });
    first.registerProvider(manualProvider());
    second.registerProvider(manualProvider());
    const a = first.start(yesNo, { key: 'step-1' });
    await a.stored;
    const b = second.start(yesNo, { key: 'step-1' });
    await b.stored;
    expect(b.id).toBe(a.id);
    a.cancel();
    expect(await b.outcome).toMatchObject({ status: 'cancelled' });
  });
});

describe('what is handed out', () => {
  it('cannot be changed: events, snapshots, questions, info and the provider’s request', async () => {
    const store = createMemoryAskStore();
    const service = createInteractionService({ store });
    const events: AskAuditEvent[] = [];
    service.events$.subscribe((event) => events.push(event));
    const provider = manualProvider();
    service.registerProvider(provider);
    const handle = service.start(yesNo);
    await handle.stored;
    const request = provider.calls[0]!.request as AskUserRequest;
    const snapshot = handle.getSnapshot();
    expect(() => {
      (snapshot.questions[0]!.options as { title: string }[]).push({ title: 'Maybe' });
    }).toThrow(TypeError);
    expect(() => {
      (request.questions[0]!.options[0] as { title: string }).title = 'Maybe';
    }).toThrow(TypeError);
    provider.calls[0]!.resolve({ status: 'deferred', interactionId: 'chat-1' });
    await handle.outcome;
    const info = await service.get(handle.id);
    expect(() => {
      (info!.questions[0]!.options as { title: string }[]).push({ title: 'Maybe' });
    }).toThrow(TypeError);
    await expect(service.answer(handle.id, picked('Maybe'))).rejects.toMatchObject({
      code: 'INVALID_ANSWER',
    });
    const answered = await service.answer(handle.id, picked('Yes'));
    const event = events.find((candidate) => candidate.type === 'answer')!;
    expect(() => {
      (event.data as { answers: unknown[] }).answers.push('x');
    }).toThrow(TypeError);
    expect(Object.isFrozen(answered)).toBe(true);
    expect((await store.get(handle.id))?.outcome).toEqual({
      status: 'answered',
      answers: picked('Yes'),
    });
  });
});

describe('errors reach the host', () => {
  it('checks the onError option', () => {
    expect(() => createInteractionService({ onError: 'log' as never })).toThrow(
      /Expected `onError` to be a function/,
    );
  });

  it('reports a due row the sweeper skips, and a sweep the store failed', async () => {
    const memory = createMemoryAskStore();
    const store = bind(memory);
    let failSweep = false;
    store.claimDue = async (now, limit, settle) => {
      if (failSweep) throw new Error('the disk is full');
      return memory.claimDue(now, limit, settle);
    };
    const errors: unknown[] = [];
    const owner = createInteractionService({ store, sweepIntervalMs: Number.POSITIVE_INFINITY });
    owner.registerProvider(manualProvider());
    const handle = owner.start(yesNo, { timeoutMs: 1000 });
    await handle.stored;
    await owner.close();
    const row = await edited(memory, handle.id, (copy) => ({ ...copy, state: 'answered' }));
    await memory.update({ ask: row, event: startEvent(handle.id) }, 1);
    // The sweeping service's clock is past the deadline.
    const later = { ...systemClock, now: () => Date.now() + 5_000 };
    const sweeper = createInteractionService({
      store,
      clock: later,
      sweepIntervalMs: 1,
      onError: (error) => errors.push(error),
    });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(String(errors[0])).toMatch(/Refused the due ask/);
    failSweep = true;
    const before = errors.length;
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(errors.slice(before).map(String)).toContain('Error: the disk is full');
    await sweeper.close();
  });

  it('lets the caller wait for the row: handle.stored resolves once it is written, rejects if not', async () => {
    const memory = createMemoryAskStore();
    const store = bind(memory);
    let written = false;
    let failCreate = false;
    store.create = async (write) => {
      await tick();
      if (failCreate) throw new Error('the store is down');
      const result = await memory.create(write);
      written = true;
      return result;
    };
    const service = createInteractionService({ store });
    service.registerProvider(manualProvider());
    const handle = service.start(yesNo);
    expect(written).toBe(false);
    await handle.stored;
    expect(written).toBe(true);
    expect((await memory.get(handle.id))?.state).toBe('pending');
    failCreate = true;
    const failed = service.start(yesNo);
    await expect(failed.stored).rejects.toThrow('the store is down');
    await expect(failed.outcome).rejects.toThrow('the store is down');
  });
});

describe('the sweeper and the deadline timers', () => {
  it('leaves asks its own deadline timers are timing out to them, and sweeps the rest', async () => {
    const memory = createMemoryAskStore();
    const store = bind(memory);
    // A store across a network: every write lands 40 ms after it was sent.
    store.update = async (write, expectedVersion) => {
      await new Promise((resolve) => setTimeout(resolve, 40));
      return memory.update(write, expectedVersion);
    };
    const swept: string[] = [];
    store.claimDue = async (now, limit, settle) => {
      const applied = await memory.claimDue(now, limit, settle);
      swept.push(...applied.map((write) => write.ask.askId));
      return applied;
    };
    const clock = new CountingClock();
    const owner = createInteractionService({ store, clock, sweepIntervalMs: 1 });
    owner.registerProvider(manualProvider());
    const handles = Array.from({ length: 5 }, () => owner.start(yesNo, { timeoutMs: 1_000 }));
    await Promise.all(handles.map((handle) => handle.stored));
    await new Promise((resolve) => setTimeout(resolve, 100));
    // While the owner's deadline writes are in flight, the rows are due and still pending.
    clock.increment(1_000);
    const outcomes = await Promise.all(handles.map((handle) => handle.outcome));
    expect(outcomes.map((outcome) => outcome.status)).toEqual(Array(5).fill('timedOut'));
    expect(swept).toEqual([]);
    // An ask no timer of this service holds (its service closed) is the sweep's.
    const gone = createInteractionService({
      store,
      clock,
      sweepIntervalMs: Number.POSITIVE_INFINITY,
    });
    gone.registerProvider(manualProvider());
    const orphan = gone.start(yesNo, { timeoutMs: 1_000 });
    await orphan.stored;
    await gone.close();
    clock.increment(1_000);
    await vi.waitFor(() => expect(swept).toEqual([orphan.id]));
    expect((await owner.get(orphan.id))?.state).toBe('timedOut');
    await owner.close();
  });

  it('settles a storm of deadlines in slices, then arms and stops its timer as before', async () => {
    const clock = new CountingClock();
    const service = createInteractionService({ clock });
    service.registerProvider(manualProvider());
    // Enough asks due at once that settling them takes several slices of the event loop.
    const storm = Array.from({ length: 2_000 }, () => service.start(yesNo, { timeoutMs: 1_000 }));
    await Promise.all(storm.map((handle) => handle.stored));
    clock.increment(1_000);
    const outcomes = await Promise.all(storm.map((handle) => handle.outcome));
    expect(new Set(outcomes.map((outcome) => outcome.status))).toEqual(new Set(['timedOut']));
    // The next deadline is a clock timer again, which close clears.
    const next = service.start(yesNo, { timeoutMs: 1_000 });
    await next.stored;
    expect(clock.armed.size).toBe(1);
    await service.close();
    expect(clock.armed.size).toBe(0);
    await expect(next.outcome).rejects.toThrow(/closed/);
  });
});

describe('a reply to a deferral', () => {
  it('answers the ask it was sent for, and is refused once that ask settled', async () => {
    const store = createMemoryAskStore();
    const service = createInteractionService({ store });
    const provider = manualProvider();
    service.registerProvider(provider);
    const first = service.start(yesNo);
    await tick();
    provider.calls[0]!.resolve({ status: 'deferred', interactionId: 'thread-7' });
    await first.outcome;
    expect(await service.resume('thread-7', picked('Yes'), { askId: first.id })).toMatchObject({
      status: 'answered',
    });
    const second = service.start(yesNo);
    await tick();
    provider.calls[1]!.resolve({ status: 'deferred', interactionId: 'thread-7' });
    await second.outcome;
    // The chat redelivers the first reply: it must not answer the second ask.
    await expect(
      service.resume('thread-7', picked('No'), { askId: first.id }),
    ).rejects.toMatchObject({ code: 'ASK_SETTLED' });
    expect((await service.get(second.id))?.state).toBe('deferred');
    await expect(
      service.resume('thread-7', picked('No'), { askId: 'elsewhere' }),
    ).rejects.toMatchObject({ code: 'UNKNOWN_INTERACTION' });
    await expect(service.resume('thread-7', picked('No'), { askId: 7 as never })).rejects.toThrow(
      /askId/,
    );
    // Without an ask id, the plain case still answers the ask deferred to the id now.
    expect(await service.resume('thread-7', picked('No'))).toMatchObject({ status: 'answered' });
  });
});

describe('drain and close with a first write in flight', () => {
  function slowStore() {
    const memory = createMemoryAskStore();
    const store = bind(memory);
    store.create = async (write) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return memory.create(write);
    };
    return { memory, store };
  }

  it('drain ends an ask started in the same turn, with one outcome', async () => {
    const { memory, store } = slowStore();
    const service = createInteractionService({ store });
    service.registerProvider(manualProvider());
    const handle = service.start(yesNo);
    await service.drain(new Error('deploy'));
    expect((await memory.get(handle.id))?.state).toBe('aborted');
    expect(await handle.outcome).toMatchObject({ status: 'aborted' });
    const types: string[] = [];
    for await (const event of memory.history(handle.id)) types.push(event.type);
    expect(types.filter((type) => type === 'abort')).toHaveLength(1);
  });

  it('close lets the ask go: its provider is never asked, nothing more is written', async () => {
    const { memory, store } = slowStore();
    const service = createInteractionService({ store });
    const provider = manualProvider();
    service.registerProvider(provider);
    const handle = service.start(yesNo);
    await service.close();
    await expect(handle.outcome).rejects.toThrow(/closed/);
    await handle.stored;
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(provider.calls).toHaveLength(0);
    expect((await memory.get(handle.id))?.version).toBe(1);
  });
});

describe('redaction kept with the ask', () => {
  it('keeps answers out of the history when another, non-redacting service answers', async () => {
    const store = createMemoryAskStore();
    const asking = createInteractionService({ store, redact: true });
    asking.registerProvider(manualProvider());
    const answering = createInteractionService({ store });
    const handle = asking.start({ question: 'Your SSN?' });
    await handle.stored;
    const secret = 'my-ssn-078-05-1120';
    const answers = [{ questionId: 'q1', response: { kind: 'freeform' as const, text: secret } }];
    await answering.answer(handle.id, answers);
    // The asker still gets what the person typed.
    expect(await handle.outcome).toEqual({ status: 'answered', answers });
    const history: AskAuditEvent[] = [];
    for await (const event of answering.history(handle.id)) history.push(event);
    expect(history.map((event) => event.type)).toContain('answer');
    expect(JSON.stringify(history)).not.toContain(secret);
  });
});
