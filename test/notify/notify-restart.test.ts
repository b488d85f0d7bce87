/**
 * A sender that dies after the outbox write (here: its send never returns, and its provider
 * stops, so nothing renews its lease any more, as in a dead process) loses nothing: once its
 * lease runs out, a provider on a new connection to the same SQLite file sends the notification
 * with the same Message-ID.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInteractionService } from 'ask-engine';
import { createEmailChannel, createNotifyProvider, deliveryIdFor } from 'ask-engine/notify';
import { createSqliteAskStore } from 'ask-engine/sqlite';
import { createWebAnswerServer } from 'ask-engine/web';
import { expect, it } from 'vitest';
import { startSmtpReceiver } from './smtp-receiver.js';

const route = () => [{ id: 'alice', channel: 'email', address: 'alice@example.com' }];

it('sends after a restart what a dead sender had claimed, under the same Message-ID', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'notify-restart-'));
  const path = join(dir, 'asks.db');
  const smtp = await startSmtpReceiver();
  try {
    // The first process: its transport never answers, as if it died mid-send.
    const first = createSqliteAskStore({ path });
    const service = createInteractionService({ store: first });
    const server = await createWebAnswerServer({ service, secret: 'c'.repeat(32) });
    const hung = createNotifyProvider({
      server,
      store: first,
      channels: [
        createEmailChannel({
          transport: { sendMail: () => new Promise(() => {}) },
          from: 'approvals@example.com',
        }),
      ],
      route,
      delivery: { pollMs: 20, leaseMs: 400 },
      onError: () => {},
    });
    service.registerProvider(hung);
    const handle = service.start({ questions: [{ question: 'Merge?', options: ['Yes', 'No'] }] });
    expect(await handle.outcome).toMatchObject({ status: 'deferred' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(smtp.received).toHaveLength(0);
    // The process dies mid-send: its hung send is left behind, its lease no longer renewed.
    await hung.close();

    // The restarted process, on a new connection to the same file.
    const second = createSqliteAskStore({ path });
    const restarted = createNotifyProvider({
      server,
      store: second,
      channels: [createEmailChannel({ transport: smtp.transport, from: 'approvals@example.com' })],
      route,
      delivery: { pollMs: 20, leaseMs: 400 },
    });
    const end = Date.now() + 5_000;
    while (smtp.received.length === 0 && Date.now() < end) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(smtp.received.map((m) => m.mail.messageId)).toEqual([
      `<${deliveryIdFor(handle.id, 'alice', 'created')}@example.com>`,
    ]);
    await restarted.close();
    await service.close();
    await server.close();
    await second.close();
    await first.close();
  } finally {
    await smtp.close();
    await rm(dir, { recursive: true, force: true });
  }
});
