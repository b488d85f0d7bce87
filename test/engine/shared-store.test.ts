/**
 * One store object shared by two services in one process (memory, SQLite, PostgreSQL): a
 * service is not told of its own writes (it names itself as their writer), yet each still
 * hears the other's, so an answer given through one settles the ask the other waits on.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPostgresAskStore } from 'ask-engine/postgres';
import { createSqliteAskStore } from 'ask-engine/sqlite';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import {
  type AskStore,
  type AskStoreChange,
  type AskWrite,
  createInteractionService,
  createMemoryAskStore,
  type InteractionService,
} from '../../src/index.js';
import { ASK_STORE_METHODS } from '../../src/stores/store-ports.js';
import {
  type PostgresCluster,
  postgresMissing,
  startPostgresCluster,
} from '../support/postgres-cluster.js';
import { manualProvider, yesNo } from './helpers.js';

const answer = (title: string) => [
  { questionId: 'q1', response: { kind: 'selection' as const, selections: [title] } },
];

const dir = mkdtempSync(join(tmpdir(), 'ask-shared-store-'));
let cluster: PostgresCluster | undefined;
let files = 0;
let schemas = 0;

beforeAll(async () => {
  if (postgresMissing === undefined) cluster = await startPostgresCluster();
});
afterAll(async () => {
  await cluster?.destroy();
  rmSync(dir, { recursive: true, force: true });
});

const kinds: [string, () => AskStore][] = [
  ['memory', () => createMemoryAskStore()],
  ['SQLite', () => createSqliteAskStore({ path: join(dir, `asks-${++files}.db`) })],
];
if (postgresMissing === undefined) {
  kinds.push([
    'PostgreSQL',
    () =>
      createPostgresAskStore(
        { connectionString: cluster!.url },
        { schema: `shared_${++schemas}`, max: 3 },
      ),
  ]);
}

/**
 * The store as one service sees it: every write it hands the store, what it subscribed with,
 * and the news it was told; `hold()` keeps its next `update` waiting until released.
 */
function watched(inner: AskStore) {
  const writes: AskWrite[] = [];
  const told: AskStoreChange[] = [];
  const subscribedAs: (string | undefined)[] = [];
  let held: { entered: () => void; released: Promise<void> } | undefined;
  const store = Object.fromEntries(
    ASK_STORE_METHODS.map((method) => [method, inner[method].bind(inner)]),
  ) as unknown as AskStore;
  store.create = (write) => {
    writes.push(write);
    return inner.create(write);
  };
  store.update = async (write, expected) => {
    writes.push(write);
    const hold = held;
    held = undefined;
    if (hold !== undefined) {
      hold.entered();
      await hold.released;
    }
    return inner.update(write, expected);
  };
  store.claimDue = (now, limit, settle) =>
    inner.claimDue(now, limit, (ask) => {
      const write = settle(ask);
      if (write !== undefined) writes.push(write);
      return write;
    });
  store.subscribe = (listener, options) => {
    subscribedAs.push(options?.writer);
    return inner.subscribe((change) => {
      told.push(change);
      listener(change);
    }, options);
  };
  /** Holds the next update; resolves once it is called, with the function that releases it. */
  const hold = () =>
    new Promise<() => void>((entered) => {
      let release!: () => void;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      held = { entered: () => entered(release), released };
    });
  return { store, writes, told, subscribedAs, hold };
}

const CUT = expect.stringContaining('CONNECTION_CLOSED');

/** `inner` whose `method` throws, as a cut connection would, the next `fail(n)` times. */
function failing(inner: AskStore, method: 'get' | 'update') {
  let left = 0;
  const store = Object.fromEntries(
    ASK_STORE_METHODS.map((name) => [name, inner[name].bind(inner)]),
  ) as unknown as AskStore;
  const real = inner[method].bind(inner) as (...args: unknown[]) => Promise<unknown>;
  (store as unknown as Record<string, unknown>)[method] = async (...args: unknown[]) => {
    if (left > 0) {
      left--;
      throw new Error('write CONNECTION_CLOSED (a test)');
    }
    return real(...args);
  };
  return { store, fail: (times: number) => (left = times), left: () => left };
}

