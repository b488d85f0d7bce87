/**
 * Stores as ports (issue 36 §2): a store for another database implements the ask log first and
 * the service runs on it (asks, answers across services, deferrals, deadlines swept from the
 * store, history); the outbox and the index are ports it may add, each wholly or not at all,
 * and what needs a missing port says so when it is set up, never half-way through.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createNotifyProvider } from 'ask-engine/notify';
import { createSqliteAskStore } from 'ask-engine/sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type AskLog,
  type AskStore,
  createInteractionService,
  createMemoryAskStore,
} from '../../src/index.js';
import {
  ASK_INDEX_METHODS,
  ASK_LOG_METHODS,
  ASK_OUTBOX_METHODS,
  ASK_STORE_METHODS,
  readStorePorts,
} from '../../src/stores/store-ports.js';
import { WORK_CLAIM_METHODS } from '../../src/stores/work-claims.js';
import { manualProvider, tick, yesNo } from '../engine/helpers.js';

const dirs: string[] = [];
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Only the ask log of `store`: what the author of a store for another database writes first. */
function logOnly(store: AskStore): AskLog {
  return Object.fromEntries(
    ASK_LOG_METHODS.map((name) => [name, (store[name] as () => unknown).bind(store)]),
  ) as unknown as AskLog;
}

function stores(): [string, () => AskStore][] {
  return [
    ['memory', () => createMemoryAskStore()],
    [
      'SQLite',
      () => {
        const dir = mkdtempSync(join(tmpdir(), 'ask-ports-'));
        dirs.push(dir);
        return createSqliteAskStore({ path: join(dir, 'asks.db') });
      },
    ],
  ];
}

const yes = [{ questionId: 'q1', response: { kind: 'selection' as const, selections: ['Yes'] } }];

describe('the port lists', () => {
  it('split the store methods into three disjoint ports', () => {
    const all = [
      ...ASK_LOG_METHODS,
      ...ASK_OUTBOX_METHODS,
      ...ASK_INDEX_METHODS,
      ...WORK_CLAIM_METHODS,
    ];
    expect(new Set(all).size).toBe(all.length);
    expect([...ASK_STORE_METHODS].sort()).toEqual([...all].sort());
  });

  it.each(stores())('find every port on the %s store', (_name, makeStore) => {
    const store = makeStore();
    closers.push(() => store.close());
    const ports = readStorePorts(store);
    expect(ports.log).toBe(store);
    expect(ports.outbox).toBe(store);
    expect(ports.index).toBe(store);
    expect(ports.claims).toBe(store);
  });
});

describe.each(stores())('a store with only the ask log (%s underneath)', (_name, makeStore) => {
  it('runs asks across two services: deliver, defer, answer elsewhere, sweep, history', async () => {
    const full = makeStore();
    closers.push(() => full.close());
    const store = logOnly(full);
    const ports = readStorePorts(store);
    expect([ports.log, ports.outbox, ports.index, ports.claims]).toEqual([
      store,
      undefined,
      undefined,
      undefined,
    ]);
    const a = createInteractionService({ store, sweepIntervalMs: 10 });
    const b = createInteractionService({ store, sweepIntervalMs: 10 });
    closers.push(
      () => a.close(),
      () => b.close(),
    );
    const provider = manualProvider();
    a.registerProvider(provider);
    b.registerProvider(manualProvider());

    const answered = a.start(yesNo);
    await answered.stored;
    await tick();
    expect(provider.calls).toHaveLength(1);
    provider.calls[0]?.resolve({ status: 'deferred', interactionId: 'thread-1' });
    await expect(answered.outcome).resolves.toMatchObject({ status: 'deferred' });
    await b.answer(answered.id, yes, { by: { recipient: 'ana' } });
    await expect(a.outcome(answered.id)).resolves.toMatchObject({
      status: 'answered',
      answeredBy: { recipient: 'ana' },
    });

    // A deferred ask times out through the store's claimDue, swept by either service.
    const timed = a.start(yesNo, { timeoutMs: 1_000 });
    await timed.stored;
    await tick();
    provider.calls[1]?.resolve({ status: 'deferred', interactionId: 'thread-2' });
    await expect(timed.outcome).resolves.toMatchObject({ status: 'deferred' });
    await expect(b.outcome(timed.id)).resolves.toMatchObject({ status: 'timedOut' });

    const types: string[] = [];
    for await (const event of a.history(answered.id)) types.push(event.type);
    expect(types[0]).toBe('start');
    expect(types).toContain('answer');
  });

  it('refuses what needs the index or the outbox, naming the port and its methods', async () => {
    const full = makeStore();
    closers.push(() => full.close());
    const store = logOnly(full);
    const service = createInteractionService({ store });
    closers.push(() => service.close());
    await expect(service.list()).rejects.toThrow(
      '`service.list` needs a store with the index port (list, purge), which this store does not implement.',
    );
    await expect(service.purge({ finalBefore: Date.now() })).rejects.toThrow(
      '`service.purge` needs a store with the index port (list, purge)',
    );
    expect(() => createInteractionService({ store, retention: { finalAfterMs: 60_000 } })).toThrow(
      'The `retention` option needs a store with the index port (list, purge)',
    );
    expect(() =>
      createNotifyProvider({
        server: { linkFor: () => 'https://example.test/a' } as never,
        store,
        channels: [{ name: 'sms', send: async () => {} }],
        route: () => [],
      }),
    ).toThrow(
      'The notify provider needs a store with the outbox port (claimOutbox, takeOutbox, completeOutbox, retryOutbox, renewOutbox)',
    );
  });
});

describe('a store that is not one', () => {
  const full = createMemoryAskStore();

  it('lacking a method of the log is refused, naming it', () => {
    const { subscribe: _left, ...rest } = logOnly(full) as unknown as Record<string, unknown>;
    expect(() => createInteractionService({ store: rest as never })).toThrow(
      'Expected `store` to implement the ask log (create, update, append, get, findByInteractionId, findByKey, history, claimDue, acknowledgeSettled, subscribe, renewOwnerLease, releaseOwnerLease, ownerLeaseUntil, close); it lacks subscribe.',
    );
  });

  it('with part of a port is refused, naming what it has and what it lacks', () => {
    const partOutbox = { ...logOnly(full), claimOutbox: full.claimOutbox.bind(full) };
    expect(() => createInteractionService({ store: partOutbox })).toThrow(
      '`store` implements part of the outbox port (claimOutbox) but not takeOutbox, completeOutbox, retryOutbox, renewOutbox; a port is implemented wholly',
    );
    const partIndex = { ...logOnly(full), list: full.list.bind(full) };
    expect(() => createInteractionService({ store: partIndex })).toThrow(
      '`store` implements part of the index port (list) but not purge',
    );
  });

  it('that is no object is refused with what it got', () => {
    expect(() => createInteractionService({ store: 'postgres://' as never })).toThrow(
      /Expected `store` to be an ask store \(at least the ask log: create, .*\), got "postgres:\/\/"\./,
    );
  });
});
