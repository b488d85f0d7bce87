/**
 * The chat provider on two hosts sharing one store (a SQLite file, a PostgreSQL schema): each
 * host has its own service, web server, Chat SDK instance and provider, all posting to one fake
 * Slack. The card of an ask started on host A is posted once, and a click delivered to host B
 * settles the ask host A's caller waits for; the card is edited once.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSlackAdapter } from '@chat-adapter/slack';
import { type AskStore, createInteractionService } from 'ask-engine';
import { createChatProvider } from 'ask-engine/chat';
import { createPostgresAskStore } from 'ask-engine/postgres';
import { createSqliteAskStore } from 'ask-engine/sqlite';
import { createWebAnswerServer } from 'ask-engine/web';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type PostgresCluster,
  postgresMissing,
  startPostgresCluster,
} from '../support/postgres-cluster.js';
import { until as waitUntil } from '../support/until.js';
import { chatWith, deliver, silentLogger } from './chat-fixture.js';
import { blockAction, type FakeSlack, signedSlackRequest, startFakeSlack } from './fake-slack.js';

const SIGNING_SECRET = 'slack-signing-secret-for-hosts';
const cleanups: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The hosts' news may take a while under load: 15 s. */
const until = <T>(read: () => T | Promise<T>, what: string, ms = 15_000) =>
  waitUntil(read, what, ms);

/** One host on `store`: its service, web server, Chat SDK instance and chat provider. */
async function startHost(store: AskStore, slack: FakeSlack) {
  const service = createInteractionService({ store });
  cleanups.push(() => service.close());
  const server = await createWebAnswerServer({ service, secret: 'h'.repeat(32) });
  cleanups.push(() => server.close());
  const chat = chatWith({
    slack: createSlackAdapter({
      botToken: 'xoxb-test-token',
      signingSecret: SIGNING_SECRET,
      apiUrl: slack.apiUrl,
      logger: silentLogger,
    }),
  });
  const provider = createChatProvider({
    chat,
    server,
    route: () => [{ id: 'U0ALICE', channel: 'slack', address: 'slack:C0DEPLOY' }],
    delivery: { pollMs: 20 },
  });
  cleanups.push(() => provider.close());
  service.registerProvider(provider);
  return { service, chat };
}

async function postOnceAndSettleFromTheOtherHost(stores: [AskStore, AskStore]) {
  const slack = await startFakeSlack();
  cleanups.push(() => slack.close());
  const a = await startHost(stores[0], slack);
  const b = await startHost(stores[1], slack);
  const handle = a.service.start({
    questions: [{ question: 'Promote the canary?', options: ['Promote', 'Roll back'] }],
  });
  expect((await handle.outcome).status).toBe('deferred');
  const post = await until(() => slack.callsOf('chat.postMessage')[0], 'the card');
  await until(async () => {
    for await (const event of b.service.history(handle.id))
      if (event.type === 'notified') return true;
    return false;
  }, 'the card recorded as sent');
  // Both senders poll every 20 ms: give them many rounds to post it again.
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(slack.callsOf('chat.postMessage')).toHaveLength(1);

  const blocks = post.args.blocks as { type: string; elements?: { value?: string }[] }[];
  const promote = blocks.flatMap((block) => block.elements ?? []).find((e) => e.value)?.value;
  const response = await deliver(
    b.chat,
    'slack',
    signedSlackRequest(
      'http://host-b.test/slack',
      blockAction('U0ALICE', 'C0DEPLOY', post.result.ts as string, promote as string),
      SIGNING_SECRET,
    ),
  );
  expect(response.status).toBe(200);
  expect(await a.service.outcome(handle.id)).toMatchObject({
    status: 'answered',
    answers: [{ response: { selections: ['Promote'] } }],
    answeredBy: { recipient: 'U0ALICE', channel: 'slack' },
  });
  await until(() => slack.callsOf('chat.update')[0], 'the card edited');
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(slack.callsOf('chat.update')).toHaveLength(1);
}

describe('the chat provider on two hosts', () => {
  it('posts once and settles from a click on the other host, on one SQLite file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chat-hosts-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const path = join(dir, 'asks.db');
    const stores: [AskStore, AskStore] = [
      createSqliteAskStore({ path }),
      createSqliteAskStore({ path }),
    ];
    cleanups.push(() => Promise.all(stores.map((store) => store.close())));
    await postOnceAndSettleFromTheOtherHost(stores);
  });

  describe.skipIf(postgresMissing !== undefined)('on PostgreSQL', () => {
    let cluster: PostgresCluster;
    beforeAll(async () => {
      cluster = await startPostgresCluster();
    }, 60_000);
    afterAll(async () => {
      await cluster?.destroy();
    });

    it('posts once and settles from a click on the other host, on one schema', async () => {
      const stores: [AskStore, AskStore] = [
        createPostgresAskStore({ connectionString: cluster.url }, { schema: 'chat_hosts', max: 4 }),
        createPostgresAskStore({ connectionString: cluster.url }, { schema: 'chat_hosts', max: 4 }),
      ];
      cleanups.push(() => Promise.all(stores.map((store) => store.close())));
      await postOnceAndSettleFromTheOtherHost(stores);
    });
  });
});
