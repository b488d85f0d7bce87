/** The one id of a delivery: the email's Message-ID and the webhook's `webhook-id`. */
import { createHash } from 'node:crypto';
import type { NotificationKind } from './notification.js';

/**
 * A stable id for one notification to one recipient: the same ask, recipient, kind and step
 * always give the same id, so a delivery sent again after a crash or a retry carries the id of
 * the first try and a receiver can drop the duplicate. Different steps (the first and the second
 * reminder) get different ids. The id is a hash, so it is safe in a mail header and a URL
 * whatever the ask and recipient ids contain. An ask id is never given to another ask, not even
 * after a purge (the store retires it), so a delivery id names one message for good.
 *
 * @example
 * deliveryIdFor('ask_1', 'alice', 'reminded', 2) // 'msg_…' (32 hex digits), the same every time
 */
export function deliveryIdFor(
  askId: string,
  recipientId: string,
  kind: NotificationKind,
  seq?: number,
): string {
  if (seq !== undefined && (!Number.isSafeInteger(seq) || seq < 1)) {
    throw new TypeError(`Expected \`seq\` to be an integer from 1 and up, got ${String(seq)}.`);
  }
  // JSON keeps the parts apart: no ask id can end where a recipient id begins.
  const key = JSON.stringify(['ask-engine.delivery', askId, recipientId, kind, seq ?? 0]);
  return `msg_${createHash('sha256').update(key).digest('hex').slice(0, 32)}`;
}