/**
 * Resolves once `store` tells a subscriber of a write `writer` made: a PostgreSQL store then has
 * its LISTEN up, and every subscriber has been told the `missed` that the first LISTEN brings
 * (a service told it re-reads every ask it holds, whenever it comes).
 */
async function hearing(store: AskStore, writer: InteractionService): Promise<void> {
  let heard = false;
  const probe = writer.start(yesNo, { timeoutMs: 60_000 });
  const unsubscribe = store.subscribe((change) => {
    if (change.type === 'changed' && change.askId === probe.id) heard = true;
  });
  try {
    await probe.stored;
    const until = Date.now() + 10_000;
    while (!heard) {
      if (Date.now() > until) throw new Error('The store never told of the probe ask.');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  } finally {
    unsubscribe();
  }
}

describe.each(kinds)('two services sharing one %s store object', (_name, open) => {
  let store: AskStore;
  const services: InteractionService[] = [];
  const service = (options: Parameters<typeof createInteractionService>[0]) => {
    const created = createInteractionService(options);
    services.push(created);
    return created;
  };

  afterEach(async () => {
    for (const each of services.splice(0)) await each.close();
    await store.close();
  });

  it('settles the ask one waits on with an answer given through the other, both ways', async () => {
    store = open();
    const providers = [manualProvider(), manualProvider()];
    const [first, second] = providers.map((provider) => {
      const created = service({ store });
      created.registerProvider(provider);
      return created;
    }) as unknown as [InteractionService, InteractionService];
    for (const [asking, answering, provider] of [
      [first, second, providers[0]!],
      [second, first, providers[1]!],
    ] as const) {
      const handle = asking.start(yesNo, { timeoutMs: 60_000 });
      await handle.stored;
      expect(await answering.answer(handle.id, answer('Yes'))).toMatchObject({
        status: 'answered',
      });
      expect(await handle.outcome).toEqual({ status: 'answered', answers: answer('Yes') });
      // The provider still asking was stopped: its ask settled elsewhere.
      expect(provider.calls.at(-1)?.ctx.signal.aborted).toBe(true);
    }
  });

  it('reads an ask again when the store fails the read after news of it, and settles it', async () => {
    store = open();
    // The waiting service's store fails its next two reads, as a cut connection would.
    const flaky = failing(store, 'get');
    const reported: unknown[] = [];
    const asking = service({ store: flaky.store, onError: (error) => reported.push(error) });
    asking.registerProvider(manualProvider());
    const answering = service({ store });
    answering.registerProvider(manualProvider());
    // Before the ask: a `missed` arriving after it would have the waiting service read it before
    // the reads fail (and, under load, find the answer that way).
    await hearing(store, answering);
    const handle = asking.start(yesNo, { timeoutMs: 60_000 });
    await handle.stored;
    flaky.fail(2);
    await answering.answer(handle.id, answer('No'));
    expect(await handle.outcome).toEqual({ status: 'answered', answers: answer('No') });
    expect(flaky.left()).toBe(0);
    expect(reported.map(String)).toEqual([CUT, CUT]);
  });

  it('writes a deadline again when the store fails its write, and times the ask out', async () => {
    store = open();
    const flaky = failing(store, 'update');
    const reported: unknown[] = [];
    // No sweeper: only the service's own deadline timer can time the ask out.
    const asking = service({
      store: flaky.store,
      sweepIntervalMs: Number.POSITIVE_INFINITY,
      onError: (error) => reported.push(error),
    });
    asking.registerProvider(manualProvider());
    const handle = asking.start(yesNo, { timeoutMs: 1_000 });
    await handle.stored;
    flaky.fail(2);
    expect(await handle.outcome).toMatchObject({ status: 'timedOut' });
    expect(flaky.left()).toBe(0);
    expect(reported.map(String)).toEqual([CUT, CUT]);
    expect(await store.get(handle.id)).toMatchObject({ state: 'timedOut', final: true });
  });

  it('names itself on every write it makes and is told only of the other’s', async () => {
    store = open();
    const watch = watched(store);
    // One clock for both: the other's ask comes due for mine's sweep when the test says so.
    const clock = new SimulatedClock();
    clock.set(Date.now());
    const mine = service({ store: watch.store, clock, sweepIntervalMs: 10 });
    // Its provider defers with a message queued in the same write (an outbox entry).
    mine.registerProvider({
      ask: async (_request, ctx) => ({
        status: 'deferred',
        interactionId: `chat-${ctx.askId}`,
        outbox: [
          {
            deliveryId: `msg-${ctx.askId}`,
            askId: ctx.askId,
            channel: 'test',
            due: 0,
            payload: {},
          },
        ],
      }),
    });
    const other = service({ store, clock });
    other.registerProvider(manualProvider());
    // Mine: started, deferred with its outbox, resumed.
    const handle = mine.start(yesNo, { timeoutMs: 60_000 });
    expect(await handle.outcome).toMatchObject({ status: 'deferred' });
    await mine.resume(`chat-${handle.id}`, answer('Yes'));
    // The other's: started and left there, then timed out by mine's sweep once due.
    const orphan = other.start(yesNo, { timeoutMs: 1_000 });
    await orphan.stored;
    await other.close();
    // The other's write is news to mine; then its deadline passes.
    const heard = (askId: string, version: number) =>
      watch.told.some(
        (change) =>
          change.type === 'changed' && change.askId === askId && change.version === version,
      );
    await expect.poll(() => heard(orphan.id, 1), { timeout: 5_000 }).toBe(true);
    clock.increment(2_000);
    await expect
      .poll(async () => (await mine.get(orphan.id))?.state, { timeout: 5_000 })
      .toBe('timedOut');
    expect(watch.subscribedAs).toEqual([mine.id]);
    const types = watch.writes.map((write) => write.event.type);
    expect(types).toEqual(['start', 'provider.deferred', 'resume', 'deadline']);
    expect(watch.writes.every((write) => write.writer === mine.id)).toBe(true);
    expect(watch.writes[1]?.outbox).toHaveLength(1);
    // Told of the other's ask, never of a version mine wrote.
    const own = new Set(watch.writes.map((write) => `${write.ask.askId}:${write.ask.version}`));
    const news = watch.told.flatMap((change) =>
      change.type === 'changed' ? [`${change.askId}:${change.version}`] : [],
    );
    expect(news.filter((each) => own.has(each))).toEqual([]);
  });

  it('brings a second copy of an ask up to date with a write its one-off copy made', async () => {
    store = open();
    const watch = watched(store);
    const mine = service({ store: watch.store });
    mine.registerProvider(manualProvider());
    const other = service({ store });
    other.registerProvider(manualProvider());
    const started = other.start(yesNo, { key: 'step-1', timeoutMs: 60_000 });
    await started.stored;
    // Mine answers the ask it does not hold (a one-off read of it); while that write waits,
    // mine starts the same keyed ask, and holds a second copy at the version before it.
    const holding = watch.hold();
    const answered = mine.answer(started.id, answer('Yes'));
    const release = await holding;
    const attached = mine.start(yesNo, { key: 'step-1', timeoutMs: 60_000 });
    expect(attached.id).toBe(started.id);
    await attached.stored;
    release();
    expect(await answered).toMatchObject({ status: 'answered' });
    // Its news is not told to mine (mine wrote it): the copy held here reads it all the same.
    expect(await attached.outcome).toEqual({ status: 'answered', answers: answer('Yes') });
    expect(await started.outcome).toEqual({ status: 'answered', answers: answer('Yes') });
  });
});
