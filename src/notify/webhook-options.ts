/** The webhook channel's options, checked once with an error that names the option and the fix. */
import { Webhook } from 'standardwebhooks';
import { type Clock, systemClock } from '../engine/clock.js';
import { describe } from '../rules/describe.js';
import { readChannelName } from './channel-input.js';
import { readHttpTransport, readHttpUrl } from './http-post.js';

/** Options of `createWebhookChannel`: where to POST, the signing secret, retries and timeouts. */
export interface WebhookChannelOptions {
  /** Where events are POSTed: an http or https URL without credentials. */
  url: string | URL;
  /** A Standard Webhooks secret: `whsec_` and the base64 of 24 to 64 random bytes. */
  secret: string;
  /** The channel name recipients refer to; `'webhook'` unless given. */
  name?: string;
  /** Tries after the first when the receiver fails in a way that may pass (default 4). */
  retries?: number;
  /** Milliseconds to wait before retry `n` (1, 2, ...); default doubles from 500 ms up to 30 s. */
  backoff?: (retry: number) => number;
  /** How long one try may take before it counts as failed (default 10 000 ms). */
  timeoutMs?: number;
  /** The `fetch` to POST with (default the global one). */
  fetch?: typeof globalThis.fetch;
  /** Time for timestamps and waits between retries (default the system clock). */
  clock?: Clock;
}

export interface ResolvedWebhookOptions {
  url: URL;
  webhook: Webhook;
  name: string;
  retries: number;
  backoff: (retry: number) => number;
  timeoutMs: number;
  fetch: typeof globalThis.fetch;
  clock: Clock;
}

export const DEFAULT_RETRIES = 4;
const MIN_SECRET_BYTES = 24;
const MAX_SECRET_BYTES = 64;

export function defaultBackoff(retry: number): number {
  return Math.min(30_000, 500 * 2 ** (retry - 1));
}

export function resolveWebhookOptions(options: WebhookChannelOptions): ResolvedWebhookOptions {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(
      `Expected webhook channel options { url, secret }, got ${describe(options)}.`,
    );
  }
  const { retries = DEFAULT_RETRIES, backoff = defaultBackoff, clock = systemClock } = options;
  if (!Number.isSafeInteger(retries) || retries < 0) {
    throw new TypeError(
      `Expected \`retries\` to be an integer from 0 and up, got ${describe(retries)}.`,
    );
  }
  if (typeof backoff !== 'function') {
    throw new TypeError(
      `Expected \`backoff\` to be a function from the retry number to milliseconds, got ${describe(backoff)}.`,
    );
  }
  const { timeoutMs, fetch } = readHttpTransport(options);
  if (typeof clock?.now !== 'function' || typeof clock.setTimeout !== 'function') {
    throw new TypeError(
      `Expected \`clock\` to have now, setTimeout and clearTimeout (like systemClock), got ${describe(clock)}.`,
    );
  }
  return {
    url: readHttpUrl(
      options.url,
      'url',
      "an http or https URL like 'https://hooks.example.com/ask'",
      'the signature authenticates each request',
    ),
    webhook: new Webhook(readSecret(options.secret)),
    name: readChannelName(options.name ?? 'webhook'),
    retries,
    backoff,
    timeoutMs,
    fetch,
    clock,
  };
}

function readSecret(secret: unknown): string {
  const base64 = typeof secret === 'string' ? secret.replace(/^whsec_/, '') : '';
  const bytes = /^[A-Za-z0-9+/]+={0,2}$/.test(base64) ? Buffer.from(base64, 'base64').length : 0;
  if (bytes < MIN_SECRET_BYTES || bytes > MAX_SECRET_BYTES) {
    // The secret itself is never quoted back.
    throw new TypeError(
      `Expected \`secret\` to be a Standard Webhooks secret, 'whsec_' and the base64 of ${MIN_SECRET_BYTES} to ${MAX_SECRET_BYTES} random bytes, got ${typeof secret === 'string' ? `a string of ${bytes} decoded bytes` : describe(secret)}; make one with 'whsec_' + crypto.randomBytes(32).toString('base64').`,
    );
  }
  return `whsec_${base64}`;
}
