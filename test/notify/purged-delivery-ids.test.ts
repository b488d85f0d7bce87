/**
 * Delivery ids (an email's Message-ID, a webhook's id) hash the ask id, so they repeat when an
 * ask id does: the next ask under a purged ask's key had its id, and its notifications the ids
 * of the purged ask's, which a receiver drops as duplicates. Ask ids are never reused now, so
 * neither are delivery ids.
 */
import { createInteractionService, createMemoryAskStore } from 'ask-engine';
import { createNotifyProvider, deliveryIdFor, type Notification } from 'ask-engine/notify';
import { createAnswerApp } from 'ask-engine/web';
import { describe, expect, it, vi } from 'vitest';

/** The delivery id of a sent notification, as the email and webhook channels derive it. */
function deliveryIdOf(notification: Notification): string {
  const seq = 'seq' in notification ? notification.seq : undefined;
  return deliveryIdFor(notification.askId, notification.recipient.id, notification.kind, seq);
}

describe('delivery ids after a purge', () => {
  it('never repeat: the next start under a purged ask’s key sends nothing, a new key new ids', async () => {
    const store = createMemoryAskStore();
    const service = createInteractionService({ store });
    const app = createAnswerApp({ service, secret: 'a'.repeat(32), baseUrl: 'https://asks.test' });
    const sent: string[] = [];
    const provider = createNotifyProvider({
      server: app,
      store,
      channels: [
        { name: 'chat', send: async (notification) => void sent.push(deliveryIdOf(notification)) },
      ],
      route: () => [{ id: 'alice', channel: 'chat', address: 'alice-handle' }],
      delivery: { pollMs: 20 },
    });
    service.registerProvider(provider);
    const request = { question: 'Rotate the API key?', options: ['Yes', 'No'] };

    const first = service.start(request, { key: 'rotate-1' });
    await vi.waitFor(() => expect(sent).toHaveLength(1));
    await service.cancel(first.id);
    await vi.waitFor(() => expect(sent).toHaveLength(2)); // created, settled
    const firstIds = [...sent];
    expect(await service.purge({ finalBefore: Date.now() + 1_000 })).toBe(1);

    const again = service.start(request, { key: 'rotate-1' });
    await expect(again.stored).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    const next = service.start(request, { key: 'rotate-2' });
    await vi.waitFor(() => expect(sent).toHaveLength(3));
    expect(new Set(sent).size).toBe(sent.length);
    expect(firstIds).not.toContain(sent[2]);
    expect(sent[2]).toBe(deliveryIdFor(next.id, 'alice', 'created'));

    await provider.close();
    app.close();
    await service.close();
  });
});
