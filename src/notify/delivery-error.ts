/** A channel's one error: the delivery did not happen, and whether trying later may help. */

export interface NotificationDeliveryErrorData {
  /** The channel's name. */
  channel: string;
  /** The delivery's stable id (Message-ID / webhook-id). */
  deliveryId: string;
  /** How many times the channel tried before giving up. */
  attempts: number;
  /** True when a later try may succeed (a timeout, a 5xx); false when the same send would fail again. */
  retryable: boolean;
  /** The receiver's HTTP status or SMTP response code, when there was one. */
  status?: number;
}

/**
 * @example
 * try { await channel.send(notification, signal) }
 * catch (error) { if (error instanceof NotificationDeliveryError && error.retryable) requeue() }
 */
export class NotificationDeliveryError extends Error {
  override readonly name = 'NotificationDeliveryError';
  readonly channel: string;
  readonly deliveryId: string;
  readonly attempts: number;
  readonly retryable: boolean;
  readonly status: number | undefined;

  constructor(message: string, data: NotificationDeliveryErrorData, options?: { cause?: unknown }) {
    super(message, options);
    this.channel = data.channel;
    this.deliveryId = data.deliveryId;
    this.attempts = data.attempts;
    this.retryable = data.retryable;
    this.status = data.status;
  }
}
