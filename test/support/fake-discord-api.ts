/**
 * Discord, both sides, on loopback: the REST API the adapter calls (post, edit, open a DM, an
 * interaction's follow-up) and the signing half of HTTP Interactions, with an Ed25519 key pair
 * generated here, so a click reaches the adapter's webhook signed exactly as Discord signs it
 * (hex Ed25519 over timestamp + body, in `x-signature-ed25519` / `x-signature-timestamp`).
 */
import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { type FakeChatApi, type RecordedCall, startFakeChatApi } from './fake-chat-api.js';

/** The fake Discord: its API base URL for `createDiscordAdapter({ apiUrl })` and its key. */
export interface FakeDiscordApi extends FakeChatApi {
  /** `<origin>/api/v10`, the adapter's `apiUrl`. */
  apiUrl: string;
  /** The application's public key, hex, as the developer portal shows it (`publicKey`). */
  publicKey: string;
  /** Messages created (`POST /channels/:id/messages`), in order. */
  posted(): RecordedCall[];
  /** Messages edited (`PATCH /channels/:id/messages/:id`), in order. */
  edited(): RecordedCall[];
  /** Follow-up messages to an interaction (`POST /webhooks/:app/:token`), in order. */
  followUps(): RecordedCall[];
  /** Headers Discord would send with `body`, signed at `timestamp` (seconds, default now). */
  signatureHeaders(body: string, timestamp?: number): Record<string, string>;
  /** A button click on `messageId` by `userId`, as the signed request Discord would POST. */
  click(options: DiscordClick): Request;
}

/** What a click carries: who clicked, where, and the button's `custom_id`. */
export interface DiscordClick {
  userId: string;
  userName?: string;
  guildId?: string;
  channelId: string;
  messageId: string;
  customId: string;
  /** The webhook URL the request is addressed to. */
  url?: string;
  /** Seconds since the epoch the signature claims; default now. */
  timestamp?: number;
}

const MESSAGES = /^\/api\/v10\/channels\/(?<channel>[^/]+)\/messages$/;
const MESSAGE = /^\/api\/v10\/channels\/(?<channel>[^/]+)\/messages\/(?<message>[^/]+)$/;
const DM = /^\/api\/v10\/users\/@me\/channels$/;
const FOLLOW_UP = /^\/api\/v10\/webhooks\/(?<app>[^/]+)\/(?<token>[^/]+)$/;

/** Starts the fake Discord with a fresh key pair. */
export async function startFakeDiscordApi(): Promise<FakeDiscordApi> {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  // The raw 32-byte key is the tail of its SPKI encoding; Discord shows it as hex.
  const publicHex = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('hex');
  let sequence = 1_000;
  const message = (call: RecordedCall, channel: string, id: string) => ({
    body: {
      id,
      channel_id: channel,
      author: { id: 'bot-user', username: 'askbot', bot: true },
      timestamp: new Date(0).toISOString(),
      attachments: [],
      embeds: [],
      components: [],
      content: '',
      ...(call.body as object),
    },
  });
  const api = await startFakeChatApi([
    {
      method: 'POST',
      path: MESSAGES,
      answer: (call, { channel = '' }) => message(call, channel, String(++sequence)),
    },
    {
      method: 'PATCH',
      path: MESSAGE,
      answer: (call, { channel = '', message: id = '' }) => message(call, channel, id),
    },
    {
      method: 'POST',
      path: DM,
      answer: (call) => ({
        body: { id: `dm-${(call.body as { recipient_id: string }).recipient_id}`, type: 1 },
      }),
    },
    {
      method: 'POST',
      path: FOLLOW_UP,
      answer: (call) => message(call, 'follow-up', String(++sequence)),
    },
  ]);
  const signatureHeaders = (body: string, timestamp = Math.floor(Date.now() / 1000)) => ({
    'content-type': 'application/json',
    'x-signature-timestamp': String(timestamp),
    'x-signature-ed25519': signWith(privateKey, `${timestamp}${body}`),
  });
  return {
    ...api,
    apiUrl: `${api.origin}/api/v10`,
    publicKey: publicHex,
    posted: () => api.callsTo('POST', MESSAGES),
    edited: () => api.callsTo('PATCH', MESSAGE),
    followUps: () => api.callsTo('POST', FOLLOW_UP),
    signatureHeaders,
    click: (click) => {
      const body = JSON.stringify(discordClickBody(click));
      return new Request(click.url ?? 'http://127.0.0.1/webhooks/discord', {
        method: 'POST',
        body,
        headers: signatureHeaders(body, click.timestamp),
      });
    },
  };
}

/** The MESSAGE_COMPONENT interaction (type 3) Discord sends for a button click. */
export function discordClickBody(click: DiscordClick): Record<string, unknown> {
  const user = { id: click.userId, username: click.userName ?? click.userId };
  return {
    type: 3,
    id: `interaction-${click.messageId}-${click.userId}`,
    application_id: 'test-application',
    token: `interaction-token-${click.userId}`,
    version: 1,
    channel_id: click.channelId,
    ...(click.guildId === undefined
      ? { user }
      : { guild_id: click.guildId, member: { user, roles: [] } }),
    message: { id: click.messageId, channel_id: click.channelId },
    data: { custom_id: click.customId, component_type: 2 },
  };
}

function signWith(privateKey: KeyObject, text: string): string {
  return sign(null, Buffer.from(text), privateKey).toString('hex');
}
