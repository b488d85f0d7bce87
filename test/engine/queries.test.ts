/**
 * What is waiting, what happened: `service.list` reads the asks of every service sharing the
 * store, `service.purge` and the `retention` option delete old final asks and nothing else.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import {
  type AskStore,
  createInteractionService,
  createMemoryAskStore,
  createScriptedProvider,
} from '../../src/index.js';
import { createSqliteAskStore } from '../../src/sqlite.js';
import { manualProvider, tick, yesNo } from './helpers.js';

const yes = [{ questionId: 'q1', response: { kind: 'selection' as const, selections: ['Yes'] } }];
const dir = mkdtempSync(join(tmpdir(), 'ask-engine-queries-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  const giveUp = Date.now() + 3_000;
  while (!(await condition())) {
    if (Date.now() > giveUp) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const stores: [string, () => AskStore][] = [
  ['memory', () => createMemoryAskStore()],
  [
    'SQLite',
    (() => {
      let files = 0;
      return () => createSqliteAskStore({ path: join(dir, `asks-${++files}.db`) });
    })(),
  ],
];

describe.each(stores)('service.list and service.purge on the %s store', (_name, newStore) => {
  it('lists the asks of every service sharing the store, as get() has them, newest first', async () => {
    const store = newStore();
    const clock = new SimulatedClock();
    clock.set(1_767_225_600_000);
    const asker = createInteractionService({ store, clock, redact: true });
    asker.registerProvider(manualProvider());
    const operator = createInteractionService({ store, clock });
    try {
      const ids: string[] = [];
      for (let n = 0; n < 5; n++) {
        const handle = asker.start(
          { ...yesNo, agent: n % 2 === 0 ? 'deployer' : 'reviewer' },
          { sessionId: `session-${n % 2}` },
        );
        await handle.stored;
        ids.push(handle.id);
        clock.increment(1_000);
      }
      await operator.answer(ids[1] as string, yes);

      const first = await operator.list({}, { limit: 3 });
      expect(first.items.map((ask) => ask.askId)).toEqual([ids[4], ids[3], ids[2]]);
      for (const item of first.items) expect(item).toEqual(await operator.get(item.askId));
      expect(first.items[0]).toMatchObject({ sessionId: 'session-0', agent: 'deployer' });
      expect(Object.isFrozen(first.items[0])).toBe(true);
      const rest = await operator.list({}, { limit: 3, cursor: first.cursor });
      expect(rest.items.map((ask) => ask.askId)).toEqual([ids[1], ids[0]]);
      expect(rest.cursor).toBeUndefined();

      const answered = await operator.list({ state: 'answered' });
      expect(answered.items).toEqual([await operator.get(ids[1] as string)]);
      expect(answered.items[0]?.outcome).toEqual({ status: 'answered', answers: yes });
      const reviewer = await operator.list({ agent: 'reviewer', state: 'pending' });
      expect(reviewer.items.map((ask) => ask.askId)).toEqual([ids[3]]);
      await expect(operator.list({ state: 'waiting' as never })).rejects.toMatchObject({
        code: 'INVALID_REQUEST',
        data: { field: 'state' },
      });
    } finally {
      await asker.close();
      await operator.close();
      await store.close();
    }
  });

  it('purges final asks settled before the time given, with their history, and keeps open ones', async () => {
    const store = newStore();
    const clock = new SimulatedClock();
    clock.set(1_767_225_600_000);
    const service = createInteractionService({ store, clock });
    service.registerProvider(
      createScriptedProvider([{ defer: 'thread-1' }, { defer: 'thread-2' }, { defer: 'thread-3' }]),
    );
    try {
      const answered = service.start(yesNo);
      const cancelled = service.start(yesNo);
      const deferred = service.start(yesNo);
      await Promise.all([answered.outcome, cancelled.outcome, deferred.outcome]);
      await service.answer(answered.id, yes);
      await service.cancel(cancelled.id);
      clock.increment(60_000);
      // The script has no step left for it: the provider declines it (cancelled, unavailable).
      const settledLater = service.start(yesNo);
      expect(await settledLater.outcome).toMatchObject({ status: 'cancelled' });

      expect(await service.purge({ finalBefore: clock.now() - 30_000 })).toBe(2);
      expect(await service.get(answered.id)).toBeUndefined();
      const history: unknown[] = [];
      for await (const event of service.history(answered.id)) history.push(event);
      expect(history).toEqual([]);
      await expect(service.answer(answered.id, yes)).rejects.toMatchObject({
        code: 'UNKNOWN_INTERACTION',
      });
      expect(await service.get(deferred.id)).toMatchObject({ state: 'deferred' });
      expect(await service.get(settledLater.id)).toMatchObject({ state: 'cancelled' });
      // Everything final, however recent; never the deferred ask.
      expect(await service.purge({ finalBefore: clock.now() + 1 })).toBe(1);
      expect((await service.list()).items.map((ask) => ask.askId)).toEqual([deferred.id]);
      await expect(service.purge({ finalBefore: '2026-01-01' as never })).rejects.toThrow(
        'Expected purge `finalBefore` to be a time in ms since the epoch, got "2026-01-01".',
      );
      await expect(service.purge(undefined as never)).rejects.toThrow(
        'Expected purge options { finalBefore }, got undefined.',
      );
    } finally {
      await service.close();
      await store.close();
    }
  });

  it('purges more asks than one batch holds', async () => {
    const store = newStore();
    const service = createInteractionService({ store, sweepIntervalMs: Number.POSITIVE_INFINITY });
    service.registerProvider(createScriptedProvider([{ cancel: 'user' }], { loop: true }));
    try {
      await Promise.all(Array.from({ length: 1_203 }, () => service.ask(yesNo)));
      await tick();
      expect(await service.purge({ finalBefore: Date.now() + 1 })).toBe(1_203);
      expect((await service.list()).items).toEqual([]);
    } finally {
      await service.close();
      await store.close();
    }
  });

  it('deletes final asks on its own with the retention option', async () => {
    const store = newStore();
    const clock = new SimulatedClock();
    clock.set(1_767_225_600_000);
    const service = createInteractionService({
      store,
      clock,
      retention: { finalAfterMs: 10_000, everyMs: 5 },
    });
    service.registerProvider(manualProvider());
    try {
      const open = service.start(yesNo);
      const settled = service.start(yesNo);
      await Promise.all([open.stored, settled.stored]);
      await service.answer(settled.id, yes);
      clock.increment(5_000);
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(await service.get(settled.id)).toBeDefined();
      clock.increment(6_000);
      await until(async () => (await service.get(settled.id)) === undefined, 'the purge');
      expect(await service.get(open.id)).toMatchObject({ state: 'pending' });
    } finally {
      await service.close();
      await store.close();
    }
  });
});

describe('retention options', () => {
  it('refuses a retention it cannot use, showing the value', () => {
    expect(() => createInteractionService({ retention: { finalAfterMs: -1 } })).toThrow(
      'Expected `retention.finalAfterMs` to be a number of milliseconds from 0 and up, got -1.',
    );
    expect(() => createInteractionService({ retention: { finalAfterMs: 1, everyMs: 0 } })).toThrow(
      'Expected `retention.everyMs` to be a number of milliseconds > 0, got 0.',
    );
    expect(() =>
      createInteractionService({ retention: { finalAfterMs: 1, afterMs: 5 } as never }),
    ).toThrow('Unknown `retention.afterMs`: retention takes { finalAfterMs, everyMs? }.');
    expect(() => createInteractionService({ retention: 3_600_000 as never })).toThrow(
      'Expected `retention` to be { finalAfterMs, everyMs? } or false, got 3600000.',
    );
  });

  it('tells a caller of the memory store’s old count cap what replaced it', () => {
    expect(() => createMemoryAskStore({ maxSettledAsks: 10 } as never)).toThrow(
      /no longer takes `maxSettledAsks`: settled asks are deleted by age, with the service option `retention: \{ finalAfterMs \}`/,
    );
  });
});
