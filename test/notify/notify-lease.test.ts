/**
 * A send longer than the outbox lease (an SMTP server that holds its reply to DATA) keeps its
 * message: two senders on one store, the second claiming again and again long after the first
 * lease would have run out, and the mail arrives once.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AskAuditEvent,
  type AskStore,
  createInteractionService,
  createMemoryAskStore,
} from 'ask-engine';
import { createEmailChannel, createNotifyProvider } from 'ask-engine/notify';
import { createPostgresAskStore } from 'ask-engine/postgres';
import { createSqliteAskStore } from 'ask-engine/sqlite';
import { createWebAnswerServer } from 'ask-engine/web';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import {
  type PostgresCluster,
  postgresMissing,
  startPostgresCluster,
} from '../support/postgres-cluster.js';
import { startSmtpReceiver } from './smtp-receiver.js';

const LEASE = 3_000;
const cleanups: (() => Promise<unknown>)[] = [];

let cluster: PostgresCluster | undefined;

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => {
  await cluster?.destroy();
});

/**
 * `store`, with the lease renewals made through it kept in `renewals`, so a step of the clock
 * can wait for the renewal it set off to land (a store over the network takes a round trip).
 */
function watchingRenewals(store: AskStore, renewals: Promise<unknown>[]): AskStore {
  return new Proxy(store, {
    get(target, name) {
      if (name === 'renewOutbox') {
        return (...args: Parameters<AskStore['renewOutbox']>) => {
          const renewal = target.renewOutbox(...args);
          renewals.push(renewal);
          return renewal;
        };
      }
      const value = Reflect.get(target, name);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** Two stores over one set of asks: one memory store shared, or two handles on one SQLite file. */
const stores: Record<string, () => Promise<[AskStore, AskStore]>> = {
  'two services on one memory store': async () => {
    const store = createMemoryAskStore();
    return [store, store];
  },
  'two SQLite handles on one file': async () => {
    const dir = await mkdtemp(join(tmpdir(), 'notify-lease-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const path = join(dir, 'asks.db');
    const first = createSqliteAskStore({ path });
    const second = createSqliteAskStore({ path });
    cleanups.push(
      () => first.close(),
      () => second.close(),
    );
    return [first, second];
  },
  ...(postgresMissing === undefined && {
    'two hosts on one PostgreSQL database': async () => {
      cluster ??= await startPostgresCluster();
      const hosts = [0, 1].map(() =>
        createPostgresAskStore({ connectionString: cluster!.url }, { schema: 'lease', max: 4 }),
      );
      cleanups.push(...hosts.map((store) => () => store.close()));
      return hosts as [AskStore, AskStore];
    },
  }),
};

describe.each(Object.keys(stores))('the outbox lease, %s', (name) => {
  it('covers a send that outlasts it: the other sender never claims it, the mail arrives once', {
    timeout: 60_000,
  }, async () => {
    const smtp = await startSmtpReceiver();
    cleanups.push(() => smtp.close());
    const clock = new SimulatedClock();
    clock.set(Date.now());
    const hosts = [];
    const renewals: Promise<unknown>[] = [];
    const [watched, other] = await stores[name]!();
    for (const store of [watchingRenewals(watched, renewals), other]) {
      const service = createInteractionService({ store });
      cleanups.push(() => service.close());
      const server = await createWebAnswerServer({ service, secret: 's'.repeat(32) });
      cleanups.push(() => server.close());
      const provider = createNotifyProvider({
        server,
        store,
        channels: [
          createEmailChannel({ transport: smtp.transport, from: 'approvals@example.com' }),
        ],
        route: () => [{ id: 'alice', channel: 'email', address: 'alice@example.com' }],
        clock,
        // Only store changes and the test's flushes start a round.
        delivery: { leaseMs: LEASE, pollMs: 3_600_000 },
      });
      cleanups.push(() => provider.close());
      service.registerProvider(provider);
      hosts.push({ service, provider });
    }
    const [a, b] = hosts as [(typeof hosts)[0], (typeof hosts)[0]];
    let release!: () => void;
    smtp.holdUntil = new Promise<void>((resolve) => {
      release = resolve;
    });
    cleanups.push(async () => release());

    const handle = a.service.start(
      { questions: [{ question: 'Restart the cluster?', options: ['Yes', 'No'] }] },
      { timeoutMs: 3_600_000 },
    );
    expect(await handle.outcome).toMatchObject({ status: 'deferred' });
    // A's send is under way: the server has the mail and holds its reply.
    await smtp.arrived(1);
    const second = smtp.arrived(2).then(() => 'a second copy arrived');
    // Three leases long, a third of one at a time: b claims at every step and finds nothing.
    for (let step = 1; step <= 9; step++) {
      clock.increment(LEASE / 3);
      await Promise.all(renewals.splice(0));
      expect(await Promise.race([b.provider.flush(), second])).toBe(0);
    }
    release();
    await a.provider.flush();
    clock.increment(3 * LEASE);
    expect(await Promise.race([b.provider.flush(), second])).toBe(0);
    expect(smtp.received).toHaveLength(1);
    const events: AskAuditEvent[] = [];
    for await (const event of a.service.history(handle.id)) events.push(event);
    expect(events.filter((event) => event.type === 'notified')).toHaveLength(1);
  });
});
