/**
 * A process killed with SIGKILL between the outbox write and the end of the send loses
 * nothing: the child writes the ask's deferral with its outbox, starts sending to receivers
 * that never answer, and is killed; a provider started afterwards on the same SQLite file sends
 * each notification once, with the Message-ID and webhook-id the killed attempt used.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { type AskAuditEvent, createInteractionService } from 'ask-engine';
import { createEmailChannel, createNotifyProvider, createWebhookChannel } from 'ask-engine/notify';
import { createSqliteAskStore } from 'ask-engine/sqlite';
import { createWebAnswerServer } from 'ask-engine/web';
import { expect, it } from 'vitest';
import { bundleProgram } from '../support/program-bundle.js';
import { startSmtpReceiver } from './smtp-receiver.js';
import { startWebhookReceiver } from './webhook-receiver.js';

const SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
const LEASE_MS = 600;

async function until(condition: () => boolean, what: string, ms = 10_000) {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

it('sends after a SIGKILL mid-send, once, with the killed attempt’s Message-ID and webhook-id', async () => {
  const worker = await bundleProgram('test/fixtures/notify-kill-worker.ts');
  const dir = await mkdtemp(join(tmpdir(), 'notify-kill-'));
  const path = join(dir, 'asks.db');
  // The first attempt's receivers: they record what arrives and never answer.
  const hungSmtp = await startSmtpReceiver();
  hungSmtp.hold = true;
  const hungHooks = await startWebhookReceiver(SECRET);
  hungHooks.respond = () => {};
  const smtp = await startSmtpReceiver();
  const hooks = await startWebhookReceiver(SECRET);
  try {
    const child = spawn(
      process.execPath,
      [worker, path, hungSmtp.url, hungHooks.url, SECRET, String(LEASE_MS)],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const exited = once(child, 'exit');
    const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
    const [status, askId] = line.split(' ') as [string, string];
    expect(status).toBe('deferred');
    // Both sends are under way in the child: its outbox rows are claimed, not done.
    await until(
      () => hungSmtp.received.length === 1 && hungHooks.received.length === 1,
      'the first attempts to arrive',
    );
    child.kill('SIGKILL');
    const [, signal] = await exited;
    expect(signal).toBe('SIGKILL');
    const firstMessageId = hungSmtp.received[0]?.mail.messageId;
    const firstWebhookId = hungHooks.received[0]?.headers['webhook-id'];
    expect(firstMessageId).toMatch(/^<msg_[0-9a-f]{32}@example\.com>$/);
    expect(firstWebhookId).toMatch(/^msg_[0-9a-f]{32}$/);

    // The process started afterwards, on the same file.
    const store = createSqliteAskStore({ path });
    const service = createInteractionService({ store });
    const server = await createWebAnswerServer({ service, secret: 'k'.repeat(32) });
    const provider = createNotifyProvider({
      server,
      store,
      channels: [
        createEmailChannel({ transport: smtp.transport, from: 'approvals@example.com' }),
        createWebhookChannel({ url: hooks.url, secret: SECRET }),
      ],
      route: () => [],
      delivery: { pollMs: 20, leaseMs: LEASE_MS },
    });
    try {
      await until(
        () => smtp.received.length >= 1 && hooks.received.length >= 1,
        'the sends after the restart',
      );
      // Time for a second send of either, if one would come.
      await new Promise((resolve) => setTimeout(resolve, 3 * LEASE_MS));
      expect(smtp.received.map((m) => m.mail.messageId)).toEqual([firstMessageId]);
      expect(hooks.received.map((hook) => hook.headers['webhook-id'])).toEqual([firstWebhookId]);
      expect(hooks.received[0]?.verified.ok).toBe(true);
      const events: AskAuditEvent[] = [];
      for await (const event of service.history(askId)) events.push(event);
      expect(
        events
          .filter((event) => event.type === 'notified')
          .map((event) => (event.data as { recipient: string }).recipient)
          .sort(),
      ).toEqual(['alice', 'ops']);
    } finally {
      await provider.close();
      await server.close();
      await service.close();
      await store.close();
    }
  } finally {
    await Promise.all([hungSmtp.close(), hungHooks.close(), smtp.close(), hooks.close()]);
    await rm(dir, { recursive: true, force: true });
  }
}, 60_000);
