/** Web Push notifications (RFC 8030/8291/8292): the payload encrypted by `web-push`, VAPID-signed. */
import { describe } from '../rules/describe.js';
import type { NotifyChannel } from './channel.js';
import { readChannelInput, readChannelName } from './channel-input.js';
import { deliveryIdFor } from './delivery-id.js';
import { postDeliveryError, postOnce, readHttpTransport } from './http-post.js';
import type { Notification } from './notification.js';
import { webPushPayloadOf } from './web-push-payload.js';
import { readWebPushSubscription } from './web-push-subscription.js';

/** The application server's VAPID identity (RFC 8292), as `webpush.generateVAPIDKeys()` makes it. */
export interface VapidDetails {
  /** Who runs the server, for the push service to reach: `mailto:…` or an `https:` URL. */
  subject: string;
  /** base64url of the 65-byte P-256 public key; the browser subscribes with it. */
  publicKey: string;
  /** base64url of the 32-byte private key. Keep it secret. */
  privateKey: string;
}

/** Options of `createWebPushChannel`. */
export interface WebPushChannelOptions {
  vapid: VapidDetails;
  /** The channel name recipients refer to; `'web-push'` unless given. */
  name?: string;
  /** How long one push may take before it counts as failed (default 10 000 ms). */
  timeoutMs?: number;
  /** The `fetch` to push with (default the global one). */
  fetch?: typeof globalThis.fetch;
}

/** How long a push service keeps an undelivered message of an ask without a deadline: 7 days. */
const OPEN_TTL_S = 7 * 24 * 60 * 60;
/** How long it keeps the message saying how an ask ended: a day. */
const SETTLED_TTL_S = 24 * 60 * 60;

type WebPushLib = typeof import('web-push');
let loaded: Promise<WebPushLib> | undefined;

/**
 * Creates a channel that pushes each notification to the recipient's browser: their address is
 * the browser's push subscription as JSON. The payload is JSON `{ title, body, url, askId, kind,
 * tag }` (`url` the recipient's signed link; `tag` the same for every message of the ask, so
 * the settled one replaces the question on screen), encrypted (aes128gcm) and signed with the
 * VAPID keys by the `web-push` package (an optional peer). Open asks are pushed with urgency
 * high and kept by the push service until their deadline (7 days without one); settled ones
 * with urgency normal for a day, under one `Topic` per ask and recipient so a newer message
 * replaces one not yet delivered. 404 or 410 means the subscription is gone: a permanent
 * failure naming it. The site's service worker shows the notification and opens `url` on a
 * click (docs/web-and-notify.md).
 *
 * @example
 * const push = createWebPushChannel({
 *   vapid: { subject: 'mailto:ops@example.com', publicKey: process.env.VAPID_PUBLIC_KEY!, privateKey: process.env.VAPID_PRIVATE_KEY! },
 * });
 * // route: () => [{ id: 'alice', channel: 'web-push', address: storedSubscriptionJson }]
 */
