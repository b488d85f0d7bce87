/**
 * The Web Push channel with the real `web-push` package: pushes go to a local HTTP receiver
 * standing in for the push service, and the test decrypts them with the test subscription's
 * own keys and checks the VAPID signature, as a browser and a push service would.
 */
import { createInteractionService } from 'ask-engine';
import {
  createNotifyProvider,
  createWebPushChannel,
  NotificationDeliveryError,
  type WebPushPayload,
} from 'ask-engine/notify';
import { createWebAnswerServer } from 'ask-engine/web';
import { afterEach, describe, expect, it } from 'vitest';
import webPush from 'web-push';
import { answerThroughLink } from './answer-link.js';
import { startHttpRecorder } from './http-recorder.js';
import { created } from './notifications.js';
import { createTestSubscription, verifyVapid } from './web-push-browser.js';

const cleanups: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const keys = webPush.generateVAPIDKeys();
const vapid = { subject: 'mailto:ops@example.com', ...keys };

async function pushService() {
  const recorder = await startHttpRecorder();
  cleanups.push(() => recorder.close());
  const subscription = createTestSubscription(`${recorder.url}/push/v2/sub-7f3a`);
  return { recorder, subscription, address: JSON.stringify(subscription.json) };
}

describe('createWebPushChannel', () => {
  it('pushes an encrypted, VAPID-signed payload whose link answers, then says how the ask ended', async () => {
    const { recorder, subscription, address } = await pushService();
    const service = createInteractionService();
    cleanups.push(() => service.close());
    const server = await createWebAnswerServer({ service, secret: 's'.repeat(32) });
    cleanups.push(() => server.close());
    const provider = createNotifyProvider({
      server,
      channels: [createWebPushChannel({ vapid })],
      route: () => [{ id: 'alice', channel: 'web-push', address }],
      delivery: { pollMs: 50 },
    });
    cleanups.push(() => provider.close());
    service.registerProvider(provider);

    const handle = service.start(
      { questions: [{ question: 'Ship release 4.2?', options: ['Ship it', 'Hold'] }] },
      { timeoutMs: 600_000 },
    );
    await handle.outcome;
    await recorder.arrived(1);
    const push = recorder.received[0]!;
    expect(push.method).toBe('POST');
    expect(push.path).toBe('/push/v2/sub-7f3a');
    expect(push.headers['content-encoding']).toBe('aes128gcm');
    expect(push.headers.urgency).toBe('high');
    // Kept until the deadline: 600 s from the start, less the moment the deferral took.
    expect(Number(push.headers.ttl)).toBeGreaterThan(590);
    expect(Number(push.headers.ttl)).toBeLessThanOrEqual(600);
    expect(push.headers.topic).toMatch(/^[0-9a-f]{32}$/);

    const { header, claims, publicKey } = verifyVapid(push.headers.authorization);
    expect(header).toEqual({ typ: 'JWT', alg: 'ES256' });
    expect(publicKey).toBe(keys.publicKey);
    expect(claims.aud).toBe(recorder.url);
    expect(claims.sub).toBe('mailto:ops@example.com');
    expect(claims.exp * 1000).toBeGreaterThan(Date.now());
    expect(claims.exp * 1000).toBeLessThanOrEqual(Date.now() + 24 * 3_600_000);

    const payload = JSON.parse(subscription.decrypt(push.body)) as WebPushPayload;
    expect(payload).toMatchObject({
      title: 'Your answer is needed',
      askId: handle.id,
      kind: 'created',
      tag: `ask-engine:${handle.id}`,
    });
    expect(payload.body).toContain('Ship release 4.2?\n1. Ship it  2. Hold\nPick one.');
    expect(payload.url).toMatch(new RegExp(`^${server.url}/a/[^?]+\\?t=`));

    // The service worker opens the url; the person answers there, as alice through web-push.
    expect((await answerThroughLink(payload.url!, 1)).status).toBe(200);
    expect((await service.get(handle.id))?.outcome).toMatchObject({
      status: 'answered',
      answeredBy: { recipient: 'alice', channel: 'web-push' },
    });

    await recorder.arrived(2);
    const settled = recorder.received[1]!;
    expect(settled.headers.urgency).toBe('normal');
    expect(settled.headers.topic).toBe(push.headers.topic);
    expect(JSON.parse(subscription.decrypt(settled.body))).toMatchObject({
      title: 'Answered',
      kind: 'settled',
      tag: `ask-engine:${handle.id}`,
    });
  });

  it('fails for good when the push service says the subscription is gone, and retryably on a 503', async () => {
    const { recorder, address } = await pushService();
    const channel = createWebPushChannel({ vapid });
    const notification = created({ recipient: { id: 'alice', channel: 'web-push', address } });

    recorder.respond = (res) =>
      res.writeHead(410).end('push subscription has unsubscribed or expired');
    const gone = await channel.send(notification, new AbortController().signal).catch((e) => e);
    expect(gone).toBeInstanceOf(NotificationDeliveryError);
    expect(gone).toMatchObject({ retryable: false, status: 410, channel: 'web-push' });
    expect(gone.message).toMatch(/HTTP 410 .*subscription is gone/);

    recorder.respond = (res) => res.writeHead(503).end();
    const busy = await channel.send(notification, new AbortController().signal).catch((e) => e);
    expect(busy).toMatchObject({ retryable: true, status: 503 });
  });

  it('carries hostile text as inert text, and says so when a question is too long for one push', async () => {
    const { recorder, subscription, address } = await pushService();
    const channel = createWebPushChannel({ vapid });
    const recipient = { id: 'alice', channel: 'web-push', address };
    const hostile = created({
      recipient,
      questions: [
        {
          ...created().questions[0]!,
          question: 'Ship?\u001b]8;;https://evil.example\u0007 <img src=x onerror=alert(1)> \u202e',
        },
      ],
    });
    await channel.send(hostile, new AbortController().signal);
    const body = (JSON.parse(subscription.decrypt(recorder.received[0]!.body)) as WebPushPayload)
      .body;
    expect(body).toContain(
      'Ship?\\x1b]8;;https://evil.example\\x07 <img src=x onerror=alert(1)> \\u202e',
    );

    const long = created({
      recipient,
      questions: [{ ...created().questions[0]!, question: 'x'.repeat(5000) }],
    });
    await channel.send(long, new AbortController().signal);
    const payload = JSON.parse(subscription.decrypt(recorder.received[1]!.body)) as WebPushPayload;
    expect(payload.body).toMatch(/too long to show here \(\d+ bytes; a push holds up to 3993\)/);
    expect(payload.url).toBe(created().link);
  });

  it('names what is wrong with a subscription and with the VAPID keys, never quoting a secret', () => {
    const channel = createWebPushChannel({ vapid });
    const good = createTestSubscription('https://push.example.net/v2/abc').json;
    const check = (value: unknown) => () => channel.checkAddress?.(JSON.stringify(value));
    expect(check(good)).not.toThrow();
    expect(() => channel.checkAddress?.('alice@example.com')).toThrow(
      /push subscription as JSON.*pushManager\.subscribe/,
    );
    expect(check({ ...good, endpoint: 'http://push.example.net/v2/abc' })).toThrow(
      /`endpoint`.*https/,
    );
    expect(check({ ...good, keys: { ...good.keys, p256dh: 'AAAA' } })).toThrow(
      /`keys\.p256dh`.*got 3 bytes/,
    );
    const wrongAuth = { ...good, keys: { ...good.keys, auth: 'c2VjcmV0LXNlY3JldA' } };
    expect(check(wrongAuth)).toThrow(/`keys\.auth`.*got 13 bytes/);
    expect(check(wrongAuth)).not.toThrow(/c2VjcmV0/);
    expect(check({ endpoint: good.endpoint })).toThrow(/`keys`/);

    expect(() => createWebPushChannel({ vapid: { ...vapid, subject: 'ops@example.com' } })).toThrow(
      /`vapid.subject`.*mailto:/,
    );
    expect(() => createWebPushChannel({ vapid: { ...vapid, publicKey: 'abc' } })).toThrow(
      /`vapid.publicKey`.*generate-vapid-keys/,
    );
    const shortKey = `${vapid.privateKey.slice(0, 20)}`;
    expect(() => createWebPushChannel({ vapid: { ...vapid, privateKey: shortKey } })).toThrow(
      /`vapid.privateKey`.*got 15 bytes/,
    );
    expect(() => createWebPushChannel({ vapid: { ...vapid, privateKey: shortKey } })).not.toThrow(
      shortKey,
    );
  });
});
