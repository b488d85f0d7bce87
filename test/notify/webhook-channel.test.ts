/** The webhook channel against a real HTTP receiver on loopback that verifies each signature. */
import { randomBytes } from 'node:crypto';
import type { Clock } from 'ask-engine';
import {
  createWebhookChannel,
  deliveryIdFor,
  type Notification,
  NotificationDeliveryError,
  type WebhookChannelOptions,
} from 'ask-engine/notify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AT, created } from './notifications.js';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.js';

const secret = `whsec_${randomBytes(32).toString('base64')}`;
const recipient = { id: 'ops', channel: 'webhook', address: 'ops-team' };
const signal = new AbortController().signal;
let receiver: WebhookReceiver;

/** Real time for timestamps; waits between retries are recorded and run at once. */
function recordingClock(): Clock & { waits: number[] } {
  const waits: number[] = [];
  return {
    waits,
    now: () => Date.now(),
    setTimeout(fn, ms) {
      waits.push(ms);
      queueMicrotask(fn);
      return 0;
    },
    clearTimeout() {},
  };
}

/** A clock whose waits never end: only an abort gets a send out of its backoff. */
function stoppedClock(): Clock {
  return { now: () => Date.now(), setTimeout: () => 0, clearTimeout() {} };
}

function channel(options: Partial<WebhookChannelOptions> = {}) {
  return createWebhookChannel({ url: receiver.url, secret, clock: recordingClock(), ...options });
}

function notification(overrides: Partial<Notification> = {}): Notification {
  return created({ recipient, ...overrides });
}

beforeAll(async () => {
  receiver = await startWebhookReceiver(secret);
});
afterAll(async () => {
  await receiver.close();
});
beforeEach(() => {
  receiver.received.length = 0;
  receiver.respond = (res) => res.writeHead(204).end();
});

