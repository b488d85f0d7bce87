/** A recipient's Web Push address: the browser's push subscription as JSON, checked field by field. */
import { describe } from '../rules/describe.js';

/** What `PushSubscription.toJSON()` gives in the browser, and what the channel sends to. */
export interface WebPushSubscription {
  /** The push service's URL for this browser (https; http only on the loopback, for tests). */
  endpoint: string;
  expirationTime?: number | null;
  keys: {
    /** The browser's P-256 public key, base64url of its 65-byte uncompressed point. */
    p256dh: string;
    /** The browser's 16-byte authentication secret, base64url. */
    auth: string;
  };
}

const HOW =
  "pass JSON.stringify(subscription) of the browser's `await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey })`";
const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/;
const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * Reads a recipient's address as a push subscription; throws a `TypeError` naming the field
 * that is wrong and how to get a right one. The authentication secret is never quoted back.
 */
export function readWebPushSubscription(address: unknown): WebPushSubscription {
  let value: unknown;
  try {
    value = typeof address === 'string' ? JSON.parse(address) : undefined;
  } catch {
    value = undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeError(
      `Expected \`recipient.address\` to be a push subscription as JSON, got ${typeof address === 'string' ? `a string that is no JSON object (${address.length} characters)` : describe(address)}; ${HOW}.`,
    );
  }
  const { endpoint, expirationTime, keys } = value as Record<string, unknown>;
  readEndpoint(endpoint);
  if (
    expirationTime !== undefined &&
    expirationTime !== null &&
    typeof expirationTime !== 'number'
  ) {
    throw new TypeError(
      `Expected the subscription's \`expirationTime\` to be a number or null, got ${describe(expirationTime)}; ${HOW}.`,
    );
  }
  if (typeof keys !== 'object' || keys === null) {
    throw new TypeError(
      `Expected the subscription to have \`keys\` { p256dh, auth }, got ${describe(keys)}; ${HOW}.`,
    );
  }
  const { p256dh, auth } = keys as Record<string, unknown>;
  const point = decoded(p256dh);
  if (point?.length !== 65 || point[0] !== 0x04) {
    throw new TypeError(
      `Expected the subscription's \`keys.p256dh\` to be base64url of a 65-byte P-256 public key (starting 0x04), got ${point === undefined ? describe(p256dh) : `${point.length} bytes`}; ${HOW}.`,
    );
  }
  const secret = decoded(auth);
  if (secret?.length !== 16) {
    throw new TypeError(
      `Expected the subscription's \`keys.auth\` to be base64url of a 16-byte secret, got ${secret === undefined ? typeof auth : `${secret.length} bytes`}; ${HOW}.`,
    );
  }
  return {
    endpoint: endpoint as string,
    ...(expirationTime === undefined ? {} : { expirationTime: expirationTime as number | null }),
    keys: { p256dh: p256dh as string, auth: auth as string },
  };
}

function readEndpoint(endpoint: unknown): URL {
  let url: URL | undefined;
  try {
    url = typeof endpoint === 'string' ? new URL(endpoint) : undefined;
  } catch {
    url = undefined;
  }
  const secure =
    url?.protocol === 'https:' || (url?.protocol === 'http:' && LOOPBACK.has(url.hostname));
  if (url === undefined || !secure || url.username !== '' || url.password !== '') {
    throw new TypeError(
      `Expected the subscription's \`endpoint\` to be the push service's https URL, got ${describe(endpoint)}; ${HOW}.`,
    );
  }
  return url;
}

function decoded(value: unknown): Buffer | undefined {
  return typeof value === 'string' && BASE64URL.test(value)
    ? Buffer.from(value.replace(/=+$/, ''), 'base64url')
    : undefined;
}
