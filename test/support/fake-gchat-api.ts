/**
 * Google Chat, both sides, on loopback: the Chat REST API the adapter calls (create, update a
 * message) and the signing half of a "project number" Chat app, whose webhook tokens Google
 * signs as `chat@system.gserviceaccount.com` with keys it publishes at a fixed googleapis URL.
 *
 * The adapter takes `apiUrl` for the REST API but fetches the signing certificates from that
 * fixed URL with the global `fetch`, with no option to change it, so `routeGoogleCertsTo` sends
 * that one URL (and only it) to this server while a test runs; the adapter's own verification
 * (signature, issuer, audience = project number, expiry) then runs unchanged.
 */

import { createGoogleChatAdapter, type GoogleChatAdapter } from '@chat-adapter/gchat';
import { auth } from '@googleapis/chat';
import { ConsoleLogger } from 'chat';
import { type FakeChatApi, type RecordedCall, startFakeChatApi } from './fake-chat-api.js';
import {
  epochSeconds,
  generateSigningKey,
  signJwt,
  type TestSigningKey,
} from './fake-jwt-signer.js';

/** Who signs Google Chat's webhook tokens, their `iss`. */
export const GOOGLE_CHAT_ISSUER = 'chat@system.gserviceaccount.com';
const GOOGLE_CERTS_ORIGIN = 'https://www.googleapis.com';
const CERTS = /^\/service_accounts\/v1\/metadata\/x509\/chat@system\.gserviceaccount\.com$/;
const MESSAGES = /^\/v1\/spaces\/(?<space>[^/]+)\/messages$/;
const MESSAGE = /^\/v1\/spaces\/(?<space>[^/]+)\/messages\/(?<message>[^/]+)$/;

/** The fake Google Chat. */
export interface FakeGoogleChatApi extends FakeChatApi {
  /** The Cloud project number tokens are issued to (their `aud`). */
  projectNumber: string;
  signingKey: TestSigningKey;
  /** Messages created (`POST /v1/spaces/:space/messages`), in order. */
  created(): RecordedCall[];
  /** Messages updated (`PUT /v1/spaces/:space/messages/:id`), in order. */
  updated(): RecordedCall[];
  /** A webhook token for this project, valid for ten minutes, with `claims` overriding. */
  inboundToken(claims?: Record<string, unknown>): string;
  /** A card click on `messageName` by `userName` (`users/…`), as the request Google would POST. */
  click(options: GoogleChatClick): Request;
}

/** What a Google Chat card click carries. */
export interface GoogleChatClick {
  /** The clicking user's resource name, `users/<id>`. */
  userName: string;
  spaceName: string;
  messageName: string;
  threadName?: string;
  /** The button's action parameters (`actionId`, `value` as the Chat SDK renders them). */
  parameters: Record<string, string>;
  /** `Authorization` header value; default a valid token, `null` leaves the header out. */
  authorization?: string | null;
}

/** Starts the fake Google Chat for the project `projectNumber` with a fresh signing key. */
export async function startFakeGoogleChatApi(projectNumber = '424242'): Promise<FakeGoogleChatApi> {
  const signingKey = generateSigningKey('google-chat-test-key');
  let sequence = 0;
  const message = (call: RecordedCall, name: string) => ({
    body: {
      name,
      thread: { name: `${name.split('/messages/')[0]}/threads/thread-1` },
      createTime: new Date(0).toISOString(),
      text: '',
      ...(call.body as object),
    },
  });
  const api = await startFakeChatApi([
    {
      method: 'GET',
      path: CERTS,
      answer: () => ({ body: { [signingKey.kid]: signingKey.publicPem } }),
    },
    {
      method: 'POST',
      path: MESSAGES,
      answer: (call, { space }) => message(call, `spaces/${space}/messages/message-${++sequence}`),
    },
    {
      method: 'PUT',
      path: MESSAGE,
      answer: (call, { space, message: id }) => message(call, `spaces/${space}/messages/${id}`),
    },
  ]);
  const inboundToken = (claims: Record<string, unknown> = {}) =>
    signJwt(signingKey, {
      iss: GOOGLE_CHAT_ISSUER,
      aud: projectNumber,
      iat: epochSeconds() - 5,
      exp: epochSeconds() + 600,
      ...claims,
    });
  return {
    ...api,
    projectNumber,
    signingKey,
    created: () => api.callsTo('POST', MESSAGES),
    updated: () => api.callsTo('PUT', MESSAGE),
    inboundToken,
    click: (click) => {
      const user = { name: click.userName, displayName: click.userName, type: 'HUMAN' };
      const event = {
        chat: {
          user,
          eventTime: new Date().toISOString(),
          buttonClickedPayload: {
            space: { name: click.spaceName, type: 'ROOM' },
            message: {
              name: click.messageName,
              thread: { name: click.threadName ?? `${click.spaceName}/threads/thread-1` },
            },
            user,
          },
        },
        commonEventObject: { parameters: click.parameters },
      };
      const authorization =
        click.authorization === undefined ? `Bearer ${inboundToken()}` : click.authorization;
      return new Request('http://127.0.0.1/webhooks/gchat', {
        method: 'POST',
        body: JSON.stringify(event),
        headers: {
          'content-type': 'application/json',
          ...(authorization === null ? {} : { authorization }),
        },
      });
    },
  };
}

/**
 * Sends the global `fetch` of Google's Chat signing certificates to `fake` until the returned
 * function is called; every other URL goes where it was going.
 */
export function routeGoogleCertsTo(fake: FakeChatApi): () => void {
  const original = globalThis.fetch;
  globalThis.fetch = ((input: string | URL | Request, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    const path = url.startsWith(GOOGLE_CERTS_ORIGIN) ? url.slice(GOOGLE_CERTS_ORIGIN.length) : '';
    return original(CERTS.test(path) ? `${fake.origin}${path}` : input, init);
  }) as typeof fetch;
  return () => {
    globalThis.fetch = original;
  };
}

/**
 * The Chat SDK's Google Chat adapter, talking to `fake`: the REST API at its origin with a fixed
 * access token (the fake does not check it), webhooks verified as a project-number app.
 */
export function createOfflineGoogleChatAdapter(fake: FakeGoogleChatApi): GoogleChatAdapter {
  const client = new auth.OAuth2();
  client.setCredentials({ access_token: 'test-access-token', expiry_date: Date.now() + 3_600_000 });
  return createGoogleChatAdapter({
    auth: client,
    apiUrl: fake.origin,
    googleChatProjectNumber: fake.projectNumber,
    logger: new ConsoleLogger('silent'),
  });
}
