/** A notification channel: anything that can deliver a notification to a recipient's address. */
import type { Notification } from './notification.js';

/**
 * Delivers notifications for recipients whose `channel` is this `name`. `send` resolves once the
 * receiver accepted the message, rejects with a `NotificationDeliveryError` when it did not, and
 * rejects with `signal.reason` once `signal` aborts. Sends are at least once: a channel keeps the
 * delivery id of `deliveryIdFor` on every try so receivers can drop duplicates.
 *
 * @example
 * const sms: NotifyChannel = {
 *   name: 'sms',
 *   async send(notification, signal) { await sendSms(notification.recipient.address, notification.link, { signal }) },
 * };
 */
export interface NotifyChannel {
  readonly name: string;
  send(notification: Notification, signal: AbortSignal): Promise<void>;
  /**
   * Throws (a `TypeError` naming the address and the fix) when this channel cannot deliver to
   * `address` as it is. The notify provider calls it for every recipient a route names, before
   * anything is written or sent, so an address the channel would refuse, or a transport would
   * rewrite, ends the ask with that error instead of a message sent elsewhere. Optional: a
   * channel without it takes any non-empty address.
   */
  checkAddress?(address: string): void;
}
