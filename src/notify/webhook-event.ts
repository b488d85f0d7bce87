/** The Standard Webhooks event a notification becomes: `{ type, timestamp, data }`. */
import type { Notification, NotificationKind } from './notification.js';

/** The webhook event `type` for each notification kind: `ask.created`, `ask.reminded`, ... */
export const WEBHOOK_EVENT_TYPES = {
  created: 'ask.created',
  reminded: 'ask.reminded',
  escalated: 'ask.escalated',
  settled: 'ask.settled',
} as const satisfies Record<NotificationKind, string>;
/** The `type` of a webhook event: `ask.created`, `ask.reminded`, `ask.escalated`, `ask.settled`. */
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[NotificationKind];

/**
 * The JSON body for a notification. It depends on the notification only (the timestamp is when
 * the transition happened, not when this try was made), so every retry and every resend after a
 * restart carries the same body as the first try.
 */
export function webhookBodyOf(notification: Notification): string {
  const { kind, ...data } = notification;
  return JSON.stringify({
    type: WEBHOOK_EVENT_TYPES[kind],
    timestamp: new Date(notification.at).toISOString(),
    data,
  });
}
