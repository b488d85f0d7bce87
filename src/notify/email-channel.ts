/** Email notifications through a nodemailer transport: one plain mail per recipient, threaded per ask. */

import { raceAbort } from '../engine/abortable.js';
import { describe, messageOf } from '../rules/describe.js';
import type { NotifyChannel } from './channel.js';
import { readChannelInput, readChannelName } from './channel-input.js';
import { NotificationDeliveryError } from './delivery-error.js';
import { deliveryIdFor } from './delivery-id.js';
import { domainOf, type MailAddress, readFromAddress, readMailAddress } from './email-address.js';
import { renderEmail } from './email-content.js';

/** The message handed to the transport; nodemailer's `Mail.Options` accepts it as it is. */
export interface EmailMessage {
  from: MailAddress;
  to: string;
  subject: string;
  text: string;
  html: string;
  messageId: string;
  date: Date;
  inReplyTo?: string;
  references?: string;
  headers: Record<string, string>;
}

/** What the channel needs of a transport: nodemailer's `createTransport(...)` result fits. */
export interface EmailTransport {
  sendMail(message: EmailMessage): Promise<unknown>;
}

/** Options of `createEmailChannel`: the transport to send with and the sender. */
export interface EmailChannelOptions {
  /** Sends the mails: a nodemailer transport, or anything with `sendMail(message)`. */
  transport: EmailTransport;
  /** `'approvals@example.com'`, `'Approvals <approvals@example.com>'` or `{ name, address }`. */
  from: string | MailAddress;
  /** The channel name recipients refer to; `'email'` unless given. */
  name?: string;
}

/**
 * Creates a channel that mails each recipient their question, its options and their own link.
 * The Message-ID is `deliveryIdFor(...)` under the sender's domain, so a mail sent again after a
 * crash has the Message-ID of the first, and reminders and the settled mail thread under the
 * first mail of the ask.
 *
 * @example
 * import nodemailer from 'nodemailer';
 * const email = createEmailChannel({
 *   transport: nodemailer.createTransport({ host: 'smtp.example.com', port: 587 }),
 *   from: 'Approvals <approvals@example.com>',
 * });
 */
export function createEmailChannel(options: EmailChannelOptions): NotifyChannel {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(
      `Expected email channel options { transport, from }, got ${describe(options)}.`,
    );
  }
  const { transport } = options;
  const name = readChannelName(options.name ?? 'email');
  if (typeof (transport as Partial<EmailTransport> | undefined)?.sendMail !== 'function') {
    throw new TypeError(
      `Expected \`transport\` to have a sendMail method (nodemailer.createTransport(...)), got ${describe(transport)}.`,
    );
  }
  const from = readFromAddress(options.from);
  const domain = domainOf(from.address);

  const recipientAddress = (address: unknown) => readMailAddress(address, '`recipient.address`');
  return {
    name,
    checkAddress: recipientAddress,
    async send(value, signal) {
      signal.throwIfAborted();
      const { notification, deliveryId } = readChannelInput(name, value);
      const { askId, recipient, kind } = notification;
      // Checked again: an entry written before the route's check existed is not sent either.
      const to = recipientAddress(recipient.address);
      const messageId = `<${deliveryId}@${domain}>`;
      const first = `<${deliveryIdFor(askId, recipient.id, 'created')}@${domain}>`;
      const message: EmailMessage = {
        from,
        to,
        ...renderEmail(notification),
        messageId,
        date: new Date(notification.at),
        ...(kind === 'created' ? {} : { inReplyTo: first, references: first }),
        headers: {
          // RFC 3834: vacation responders and ticket systems must not answer a notification.
          'Auto-Submitted': 'auto-generated',
          'X-Auto-Response-Suppress': 'All',
        },
      };
      try {
        await raceAbort(transport.sendMail(message), signal);
      } catch (error) {
        if (signal.aborted && error === signal.reason) throw error;
        throw deliveryError(error, name, deliveryId);
      }
    },
  };
}

/**
 * An SMTP 5xx reply (a refused recipient, a refused message) fails the same way next time; a 4xx
 * reply, a lost connection or a timeout may not.
 */
function deliveryError(
  error: unknown,
  channel: string,
  deliveryId: string,
): NotificationDeliveryError {
  const code = (error as { responseCode?: unknown } | null)?.responseCode;
  const status = typeof code === 'number' ? code : undefined;
  const retryable = status === undefined || status < 500;
  return new NotificationDeliveryError(
    `Mail ${deliveryId} was not accepted${status === undefined ? '' : ` (SMTP ${status})`}: ${messageOf(error)}`,
    { channel, deliveryId, attempts: 1, retryable, ...(status === undefined ? {} : { status }) },
    { cause: error },
  );
}
