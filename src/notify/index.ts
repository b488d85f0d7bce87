/**
 * `ask-engine/notify`: reach the people an ask is for. A channel is `{ name, send(notification,
 * signal) }`; email (nodemailer), webhooks (Standard Webhooks) and phone push (ntfy, with
 * one-tap answer buttons; Web Push through the optional peer `web-push`) ship here, and users add their own the same way.
 *
 * @module ask-engine/notify
 */

export type { AnsweredBy } from '../contracts/outcome.js';
export type { NotifyChannel, NotifyReceipt } from './channel.js';
export { NotificationDeliveryError, type NotificationDeliveryErrorData } from './delivery-error.js';
export { deliveryIdFor } from './delivery-id.js';
export type { MailAddress } from './email-address.js';
export {
  createEmailChannel,
  type EmailChannelOptions,
  type EmailMessage,
  type EmailTransport,
} from './email-channel.js';
export {
  MAX_RECEIPT_LENGTH,
  NOTIFICATION_KINDS,
  type Notification,
  type NotificationKind,
  type NotificationRecipient,
  NotificationRecipientSchema,
  NotificationSchema,
  readNotification,
  type SettledSummary,
  SettledSummarySchema,
} from './notification.js';
export type {
  NotifyDeliveryOptions,
  NotifyEscalationStep,
  NotifyProviderOptions,
  NotifyReminders,
  NotifyRoute,
  NotifyRouteResult,
} from './notify-options.js';
export { createNotifyProvider, type NotifyProvider } from './notify-provider.js';
export { createNtfyChannel, type NtfyHttpAction, type NtfyMessage } from './ntfy-channel.js';
export type { NtfyChannelOptions, NtfyPriority } from './ntfy-options.js';
export {
  createWebPushChannel,
  type VapidDetails,
  type WebPushChannelOptions,
} from './web-push-channel.js';
export type { WebPushPayload } from './web-push-payload.js';
export type { WebPushSubscription } from './web-push-subscription.js';
export { createWebhookChannel } from './webhook-channel.js';
export { WEBHOOK_EVENT_TYPES, type WebhookEventType } from './webhook-event.js';
export type { WebhookChannelOptions } from './webhook-options.js';
