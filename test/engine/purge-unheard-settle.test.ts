/**
 * A settled ask is not purged before its owner heard of the settle (issue 37, §3). Service A
 * owns a pending ask (its provider waits); service B answers it; a purge runs before A heard
 * of the answer (A's news is held back). The ask must stay until A has it: A's caller gets the
 * answered outcome, and the next purge deletes the ask. An ask whose owner died (its lease ran
 * out) is purged without waiting for it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPostgresAskStore } from 'ask-engine/postgres';
import { createSqliteAskStore } from 'ask-engine/sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import {
  type AskStore,
  type AskStoreChange,
  createInteractionService,
  createMemoryAskStore,
} from '../../src/index.js';
import {
  type PostgresCluster,
  postgresMissing,
  startPostgresCluster,
} from '../support/postgres-cluster.js';
import { manualProvider, tick, yesNo } from './helpers.js';
import { delegatingStore } from './sweep-fixtures.js';

const yes = [{ questionId: 'q1', response: { kind: 'selection' as const, selections: ['Yes'] } }];
const dir = mkdtempSync(join(tmpdir(), 'ask-purge-unheard-'));
let files = 0;
let schemas = 0;
let cluster: PostgresCluster | undefined;

beforeAll(async () => {
  if (postgresMissing === undefined) cluster = await startPostgresCluster();
});
afterAll(async () => {
  await cluster?.destroy();
  rmSync(dir, { recursive: true, force: true });
});

/** Two stores over the same data (two hosts, but for memory): one for service A, one for B. */
const targets: [string, () => Promise<[AskStore, AskStore]>][] = [
  [
    'memory',
    async () => {
      const store = createMemoryAskStore();
      return [store, store];
    },
  ],
  [
    'SQLite',
    async () => {
      const path = join(dir, `asks-${++files}.db`);
      return [createSqliteAskStore({ path }), createSqliteAskStore({ path })];
    },
  ],
];
if (postgresMissing === undefined) {
  targets.push([
    'PostgreSQL',
    async () => {
      const schema = `purge_unheard_${++schemas}`;
      const open = () =>
        createPostgresAskStore({ connectionString: cluster!.url }, { schema, max: 3 });
      return [open(), open()];
    },
  ]);
}

/** `inner`, but the news it tells is held until `release()`. */
function withHeldNews(inner: AskStore): { store: AskStore; release: () => void } {
  const held: (() => void)[] = [];
  let holding = true;
  const store = delegatingStore(inner);
  store.subscribe = (listener, options) =>
    inner.subscribe((change: AskStoreChange) => {
      if (holding) held.push(() => listener(change));
      else listener(change);
    }, options);
  return {
    store,
    release: () => {
      holding = false;
      for (const tell of held.splice(0)) tell();
    },
  };
}

describe.each(targets)('a purge and an ask whose owner has not heard it settle (%s)', (_, open) => {
  it('leaves the ask until its owner heard, whose caller gets the answer, then purges it', async () => {
    const [storeA, storeB] = await open();
    const clock = new SimulatedClock();
    clock.set(1_000);
    const news = withHeldNews(storeA);
    const owner = createInteractionService({ store: news.store, clock, retention: false });
    const provider = manualProvider();
    owner.registerProvider(provider);
    const handle = owner.start(yesNo);
    await handle.stored;
    await tick();
    expect(provider.calls).toHaveLength(1);
    const other = createInteractionService({ store: storeB, clock, retention: false });
    await other.answer(handle.id, yes);
    clock.increment(1_000);

    expect(await other.purge({ finalBefore: clock.now() + 60_000 })).toBe(0);
    expect((await storeB.get(handle.id))?.state).toBe('answered');

    news.release();
    await expect(handle.outcome).resolves.toMatchObject({ status: 'answered', answers: yes });
    expect(provider.calls[0]!.ctx.signal.aborted).toBe(true);
    // The owner's acknowledgement is a write of its own: wait for it, not for a time.
    for (let tries = 0; (await storeB.get(handle.id))?.owner !== undefined; tries++) {
      if (tries > 200) throw new Error('the owner never acknowledged the settle');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(await other.purge({ finalBefore: clock.now() + 60_000 })).toBe(1);
    expect(await storeB.get(handle.id)).toBeUndefined();
    await Promise.all([owner.close(), other.close()]);
    await Promise.all([storeA.close(), storeB === storeA ? undefined : storeB.close()]);
  });

  it('purges the settled ask of an owner that died (its lease ran out) without waiting for it', async () => {
    const [storeA, storeB] = await open();
    const clock = new SimulatedClock();
    clock.set(1_000);
    const news = withHeldNews(storeA);
    const owner = createInteractionService({
      store: news.store,
      clock,
      retention: false,
      leaseMs: 10_000,
    });
    owner.registerProvider(manualProvider());
    const handle = owner.start(yesNo);
    handle.outcome.catch(() => undefined);
    await handle.stored;
    await tick();
    const other = createInteractionService({ store: storeB, clock, retention: false });
    await other.answer(handle.id, yes);
    // The owner never hears of it and renews no lease in this (simulated) time: it died.
    expect(await other.purge({ finalBefore: clock.now() + 60_000 })).toBe(0);
    clock.increment(10_000);
    expect(await other.purge({ finalBefore: clock.now() + 60_000 })).toBe(1);
    await Promise.all([owner.close(), other.close()]);
    await Promise.all([storeA.close(), storeB === storeA ? undefined : storeB.close()]);
  });
});
