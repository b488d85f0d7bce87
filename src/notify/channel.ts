/** A notification channel: anything that can deliver a notification to a recipient's address. */
import type { Notification } from './notification.js';

/**
 * Delivers notifications for recipients whose `channel` is this `name`. `send` resolves once the
 * receiver accepted the message, rejects with a `NotificationDeliveryError` when it did not, and
 * rejects with `signal.reason` once `signal` aborts. Sends are at least once: a channel keeps the
 * delivery id of `deliveryIdFor` on every try so receivers can drop duplicates.
 *
 * `send` may resolve with a receipt, `{ ref }`: what the channel needs later to find the message
 * it sent (a chat message's thread and message ids). It is recorded with the delivery's audit
 * event, and every later notification to the same recipient about the same ask (a reminder, an
 * escalation, the settled one) carries the receipts of the messages sent before it, oldest
 * first, in `receipts`: so a chat channel edits its card when the ask settles.
 *
 * @example
 * const sms: NotifyChannel = {
 *   name: 'sms',
 *   async send(notification, signal) { await sendSms(notification.recipient.address, notification.link, { signal }) },
 * };
 */
export interface NotifyChannel {
  readonly name: string;
  // biome-ignore lint/suspicious/noConfusingVoidType: a channel without receipts resolves with nothing (an async send's void)
  send(notification: Notification, signal: AbortSignal): Promise<void | NotifyReceipt>;
  /**
   * Throws (a `TypeError` naming the address and the fix) when this channel cannot deliver to
   * `address` as it is. The notify provider calls it for every recipient a route names, before
   * anything is written or sent, so an address the channel would refuse, or a transport would
   * rewrite, ends the ask with that error instead of a message sent elsewhere. Optional: a
   * channel without it takes any non-empty address.
   */
  checkAddress?(address: string): void;
}

/**
 * What a channel keeps of a message it sent, to find it again (`NotifyChannel.send`): `ref` is a
 * non-empty string of at most `MAX_RECEIPT_LENGTH` characters (a short JSON text, an id). It is
 * stored in the audit trail, so it names the message and never holds what the message said.
 */
export interface NotifyReceipt {
  ref: string;
}
