/**
 * Microsoft Teams, both sides, on loopback: the Bot Framework connector the adapter calls (send,
 * update, create a conversation) and the Bot Framework's signing half, an RSA key generated here
 * and published as the JSON Web Key Set the Teams SDK fetches to check every inbound token.
 *
 * The Chat SDK's Teams adapter does not forward the Teams SDK's `cloud` option, so the adapter
 * here (`createOfflineTeamsAdapter`) points the SDK's cloud environment at this server's OpenID
 * metadata URL before it initializes; the SDK's own JWT validation (signature, issuer, audience,
 * expiry, service URL) then runs unchanged against the key served here.
 */

import { TeamsAdapter, type TeamsAdapterConfig } from '@chat-adapter/teams';
import { ConsoleLogger } from 'chat';
import { type FakeChatApi, type RecordedCall, startFakeChatApi } from './fake-chat-api.js';
import {
  epochSeconds,
  generateSigningKey,
  signJwt,
  type TestSigningKey,
} from './fake-jwt-signer.js';

/** The Bot Framework's token issuer, the `iss` the Teams SDK requires. */
export const BOT_FRAMEWORK_ISSUER = 'https://api.botframework.com';

/** The fake Teams: connector + key server, and what Teams would send. */
export interface FakeTeamsApi extends FakeChatApi {
  /** The Bot Framework service URL activities name (`<origin>/`). */
  serviceUrl: string;
  /** The app id the tokens are issued to. */
  appId: string;
  /** The key the Bot Framework signs inbound tokens with. */
  signingKey: TestSigningKey;
  /** Activities sent (`POST /v3/conversations/:id/activities`), in order. */
  sent(): RecordedCall[];
  /** Activities updated (`PUT /v3/conversations/:id/activities/:id`), in order. */
  updated(): RecordedCall[];
  /** A Bot Framework token for this app, valid for ten minutes, with `claims` overriding. */
  inboundToken(claims?: Record<string, unknown>): string;
  /** An `Action.Submit` click on `activityId` by `userId`, as the request Teams would POST. */
  click(options: TeamsClick): Request;
  /**
   * A dialog invoke by `userId`, as Teams POSTs it: `task/fetch` when a button that opens a
   * dialog is pressed (`data` is the button's), `task/submit` when the dialog is sent (`data` is
   * the dialog's inputs and its submit action's data).
   */
  dialog(options: TeamsClick & { name: 'task/fetch' | 'task/submit' }): Request;
}

/** What a Teams card click carries. */
export interface TeamsClick {
  userId: string;
  aadObjectId?: string;
  conversationId: string;
  activityId: string;
  /** The button's `data` (`{ actionId, value }` as the Chat SDK renders it). */
  data: Record<string, unknown>;
  /** `Authorization` header value; default a valid token, `null` leaves the header out. */
  authorization?: string | null;
}

const ACTIVITIES = /^\/v3\/conversations\/(?<conversation>[^/]+)\/activities$/;
const ACTIVITY = /^\/v3\/conversations\/(?<conversation>[^/]+)\/activities\/(?<activity>[^/]+)$/;
const CONVERSATIONS = /^\/v3\/conversations$/;
const KEYS = /^\/v1\/\.well-known\/keys$/;

