/**
 * Reminders and escalation on PostgreSQL with two hosts: both senders poll the one outbox, and
 * each reminder and escalation reaches its recipient once, with one audit event.
 */
import { type AskAuditEvent, createInteractionService } from 'ask-engine';
import { createEmailChannel, createNotifyProvider } from 'ask-engine/notify';
import { createPostgresAskStore } from 'ask-engine/postgres';
import { createWebAnswerServer } from 'ask-engine/web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type PostgresCluster,
  postgresMissing,
  startPostgresCluster,
} from '../support/postgres-cluster.js';
import { startSmtpReceiver } from './smtp-receiver.js';

let cluster: PostgresCluster;

describe.skipIf(postgresMissing !== undefined)(
  'the notify provider on two PostgreSQL hosts',
  () => {
    beforeAll(async () => {
      cluster = await startPostgresCluster();
    }, 60_000);
    afterAll(async () => {
      await cluster?.destroy();
    });

    it('sends each reminder and the escalation once, though both hosts claim', async () => {
      const smtp = await startSmtpReceiver();
      const hosts = await Promise.all(
        ['a', 'b'].map(async () => {
          const store = createPostgresAskStore(
            { connectionString: cluster.url },
            { schema: 'hosts', max: 4 },
          );
          const service = createInteractionService({ store });
          const server = await createWebAnswerServer({ service, secret: 'b'.repeat(32) });
          const provider = createNotifyProvider({
            server,
            store,
            channels: [
              createEmailChannel({ transport: smtp.transport, from: 'approvals@example.com' }),
            ],
            route: () => [{ id: 'alice', channel: 'email', address: 'alice@example.com' }],
            reminders: { afterMs: 200, everyMs: 200, max: 3 },
            escalation: [
              {
                afterMs: 500,
                route: () => [{ id: 'lead', channel: 'email', address: 'lead@example.com' }],
              },
            ],
            delivery: { pollMs: 20 },
          });
          service.registerProvider(provider);
          return { store, service, server, provider };
        }),
      );
      try {
        const [a] = hosts as [(typeof hosts)[0]];
        const handle = a.service.start(
          { questions: [{ question: 'Rotate the keys?', options: ['Yes', 'No'] }] },
          { timeoutMs: 60_000 },
        );
        expect(await handle.outcome).toMatchObject({ status: 'deferred' });
        const end = Date.now() + 10_000;
        while (smtp.received.length < 5 && Date.now() < end) {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        // Time for a second host to send a duplicate, if it would.
        await new Promise((resolve) => setTimeout(resolve, 600));
        const ids = smtp.received.map((m) => m.mail.messageId);
        expect(ids).toHaveLength(5);
        expect(new Set(ids).size).toBe(5);
        const events: AskAuditEvent[] = [];
        for await (const event of a.service.history(handle.id)) events.push(event);
        const sent = events
          .filter((e) => ['notified', 'reminded', 'escalated'].includes(e.type))
          .map((e) => `${e.type}:${(e.data as { recipient: string }).recipient}`)
          .sort();
        expect(sent).toEqual(
          [
            'escalated:lead',
            'notified:alice',
            'reminded:alice',
            'reminded:alice',
            'reminded:alice',
          ].sort(),
        );
      } finally {
        for (const host of hosts) {
          await host.provider.close();
          await host.service.close();
          await host.server.close();
          await host.store.close();
        }
        await smtp.close();
      }
    }, 60_000);
  },
);
