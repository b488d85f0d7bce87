/** One HTTP POST of a push channel, and what its answer means for the outbox. */
import { messageOf } from '../rules/describe.js';
import { NotificationDeliveryError } from './delivery-error.js';

/**
 * Whether a later try of the same request may succeed: a 5xx, 408 (timeout) or 429 (rate
 * limited). Any other 4xx fails the same way every time.
 */
export function isRetryableStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

export interface PostRequest {
  fetch: typeof globalThis.fetch;
  url: URL;
  headers: Record<string, string>;
  body: string | Uint8Array;
  timeoutMs: number;
  signal: AbortSignal;
}

/** What the receiver said when it did not accept the message. */
export interface PostRefusal {
  status: number;
  /** The receiver's own words (its JSON `error`, or the first line of its text), when it gave any. */
  said?: string;
}

/**
 * POSTs once. Resolves when the receiver accepted (2xx); resolves with the refusal for any other
 * status, for the channel to word; rejects with a retryable `NotificationDeliveryError` for a
 * lost connection or a timeout, and with `signal.reason` once `signal` aborts.
 */
export async function postOnce(
  request: PostRequest,
  channel: string,
  deliveryId: string,
): Promise<PostRefusal | undefined> {
  const { fetch, url, headers, body, timeoutMs, signal } = request;
  const timeout = AbortSignal.timeout(timeoutMs);
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers,
      body: body as BodyInit,
      // A redirect would resend the message somewhere the sender never chose.
      redirect: 'manual',
      signal: AbortSignal.any([signal, timeout]),
    });
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    const cause = timeout.aborted ? new Error(`no answer within ${timeoutMs} ms`) : error;
    throw new NotificationDeliveryError(
      `${channel} delivery ${deliveryId} to ${url.origin} failed: ${messageOf(cause)}.`,
      { channel, deliveryId, attempts: 1, retryable: true },
      { cause },
    );
  }
  if (response.status >= 200 && response.status < 300) {
    await response.body?.cancel().catch(() => {});
    return undefined;
  }
  const said = await saidIn(response);
  return said === undefined ? { status: response.status } : { status: response.status, said };
}

/** The `error` of a JSON body (ntfy's, a push service's) or the first line of a text one. */
async function saidIn(response: Response): Promise<string | undefined> {
  let text: string;
  try {
    text = (await response.text()).trim();
  } catch {
    return undefined;
  }
  if (text === '') return undefined;
  try {
    const error = (JSON.parse(text) as { error?: unknown } | null)?.error;
    if (typeof error === 'string' && error !== '') return JSON.stringify(error);
    if (typeof (error as { message?: unknown })?.message === 'string') {
      return JSON.stringify((error as { message: string }).message);
    }
  } catch {
    // Not JSON: its first line below.
  }
  return JSON.stringify(text.split(/\r?\n/, 1)[0]);
}
