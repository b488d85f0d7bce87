/**
 * A channel's receipts: what `send` resolves with is recorded on the delivery's audit event, and
 * later notifications to the same recipient (a reminder, the settled one) carry the receipts of
 * the messages sent to them before, oldest first.
 */
import { createInteractionService } from 'ask-engine';
import { createNotifyProvider, type Notification, type NotifyChannel } from 'ask-engine/notify';
import { createWebAnswerServer } from 'ask-engine/web';
import { afterEach, describe, expect, it } from 'vitest';

const cleanups: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function until(condition: () => boolean, what: string, ms = 10_000) {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function setUp(receiptOf: (sent: number) => unknown) {
  const service = createInteractionService();
  cleanups.push(() => service.close());
  const server = await createWebAnswerServer({ service, secret: 'r'.repeat(32) });
  cleanups.push(() => server.close());
  const sent: Notification[] = [];
  const errors: unknown[] = [];
  const channel: NotifyChannel = {
    name: 'log',
    async send(notification) {
      sent.push(notification);
      return receiptOf(sent.length) as undefined;
    },
  };
  const provider = createNotifyProvider({
    server,
    channels: [channel],
    route: () => [{ id: 'ana', channel: 'log', address: 'ana-log' }],
    // Far enough after the first message for its receipt to be recorded on a loaded machine:
    // a reminder that goes out before it carries none (and a chat posts it as a new thread).
    reminders: { afterMs: 600 },
    delivery: { pollMs: 20 },
    onError: (error) => errors.push(error),
  });
  cleanups.push(() => provider.close());
  service.registerProvider(provider);
  return { service, sent, errors };
}

describe("a channel's receipts", () => {
  it('are recorded with the delivery and handed back with the later notifications to that recipient', async () => {
    const { service, sent } = await setUp((n) => ({ ref: `message-${n}` }));
    const handle = service.start({ questions: [{ question: 'Ship?', options: ['Yes', 'No'] }] });
    await until(() => sent.length === 2, 'the first message and the reminder');
    expect(sent[0]?.kind).toBe('created');
    expect(sent[0]?.receipts).toBeUndefined();
    expect(sent[1]).toMatchObject({ kind: 'reminded', receipts: ['message-1'] });
    await service.answer(handle.id, [
      { questionId: 'q1', response: { kind: 'selection', selections: ['Yes'] } },
    ]);
    await until(() => sent.length === 3, 'the settled notification');
    expect(sent[2]).toMatchObject({ kind: 'settled', receipts: ['message-1', 'message-2'] });
    const receipts = [];
    for await (const event of service.history(handle.id)) {
      if (event.type === 'notified' || event.type === 'reminded') receipts.push(event.data.receipt);
    }
    expect(receipts).toEqual(['message-1', 'message-2', 'message-3']);
  });

  it('reports a receipt that is not { ref } and still records the message as sent, once', async () => {
    const { service, sent, errors } = await setUp(() => ({ ref: 42 }));
    const handle = service.start({ questions: [{ question: 'Ship?', options: ['Yes', 'No'] }] });
    await until(() => sent.length === 2, 'the first message and the reminder');
    expect(sent[1]?.receipts).toBeUndefined();
    expect(String(errors[0])).toContain(
      'Expected channel "log"\'s send to resolve with nothing or { ref }',
    );
    const types = [];
    for await (const event of service.history(handle.id)) types.push(event.type);
    expect(types.filter((type) => type === 'notified')).toHaveLength(1);
    expect(types).not.toContain('callback.failed');
  });
});
