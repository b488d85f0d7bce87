/** What every channel does first with what it is asked to send: check it, and name its delivery. */
import { describe } from '../rules/describe.js';
import { deliveryIdFor } from './delivery-id.js';
import { type Notification, readNotification } from './notification.js';

export interface ChannelInput {
  notification: Notification;
  /** `deliveryIdFor` of the notification: the same on every try and every resend. */
  deliveryId: string;
}

/**
 * Reads `value` as a notification for the channel named `channel`; throws a `TypeError` for a
 * notification that is not valid or is addressed to another channel (sending it again would fail
 * the same way, so it is not a delivery error).
 */
export function readChannelInput(channel: string, value: unknown): ChannelInput {
  const notification = readNotification(value);
  const { askId, recipient, kind } = notification;
  if (recipient.channel !== channel) {
    throw new TypeError(
      `Notification for channel ${describe(recipient.channel)} was sent through channel ${describe(channel)}.`,
    );
  }
  const seq = 'seq' in notification ? notification.seq : undefined;
  return { notification, deliveryId: deliveryIdFor(askId, recipient.id, kind, seq) };
}

/** A channel's `name` option: what recipients' `channel` refers to. */
export function readChannelName(name: unknown): string {
  if (typeof name !== 'string' || name.trim() === '') {
    throw new TypeError(
      `Expected \`name\` to be the channel's name, a non-empty string, got ${describe(name)}.`,
    );
  }
  return name;
}
