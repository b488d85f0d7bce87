/** One HTTP POST of a channel (webhook, ntfy, Web Push), and what its answer means for a retry. */
import { describe, messageOf } from '../rules/describe.js';
import { NotificationDeliveryError } from './delivery-error.js';

/**
 * Whether a later try of the same request may succeed: a 5xx, 408 (timeout) or 429 (rate
 * limited). Any other 4xx fails the same way every time.
 */
export function isRetryableStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

/** How long one POST of a channel may take unless its `timeoutMs` says otherwise (ms). */
export const DEFAULT_HTTP_TIMEOUT_MS = 10_000;

/**
 * The transport options every HTTP channel takes, checked: `timeoutMs` (a whole number of
 * milliseconds from 1, default 10 s) and `fetch` (default the global one).
 */
export function readHttpTransport(options: { timeoutMs?: unknown; fetch?: unknown }): {
  timeoutMs: number;
  fetch: typeof globalThis.fetch;
} {
  const { timeoutMs = DEFAULT_HTTP_TIMEOUT_MS, fetch = globalThis.fetch } = options;
  if (!Number.isSafeInteger(timeoutMs) || (timeoutMs as number) < 1) {
    throw new TypeError(
      `Expected \`timeoutMs\` to be a whole number of milliseconds from 1 and up, got ${describe(timeoutMs)}.`,
    );
  }
  if (typeof fetch !== 'function') {
    throw new TypeError(`Expected \`fetch\` to be a function, got ${describe(fetch)}.`);
  }
  return { timeoutMs: timeoutMs as number, fetch: fetch as typeof globalThis.fetch };
}

/**
 * An http or https URL given as `field` (a string or a `URL`), without a user name or password:
 * refused naming `field`, an example (`like`), and what authenticates instead (`credentials`).
 */
export function readHttpUrl(value: unknown, field: string, like: string, credentials: string): URL {
  let url: URL | undefined;
  try {
    url = typeof value === 'string' || value instanceof URL ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw new TypeError(
      `Expected \`${field}\` to be ${like}, got ${describe(value instanceof URL ? value.href : value)}.`,
    );
  }
  if (url.username !== '' || url.password !== '') {
    throw new TypeError(`Expected \`${field}\` without a user name or password: ${credentials}.`);
  }
  return url;
}

export interface PostRequest {
  fetch: typeof globalThis.fetch;
  url: URL;
  headers: Record<string, string>;
  body: string | Uint8Array;
  timeoutMs: number;
  signal: AbortSignal;
}

/** Why a POST did not deliver, and whether trying again may help. */
export interface PostFailure {
  retryable: boolean;
  /** The receiver's status, when it answered. */
  status?: number;
  /** The receiver's own words, quoted: its JSON `error`, or its text's first line. */
  said?: string;
  /** The receiver's `Retry-After` header, as it was sent. */
  retryAfter?: string;
  /** What failed when there was no answer: the lost connection, or the timeout. */
  cause?: unknown;
}

/** Longest part of a refusal's body read for its words; the rest is not read. */
const MAX_SAID_BYTES = 1024;

/**
 * POSTs once, without following redirects (a redirect would resend the message somewhere the
 * sender never chose). Resolves `undefined` when the receiver accepted (2xx), otherwise with
 * why not: a lost connection or no answer within `timeoutMs` is retryable, a status as
 * `isRetryableStatus` says. Rejects with `signal.reason` once `signal` aborts.
 */
export async function postOnce(request: PostRequest): Promise<PostFailure | undefined> {
  const { fetch, url, headers, body, timeoutMs, signal } = request;
  const timeout = AbortSignal.timeout(timeoutMs);
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers,
      body: body as BodyInit,
      redirect: 'manual',
      signal: AbortSignal.any([signal, timeout]),
    });
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    return {
      retryable: true,
      cause: timeout.aborted ? new Error(`no answer within ${timeoutMs} ms`) : error,
    };
  }
  const { status } = response;
  if (status >= 200 && status < 300) {
    // Only the status counts; the connection is freed for the next send.
    await response.body?.cancel().catch(() => {});
    return undefined;
  }
  const said = await saidIn(response);
  const retryAfter = response.headers.get('retry-after');
  return {
    retryable: isRetryableStatus(status),
    status,
    ...(said === undefined ? {} : { said }),
    ...(retryAfter === null ? {} : { retryAfter }),
  };
}

/**
 * A one-try channel's error for a failed POST: `what` was not delivered, the receiver's status
 * and words (or why there was no answer), and `hint(status)` where the sender can fix it
 * (otherwise, for a permanent failure, that the same request would fail again).
 */
export function postDeliveryError(
  failure: PostFailure,
  delivery: { channel: string; deliveryId: string; what: string },
  hint: (status: number) => string | undefined = () => undefined,
): NotificationDeliveryError {
  const { status, said, retryable, cause } = failure;
  const { channel, deliveryId, what } = delivery;
  let why: string;
  if (status === undefined) why = messageOf(cause);
  else {
    const advice =
      hint(status) ?? (retryable ? '' : ' (not retried: the same request would fail again)');
    why = `HTTP ${status}${said === undefined ? '' : ` ${said}`}${advice}`;
  }
  return new NotificationDeliveryError(
    `${what} was not delivered: ${why}.`,
    { channel, deliveryId, attempts: 1, retryable, ...(status === undefined ? {} : { status }) },
    { cause },
  );
}

/** The `error` of a JSON body (ntfy's, a push service's) or the first line of a text one. */
async function saidIn(response: Response): Promise<string | undefined> {
  const reader = response.body?.getReader();
  if (reader === undefined) return undefined;
  const chunks: Uint8Array[] = [];
  let size = 0;
  let cut = false;
  try {
    while (size <= MAX_SAID_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.length;
    }
    cut = size > MAX_SAID_BYTES;
  } catch {
    return undefined;
  } finally {
    await reader.cancel().catch(() => {});
  }
  const text = new TextDecoder().decode(Buffer.concat(chunks).subarray(0, MAX_SAID_BYTES)).trim();
  if (text === '') return undefined;
  if (!cut) {
    try {
      const error = (JSON.parse(text) as { error?: unknown } | null)?.error;
      const words = typeof error === 'string' ? error : (error as { message?: unknown })?.message;
      if (typeof words === 'string' && words !== '') return JSON.stringify(words);
    } catch {
      // Not JSON: its first line below.
    }
  }
  const line = text.split(/\r?\n/, 1)[0]!;
  return `${JSON.stringify(line)}${cut && line === text ? ` (its first ${MAX_SAID_BYTES} bytes)` : ''}`;
}
