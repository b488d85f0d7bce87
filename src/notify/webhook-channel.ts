/** Webhook notifications signed per Standard Webhooks, retried with backoff under one webhook-id. */

import { sleep } from '../engine/abortable.js';
import { messageOf } from '../rules/describe.js';
import type { NotifyChannel } from './channel.js';
import { readChannelInput } from './channel-input.js';
import { NotificationDeliveryError } from './delivery-error.js';
import { postOnce } from './http-post.js';
import { webhookBodyOf } from './webhook-event.js';
import {
  type ResolvedWebhookOptions,
  resolveWebhookOptions,
  type WebhookChannelOptions,
} from './webhook-options.js';

/** Longest `Retry-After` honoured inside one send; a longer wait is for the caller to schedule. */
const MAX_RETRY_AFTER_MS = 60_000;

/**
 * Creates a channel that POSTs `ask.created`, `ask.reminded`, `ask.escalated` and `ask.settled`
 * events to `url`, signed with `secret` (headers `webhook-id`, `webhook-timestamp`,
 * `webhook-signature`). A 2xx answer delivers. A timeout, a lost connection, a 5xx, 408 or 429
 * is retried after `backoff` (or the receiver's `Retry-After`), with the same `webhook-id` and a
 * fresh timestamp and signature; any other answer fails at once. Receivers verify with
 * `new Webhook(secret).verify(body, headers)` from the `standardwebhooks` package.
 *
 * @example
 * const hook = createWebhookChannel({ url: 'https://hooks.example.com/ask', secret: process.env.WEBHOOK_SECRET! });
 */
export function createWebhookChannel(options: WebhookChannelOptions): NotifyChannel {
  const resolved = resolveWebhookOptions(options);
  const { name } = resolved;
  return {
    name,
    async send(value, signal) {
      signal.throwIfAborted();
      const { notification, deliveryId } = readChannelInput(name, value);
      await deliver(resolved, deliveryId, webhookBodyOf(notification), signal);
    },
  };
}

interface Attempt {
  retryable: boolean;
  status?: number;
  retryAfterMs?: number;
  cause?: unknown;
}

async function deliver(
  options: ResolvedWebhookOptions,
  id: string,
  body: string,
  signal: AbortSignal,
): Promise<void> {
  const { retries, backoff, clock, name, url } = options;
  for (let attempt = 1; ; attempt++) {
    const result = await tryOnce(options, id, body, signal);
    if (result === undefined) return;
    if (!result.retryable || attempt > retries) {
      const what = result.status === undefined ? messageOf(result.cause) : `HTTP ${result.status}`;
      throw new NotificationDeliveryError(
        `Webhook ${id} to ${url.origin} was not accepted after ${attempt} ${attempt === 1 ? 'try' : 'tries'}: ${what}${result.retryable ? '' : ' (not retried: the same request would fail again)'}.`,
        {
          channel: name,
          deliveryId: id,
          attempts: attempt,
          retryable: result.retryable,
          ...(result.status === undefined ? {} : { status: result.status }),
        },
        { cause: result.cause },
      );
    }
    const wait = backoff(attempt);
    if (!Number.isFinite(wait) || wait < 0) {
      throw new TypeError(
        `Expected \`backoff(${attempt})\` to return milliseconds from 0 up, got ${String(wait)}.`,
      );
    }
    await sleep(
      clock,
      Math.max(wait, Math.min(result.retryAfterMs ?? 0, MAX_RETRY_AFTER_MS)),
      signal,
    );
  }
}

/** One POST, signed at this try: undefined when delivered, otherwise what went wrong. */
async function tryOnce(
  { url, webhook, timeoutMs, fetch, clock }: ResolvedWebhookOptions,
  id: string,
  body: string,
  signal: AbortSignal,
): Promise<Attempt | undefined> {
  // Signed at each try: receivers refuse timestamps older than a few minutes.
  const timestamp = new Date(clock.now());
  const headers = {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': webhook.sign(id, timestamp, body),
  };
  const failure = await postOnce({ fetch, url, headers, body, timeoutMs, signal });
  if (failure === undefined) return undefined;
  const { retryable, status, cause } = failure;
  const retryAfterMs = retryAfterOf(failure.retryAfter ?? null, clock.now());
  return {
    retryable,
    ...(status === undefined ? {} : { status }),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    ...(cause === undefined ? {} : { cause }),
  };
}

/** `Retry-After` in seconds or as an HTTP date, as milliseconds from `now`. */
function retryAfterOf(header: string | null, now: number): number | undefined {
  if (header === null) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