/** Starts the fake Teams for the app `appId` with a fresh Bot Framework signing key. */
export async function startFakeTeamsApi(appId = 'test-teams-app'): Promise<FakeTeamsApi> {
  const signingKey = generateSigningKey('bot-framework-test-key');
  let sequence = 0;
  const api = await startFakeChatApi([
    { method: 'GET', path: KEYS, answer: () => ({ body: { keys: [signingKey.jwk] } }) },
    {
      method: 'POST',
      path: ACTIVITIES,
      answer: () => ({ body: { id: `activity-${++sequence}` } }),
    },
    {
      method: 'PUT',
      path: ACTIVITY,
      answer: (_call, { activity }) => ({ body: { id: activity } }),
    },
    {
      method: 'POST',
      path: CONVERSATIONS,
      answer: (call) => ({
        body: { id: `a:dm-${JSON.stringify((call.body as { members?: unknown }).members)}` },
      }),
    },
  ]);
  const serviceUrl = `${api.origin}/`;
  const inboundToken = (claims: Record<string, unknown> = {}) =>
    signJwt(signingKey, {
      iss: BOT_FRAMEWORK_ISSUER,
      aud: appId,
      serviceurl: serviceUrl,
      nbf: epochSeconds() - 5,
      exp: epochSeconds() + 600,
      ...claims,
    });
  return {
    ...api,
    serviceUrl,
    appId,
    signingKey,
    sent: () => api.callsTo('POST', ACTIVITIES),
    updated: () => api.callsTo('PUT', ACTIVITY),
    inboundToken,
    dialog: (invoke) => {
      const activity = {
        type: 'invoke',
        name: invoke.name,
        id: `invoke-${invoke.activityId}-${invoke.userId}-${++sequence}`,
        channelId: 'msteams',
        serviceUrl,
        timestamp: new Date().toISOString(),
        from: { id: invoke.userId, aadObjectId: invoke.aadObjectId, name: invoke.userId },
        recipient: { id: `28:${appId}` },
        conversation: { id: invoke.conversationId, conversationType: 'channel' },
        replyToId: invoke.activityId,
        value: { data: invoke.data },
        channelData: {},
      };
      return new Request('http://127.0.0.1/webhooks/teams', {
        method: 'POST',
        body: JSON.stringify(activity),
        headers: { 'content-type': 'application/json', authorization: `Bearer ${inboundToken()}` },
      });
    },
    click: (click) => {
      const activity = {
        type: 'message',
        id: `click-${click.activityId}-${click.userId}-${++sequence}`,
        channelId: 'msteams',
        serviceUrl,
        timestamp: new Date().toISOString(),
        from: { id: click.userId, aadObjectId: click.aadObjectId, name: click.userId },
        recipient: { id: `28:${appId}` },
        conversation: { id: click.conversationId, conversationType: 'channel' },
        replyToId: click.activityId,
        value: click.data,
        channelData: {},
      };
      const authorization =
        click.authorization === undefined ? `Bearer ${inboundToken()}` : click.authorization;
      return new Request('http://127.0.0.1/webhooks/teams', {
        method: 'POST',
        body: JSON.stringify(activity),
        headers: {
          'content-type': 'application/json',
          ...(authorization === null ? {} : { authorization }),
        },
      });
    },
  };
}

/**
 * The Chat SDK's Teams adapter, talking to `fake` for everything: outbound calls to its service
 * URL with a bearer token signed by a key of its own (the connector fake does not check it), and
 * inbound tokens checked by the Teams SDK against `fake`'s key set.
 */
export function createOfflineTeamsAdapter(
  fake: FakeTeamsApi,
  config: Omit<TeamsAdapterConfig, 'appId'> = {},
): TeamsAdapter {
  const outboundKey = generateSigningKey('outbound');
  const outbound = signJwt(outboundKey, {
    aud: BOT_FRAMEWORK_ISSUER,
    exp: epochSeconds() + 3_600,
  });
  return new OfflineTeamsAdapter(
    {
      appId: fake.appId,
      appTenantId: 'test-tenant',
      apiUrl: fake.origin,
      token: () => outbound,
      logger: new ConsoleLogger('silent'),
      ...config,
    },
    `${fake.origin}/v1/.well-known/openidconfiguration`,
  );
}

class OfflineTeamsAdapter extends TeamsAdapter {
  constructor(config: TeamsAdapterConfig, openIdMetadataUrl: string) {
    super(config);
    // The SDK reads `cloud` once, when the adapter initializes its HTTP bridge; `readonly` in
    // its declaration, a plain field at run time.
    Object.defineProperty(this.app, 'cloud', { value: { ...this.app.cloud, openIdMetadataUrl } });
  }
}