describe('the webhook channel', () => {
  it('POSTs a signed ask.created event that standardwebhooks verifies', async () => {
    await channel().send(notification(), signal);

    expect(receiver.received).toHaveLength(1);
    const [hook] = receiver.received as [(typeof receiver.received)[0]];
    expect(hook.verified).toEqual({ ok: true, payload: expect.anything() });
    expect(hook.headers['webhook-id']).toBe(deliveryIdFor('ask_1', 'ops', 'created'));
    expect(hook.headers['content-type']).toBe('application/json');
    const { kind: _kind, ...data } = notification();
    expect(JSON.parse(hook.body)).toEqual({
      type: 'ask.created',
      timestamp: new Date(AT).toISOString(),
      data,
    });
  });

  it('names every kind of notification as its event type', async () => {
    const hook = channel();
    await hook.send(notification({ kind: 'reminded', seq: 1 } as Partial<Notification>), signal);
    await hook.send(notification({ kind: 'escalated', seq: 1 } as Partial<Notification>), signal);
    const settled = {
      ...notification(),
      kind: 'settled',
      outcome: {
        status: 'answered',
        at: AT + 5,
        answeredBy: { recipient: 'alice', channel: 'email' },
      },
    } as Notification;
    await hook.send(settled, signal);

    const events = receiver.received.map(({ body }) => JSON.parse(body));
    expect(events.map((event) => event.type)).toEqual([
      'ask.reminded',
      'ask.escalated',
      'ask.settled',
    ]);
    expect(events[2].data.outcome).toEqual({
      status: 'answered',
      at: AT + 5,
      answeredBy: { recipient: 'alice', channel: 'email' },
    });
    expect(receiver.received.every(({ verified }) => verified.ok)).toBe(true);
  });

  it('retries a 500 after backoff with the same webhook-id and a fresh signature', async () => {
    receiver.respond = (res, n) => res.writeHead(n <= 2 ? 500 : 200).end();
    const clock = recordingClock();
    await channel({ clock }).send(notification(), signal);

    expect(receiver.received).toHaveLength(3);
    const ids = new Set(receiver.received.map(({ headers }) => headers['webhook-id']));
    expect([...ids]).toEqual([deliveryIdFor('ask_1', 'ops', 'created')]);
    expect(new Set(receiver.received.map(({ body }) => body)).size).toBe(1);
    expect(receiver.received.every(({ verified }) => verified.ok)).toBe(true);
    expect(clock.waits).toEqual([500, 1000]);
  });

  it('retries 408 and 429, waiting as long as Retry-After asks', async () => {
    receiver.respond = (res, n) => {
      if (n === 1) res.writeHead(408).end();
      else if (n === 2) res.writeHead(429, { 'retry-after': '7' }).end();
      else res.writeHead(202).end();
    };
    const clock = recordingClock();
    await channel({ clock, backoff: () => 100 }).send(notification(), signal);

    expect(receiver.received).toHaveLength(3);
    expect(clock.waits).toEqual([100, 7000]);
  });

  it('does not retry a 4xx answer, a redirect, or any other refusal', async () => {
    for (const status of [400, 401, 404, 410, 302]) {
      receiver.received.length = 0;
      receiver.respond = (res) => res.writeHead(status, { location: 'http://127.0.0.1:1/' }).end();
      const error = await channel()
        .send(notification(), signal)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NotificationDeliveryError);
      expect(error).toMatchObject({ status, retryable: false, attempts: 1, channel: 'webhook' });
      expect(receiver.received).toHaveLength(1);
    }
  });

  it('gives up after the last retry with a retryable error naming the tries', async () => {
    receiver.respond = (res) => res.writeHead(503).end();
    const error = await channel({ retries: 2 })
      .send(notification(), signal)
      .catch((e: unknown) => e);

    expect(receiver.received).toHaveLength(3);
    expect(error).toMatchObject({
      retryable: true,
      attempts: 3,
      status: 503,
      deliveryId: deliveryIdFor('ask_1', 'ops', 'created'),
    });
    expect((error as Error).message).toMatch(/was not accepted after 3 tries: HTTP 503/);
  });

  it('counts a receiver that does not answer within timeoutMs as a failed try and retries it', async () => {
    receiver.respond = (res, n) => {
      if (n === 2) res.writeHead(200).end();
      // The first request is left hanging.
    };
    // 500 ms: the answered retry must arrive in time on a loaded machine too.
    await channel({ timeoutMs: 500, retries: 1 }).send(notification(), signal);
    expect(receiver.received.map(({ headers }) => headers['webhook-id'])).toEqual([
      deliveryIdFor('ask_1', 'ops', 'created'),
      deliveryIdFor('ask_1', 'ops', 'created'),
    ]);

    receiver.received.length = 0;
    receiver.respond = () => {};
    const error = await channel({ timeoutMs: 50, retries: 0 })
      .send(notification(), signal)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ retryable: true, attempts: 1 });
    expect((error as Error).message).toMatch(/no answer within 50 ms/);
  });

  it('stops at once when the signal aborts, during a request or a backoff, with the reason', async () => {
    receiver.respond = () => {};
    const during = new AbortController();
    const sending = channel().send(notification(), during.signal);
    await receiver.arrived(1);
    const reason = new Error('shutting down');
    during.abort(reason);
    await expect(sending).rejects.toBe(reason);

    receiver.received.length = 0;
    receiver.respond = (res) => res.writeHead(500).end();
    const backingOff = new AbortController();
    const waiting = channel({ clock: stoppedClock() }).send(notification(), backingOff.signal);
    await receiver.arrived(1);
    backingOff.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    expect(receiver.received).toHaveLength(1);

    await expect(channel().send(notification(), AbortSignal.abort(reason))).rejects.toBe(reason);
    expect(receiver.received).toHaveLength(1);
  });

  it('validates its options with errors that name the option', () => {
    const url = 'https://hooks.example.com/ask';
    expect(() => createWebhookChannel({ url: 'ftp://x', secret })).toThrow(
      /`url` to be an http or https URL/,
    );
    expect(() => createWebhookChannel({ url: 'https://u:p@hooks.example.com', secret })).toThrow(
      /without a user name or password/,
    );
    expect(() => createWebhookChannel({ url, secret: 'whsec_c2hvcnQ=' })).toThrow(
      /`secret` to be a Standard Webhooks secret.*got a string of 5 decoded bytes/,
    );
    expect(() => createWebhookChannel({ url, secret, retries: -1 })).toThrow(
      /`retries` to be an integer/,
    );
    expect(() => createWebhookChannel({ url, secret, timeoutMs: 0 })).toThrow(/`timeoutMs`/);
    expect(() => createWebhookChannel({ url, secret, backoff: 5 as never })).toThrow(/`backoff`/);
    expect(() => createWebhookChannel({ url, secret, name: '' })).toThrow(/`name`/);
    // A secret without its prefix is the same secret.
    expect(createWebhookChannel({ url, secret: secret.slice('whsec_'.length) }).name).toBe(
      'webhook',
    );
  });

  it('sends nothing for a notification that is not valid, naming the field', async () => {
    const bad = notification({ recipient: { id: 'ops', channel: 'webhook' } as never });
    await expect(channel().send(bad, signal)).rejects.toThrow(
      /Invalid created notification at `recipient.address`/,
    );
    expect(receiver.received).toHaveLength(0);
  });
});
