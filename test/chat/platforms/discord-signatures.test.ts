/**
 * Discord's inbound check through the Discord adapter's own webhook handler, offline: clicks
 * signed with a locally generated Ed25519 key, as Discord signs them. A request that fails the
 * check is answered 401 (Discord's expectation) and reaches no action handler.
 */
import { createDiscordAdapter } from '@chat-adapter/discord';
import { ConsoleLogger } from 'chat';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyDiscordRequests } from '../../../src/chat/platforms/discord-request.js';
import { type FakeDiscordApi, startFakeDiscordApi } from '../../support/fake-discord-api.js';
import { startWebhookHarness, type WebhookHarness } from './webhook-harness.js';

let discord: FakeDiscordApi;
let harness: WebhookHarness;
const click = {
  userId: '80351110224678912',
  guildId: 'G1',
  channelId: 'C1',
  messageId: 'M1',
  customId: 'ask-engine\nAAAAAAAAAAAAAAAA.o1',
};

beforeAll(async () => {
  discord = await startFakeDiscordApi();
  harness = await startWebhookHarness(
    createDiscordAdapter({
      apiUrl: discord.apiUrl,
      applicationId: 'test-application',
      botToken: 'test-bot-token',
      publicKey: discord.publicKey,
      webhookVerifier: verifyDiscordRequests({ publicKey: discord.publicKey }),
      logger: new ConsoleLogger('silent'),
    }),
  );
});
afterAll(() => discord.close());

function withHeaders(request: Request, change: (headers: Headers) => void, body?: string): Request {
  const headers = new Headers(request.headers);
  change(headers);
  return new Request(request.url, {
    method: 'POST',
    headers,
    body: body ?? request.clone().body,
    duplex: 'half',
  } as RequestInit);
}

describe('a Discord click', () => {
  it('is accepted when Discord signed it just now, with the clicking user as the platform id', async () => {
    const before = harness.actions.length;
    const answer = await harness.deliver(discord.click(click));
    expect(answer).toEqual({ status: 200, body: JSON.stringify({ type: 6 }) });
    expect(harness.actions.slice(before).map((event) => [event.user.userId, event.value])).toEqual([
      [click.userId, 'AAAAAAAAAAAAAAAA.o1'],
    ]);
  });

  it('is refused with 401 when its body was changed after signing', async () => {
    const signed = discord.click(click);
    const forged = (await signed.clone().text()).replace(click.userId, '1');
    const answer = await harness.deliver(withHeaders(signed, () => {}, forged));
    expect(answer.status).toBe(401);
    expect(harness.actions.map((event) => event.user.userId)).not.toContain('1');
  });

  it('is refused with 401 when signed more than five minutes ago, or ahead of the clock', async () => {
    const before = harness.actions.length;
    const now = Math.floor(Date.now() / 1000);
    for (const timestamp of [now - 301, now - 3_600, now + 301]) {
      expect((await harness.deliver(discord.click({ ...click, timestamp }))).status).toBe(401);
    }
    expect(harness.actions.length).toBe(before);
  });

  it('is refused with 401 when either signature header is missing', async () => {
    const before = harness.actions.length;
    for (const header of ['x-signature-ed25519', 'x-signature-timestamp']) {
      const answer = await harness.deliver(
        withHeaders(discord.click(click), (h) => h.delete(header)),
      );
      expect(answer.status).toBe(401);
    }
    expect(harness.actions.length).toBe(before);
  });

  it('is refused with 401 when signed by another key', async () => {
    const other = await startFakeDiscordApi();
    try {
      const before = harness.actions.length;
      expect((await harness.deliver(other.click(click))).status).toBe(401);
      expect(harness.actions.length).toBe(before);
    } finally {
      await other.close();
    }
  });
});

describe('Discord registering the interactions endpoint', () => {
  it('gets its signed PING answered with a PONG, and its unsigned one refused with 401', async () => {
    const body = JSON.stringify({ type: 1, id: 'ping', application_id: 'test-application' });
    const url = 'http://127.0.0.1/webhooks/discord';
    const signed = await harness.deliver(
      new Request(url, { method: 'POST', body, headers: discord.signatureHeaders(body) }),
    );
    expect(signed).toEqual({ status: 200, body: JSON.stringify({ type: 1 }) });
    const unsigned = await harness.deliver(new Request(url, { method: 'POST', body }));
    expect(unsigned.status).toBe(401);
  });
});

describe('the Discord adapter on its own', () => {
  it('accepts a click signed an hour ago, which is why ask-engine gives it verifyDiscordRequests', async () => {
    const bare = await startWebhookHarness(
      createDiscordAdapter({
        apiUrl: discord.apiUrl,
        applicationId: 'test-application',
        botToken: 'test-bot-token',
        publicKey: discord.publicKey,
        logger: new ConsoleLogger('silent'),
      }),
    );
    const answer = await bare.deliver(
      discord.click({ ...click, timestamp: Math.floor(Date.now() / 1000) - 3_600 }),
    );
    expect(answer.status).toBe(200);
    expect(bare.actions).toHaveLength(1);
  });
});

describe('verifyDiscordRequests', () => {
  it('refuses a public key that is not 64 hex characters, naming what to copy', () => {
    expect(() => verifyDiscordRequests({ publicKey: 'abc' })).toThrow(
      /64 hex characters, got 3 characters.*developer portal/,
    );
  });

  it('refuses a window that is not a whole number of seconds from 1 up', () => {
    expect(() => verifyDiscordRequests({ publicKey: discord.publicKey, maxAgeSeconds: 0 })).toThrow(
      'Expected `maxAgeSeconds` to be a whole number of seconds from 1 up, got 0.',
    );
  });
});