export function createWebPushChannel(options: WebPushChannelOptions): NotifyChannel {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`Expected web push channel options { vapid }, got ${describe(options)}.`);
  }
  const vapid = readVapid(options.vapid);
  const name = readChannelName(options.name ?? 'web-push');
  const { timeoutMs, fetch } = readHttpTransport(options);
  return {
    name,
    checkAddress: readWebPushSubscription,
    async send(value, signal) {
      signal.throwIfAborted();
      const { notification, deliveryId } = readChannelInput(name, value);
      // Checked again: an entry written before the route's check existed is not sent either.
      const subscription = readWebPushSubscription(notification.recipient.address);
      const webPush = await loadWebPush();
      const request = webPush.generateRequestDetails(subscription, webPushPayloadOf(notification), {
        vapidDetails: vapid,
        contentEncoding: 'aes128gcm',
        TTL: ttlOf(notification),
        urgency: notification.kind === 'settled' ? 'normal' : 'high',
        // One topic per ask and recipient (32 base64url characters at most).
        topic: deliveryIdFor(notification.askId, notification.recipient.id, 'created').slice(4),
      });
      const headers = Object.fromEntries(
        Object.entries(request.headers).map(([key, header]) => [key, String(header)]),
      );
      const endpoint = new URL(request.endpoint);
      const failure = await postOnce({
        fetch,
        url: endpoint,
        headers,
        body: request.body,
        timeoutMs,
        signal,
      });
      if (failure === undefined) return;
      throw postDeliveryError(
        failure,
        { channel: name, deliveryId, what: `Web push ${deliveryId} to ${endpoint.origin}` },
        (status) => {
          if (status === 404 || status === 410) {
            return ": the subscription is gone (the browser unsubscribed or it expired); remove it from the recipient's addresses";
          }
          return status === 401 || status === 403
            ? ': the push service refused the VAPID signature; check `vapid` and that the browser subscribed with its public key'
            : undefined;
        },
      );
    },
  };
}

/**
 * Seconds the push service keeps the message: from its cause until the deadline, else a week; a
 * day once settled. Read from the notification alone, so every try of a delivery asks the same.
 */
function ttlOf(notification: Notification): number {
  if (notification.kind === 'settled') return SETTLED_TTL_S;
  if (notification.deadline === undefined) return OPEN_TTL_S;
  return Math.max(60, Math.ceil((notification.deadline - notification.at) / 1000));
}

function loadWebPush(): Promise<WebPushLib> {
  loaded ??= import('web-push').then(
    (module) => ((module as { default?: WebPushLib }).default ?? module) as WebPushLib,
    (error: unknown) => {
      loaded = undefined;
      throw new Error(
        'createWebPushChannel needs the web-push package, an optional peer dependency of ask-engine: install web-push@^3.6.7.',
        { cause: error },
      );
    },
  );
  return loaded;
}

function readVapid(vapid: unknown): VapidDetails {
  const how =
    'make the keys once with `npx web-push generate-vapid-keys` (or webpush.generateVAPIDKeys()) and keep them';
  if (typeof vapid !== 'object' || vapid === null) {
    throw new TypeError(
      `Expected \`vapid\` { subject, publicKey, privateKey }, got ${describe(vapid)}; ${how}.`,
    );
  }
  const { subject, publicKey, privateKey } = vapid as Record<string, unknown>;
  let scheme: string | undefined;
  try {
    scheme = typeof subject === 'string' ? new URL(subject).protocol : undefined;
  } catch {
    scheme = undefined;
  }
  if (scheme !== 'mailto:' && scheme !== 'https:') {
    throw new TypeError(
      `Expected \`vapid.subject\` to be a mailto: address or an https: URL where the push service can reach you, got ${describe(subject)}.`,
    );
  }
  const key = (value: unknown) =>
    typeof value === 'string' && /^[A-Za-z0-9_-]+$/.test(value)
      ? Buffer.from(value, 'base64url')
      : undefined;
  const publicBytes = key(publicKey);
  if (publicBytes?.length !== 65 || publicBytes[0] !== 0x04) {
    throw new TypeError(
      `Expected \`vapid.publicKey\` to be unpadded base64url of a 65-byte P-256 public key, got ${publicBytes === undefined ? describe(publicKey) : `${publicBytes.length} bytes`}; ${how}.`,
    );
  }
  // The private key itself is never quoted back.
  const privateBytes = key(privateKey);
  if (privateBytes?.length !== 32) {
    throw new TypeError(
      `Expected \`vapid.privateKey\` to be unpadded base64url of a 32-byte P-256 private key, got ${privateBytes === undefined ? typeof privateKey : `${privateBytes.length} bytes`}; ${how}.`,
    );
  }
  return {
    subject: subject as string,
    publicKey: publicKey as string,
    privateKey: privateKey as string,
  };
}
