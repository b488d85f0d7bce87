/**
 * The notify provider on PostgreSQL: end to end with short intervals (reminders, an escalation,
 * the answer through the link of the recipient escalated away from, the settled mails), and
 * with two hosts, where both senders poll the one outbox and each reminder and escalation
 * reaches its recipient once, with one audit event.
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
import { answerThroughLink, linkIn } from './answer-link.js';
import { startSmtpReceiver } from './smtp-receiver.js';

let cluster: PostgresCluster;

/**
 * One host: a PostgreSQL store on `schema`, its service, web answer server and notify provider
 * (mail to alice, reminded every 200 ms, escalated to the lead), all sending to `smtp`.
 */
async function startHost(
  smtp: Awaited<ReturnType<typeof startSmtpReceiver>>,
  schema: string,
  { reminders, escalationAfterMs }: { reminders: number; escalationAfterMs: number },
) {
  const store = createPostgresAskStore({ connectionString: cluster.url }, { schema, max: 4 });
  const service = createInteractionService({ store });
  const server = await createWebAnswerServer({ service, secret: 'e'.repeat(32) });
  const provider = createNotifyProvider({
    server,
    channels: [createEmailChannel({ transport: smtp.transport, from: 'approvals@example.com' })],
    route: () => [{ id: 'alice', channel: 'email', address: 'alice@example.com' }],
    reminders: { afterMs: 200, everyMs: 200, max: reminders },
    escalation: [
      {
        afterMs: escalationAfterMs,
        route: () => [{ id: 'lead', channel: 'email', address: 'lead@example.com' }],
      },
    ],
    delivery: { pollMs: 20 },
  });
  service.registerProvider(provider);
  return { store, service, server, provider };
}

describe.skipIf(postgresMissing !== undefined)(
  'the notify provider on two PostgreSQL hosts',
  () => {
    beforeAll(async () => {
      cluster = await startPostgresCluster();
    }, 60_000);
    afterAll(async () => {
      await cluster?.destroy();
    });

    it('reminds, escalates, and still takes the answer through the link of the recipient escalated away from', async () => {
      const smtp = await startSmtpReceiver();
      const { store, service, server, provider } = await startHost(smtp, 'end_to_end', {
        reminders: 2,
        escalationAfterMs: 600,
      });
      const mailTo = (to: string) => smtp.received.filter((m) => m.rcptTo.includes(to));
      const waitFor = async (condition: () => boolean, what: string) => {
        const end = Date.now() + 10_000;
        while (!condition()) {
          if (Date.now() > end) throw new Error(`Timed out waiting for ${what}`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      };
      try {
        const handle = service.start(
          {
            questions: [{ question: 'Fail over to the replica?', options: ['Fail over', 'Wait'] }],
          },
          { timeoutMs: 60_000 },
        );
        expect(await handle.outcome).toMatchObject({ status: 'deferred' });
        await waitFor(
          () => mailTo('alice@example.com').length === 3 && mailTo('lead@example.com').length === 1,
          'two reminders and the escalation',
        );
        const [first, ...reminders] = mailTo('alice@example.com');
        expect(reminders.map((m) => m.mail.inReplyTo)).toEqual([
          first?.mail.messageId,
          first?.mail.messageId,
        ]);

        // Escalated to the lead, alice's link still opens and still answers.
        const aliceLink = linkIn(first?.mail.text);
        const leadLink = linkIn(mailTo('lead@example.com')[0]?.mail.text);
        expect((await fetch(aliceLink)).status).toBe(200);
        expect((await fetch(leadLink)).status).toBe(200);
        expect((await service.get(handle.id))?.state).toBe('deferred');
        expect((await answerThroughLink(aliceLink, 1)).status).toBe(200);
        expect((await service.get(handle.id))?.outcome).toEqual({
          status: 'answered',
          answers: [
            { questionId: 'q1', response: { kind: 'selection', selections: ['Fail over'] } },
          ],
          answeredBy: { recipient: 'alice', channel: 'email' },
        });

        // Settled: both links say who answered and take no answer; both get the settled mail.
        for (const link of [aliceLink, leadLink]) {
          const page = await fetch(link);
          expect(page.status).toBe(410);
          expect(await page.text()).toContain('answered by alice (via email) on');
          expect((await answerThroughLink(link, 2)).status).not.toBe(200);
        }
        await waitFor(
          () => mailTo('alice@example.com').length === 4 && mailTo('lead@example.com').length === 2,
          'the settled mails',
        );
        expect(mailTo('lead@example.com')[1]?.mail.text).toContain('Answered by alice');
        expect((await service.get(handle.id))?.outcome).toMatchObject({
          answers: [{ questionId: 'q1', response: { selections: ['Fail over'] } }],
        });
        // A mail is received before its sender marks it done and audits it: read the history
        // once the last notification is audited.
        const notifications = async () => {
          const events: AskAuditEvent[] = [];
          for await (const event of service.history(handle.id)) events.push(event);
          return events
            .filter((e) => ['notified', 'reminded', 'escalated'].includes(e.type))
            .map((e) => `${e.type}:${(e.data as { recipient: string }).recipient}`)
            .sort();
        };
        let audited = await notifications();
        for (const end = Date.now() + 10_000; audited.length < 6 && Date.now() < end; ) {
          await new Promise((resolve) => setTimeout(resolve, 20));
          audited = await notifications();
        }
        expect(audited).toEqual(
          [
            'notified:alice',
            'reminded:alice',
            'reminded:alice',
            'escalated:lead',
            'notified:alice',
            'notified:lead',
          ].sort(),
        );
      } finally {
        await provider.close();
        await service.close();
        await server.close();
        await store.close();
        await smtp.close();
      }
    }, 60_000);

    it('sends each reminder and the escalation once, though both hosts claim', async () => {
      const smtp = await startSmtpReceiver();
      const hosts = await Promise.all(
        ['a', 'b'].map(() => startHost(smtp, 'hosts', { reminders: 3, escalationAfterMs: 500 })),
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
