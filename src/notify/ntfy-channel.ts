/** ntfy notifications: a JSON publish per notification, with one-tap answer buttons where they fit. */
import { isUserInteractionError } from '../rules/errors.js';
import { escapeControlCharacters } from '../rules/escape-text.js';
import type { PushAction } from '../web/push-answer-route.js';
import type { NotifyChannel } from './channel.js';
import { readChannelInput } from './channel-input.js';
import { renderPlainText, renderSubject } from './email-content.js';
import { postDeliveryError, postOnce } from './http-post.js';
import type { Notification } from './notification.js';
import {
  type NtfyChannelOptions,
  type NtfyPriority,
  type ResolvedNtfyOptions,
  readNtfyTopic,
  resolveNtfyOptions,
} from './ntfy-options.js';

/** ntfy shows at most 3 action buttons on a message (its server refuses more). */
export const NTFY_MAX_ACTIONS = 3;
/** ntfy's longest message body; a longer one would arrive as a file attachment instead. */
export const NTFY_MAX_MESSAGE_BYTES = 4096;

/** One ntfy action button of type `http`: a POST to a signed one-tap answer URL. */
export interface NtfyHttpAction {
  action: 'http';
  label: string;
  url: string;
  method: 'POST';
  /** The notification goes away once the POST succeeded. */
  clear: true;
}

/** The JSON a notification is published as (ntfy's "publish as JSON", POSTed to the server root). */
export interface NtfyMessage {
  topic: string;
  title: string;
  /** Plain text (ntfy's Markdown is off): every model-written text with controls escaped. */
  message: string;
  /** The recipient's signed page: the form, or once settled, how it ended. */
  click?: string;
  actions?: NtfyHttpAction[];
  priority: NtfyPriority;
  tags: string[];
}

/**
 * Creates a channel that publishes each notification to the recipient's ntfy topic (their
 * `address`) as JSON: the question as plain text, a click link to their signed page, and for a
 * single-choice question of at most 3 options one button per option, each POSTing to a signed,
 * single-use answer URL of the answer app (`answers`). Reminders and escalations are new
 * messages; a settled ask gets a message saying how it ended (low priority). A 2xx from ntfy
 * delivers; a timeout, a lost connection, 408, 429 or a 5xx fail retryable (the outbox tries
 * again), any other answer fails for good. ntfy has no publisher-chosen message id, so a
 * message sent again after a crash shows twice.
 *
 * @example
 * const ntfy = createNtfyChannel({ server: 'https://ntfy.sh', answers: server, token: process.env.NTFY_TOKEN });
 * // route: () => [{ id: 'alice', channel: 'ntfy', address: 'alice-approvals-9f2c71' }]
 */
export function createNtfyChannel(options: NtfyChannelOptions): NotifyChannel {
  const resolved = resolveNtfyOptions(options);
  const { name } = resolved;
  return {
    name,
    checkAddress: readNtfyTopic,
    async send(value, signal) {
      signal.throwIfAborted();
      const { notification, deliveryId } = readChannelInput(name, value);
      const topic = readNtfyTopic(notification.recipient.address);
      const buttons = await buttonsFor(resolved, notification);
      signal.throwIfAborted();
      const message = ntfyMessageOf(notification, topic, buttons, resolved.priority);
      const failure = await postOnce({
        fetch: resolved.fetch,
        url: resolved.publishUrl,
        headers: {
          'content-type': 'application/json',
          ...(resolved.authorization === undefined
            ? {}
            : { authorization: resolved.authorization }),
        },
        body: JSON.stringify(message),
        timeoutMs: resolved.timeoutMs,
        signal,
      });
      if (failure === undefined) return;
      throw postDeliveryError(
        failure,
        {
          channel: name,
          deliveryId,
          what: `ntfy message ${deliveryId} to topic ${topic} on ${resolved.publishUrl.origin}`,
        },
        (status) =>
          status === 401 || status === 403 ? ' (check `token` and the topic’s access)' : undefined,
      );
    },
  };
}

/**
 * The buttons for an open ask: `answers.pushActionsFor`, or none without `answers`, for a
 * settled notification, or when the ask settled or was purged before this send.
 */
async function buttonsFor(
  { answers, name }: ResolvedNtfyOptions,
  notification: Notification,
): Promise<readonly PushAction[]> {
  if (answers === undefined || notification.kind === 'settled') return [];
  const by = { recipient: notification.recipient.id, channel: name };
  try {
    return await answers.pushActionsFor(notification.askId, by, { max: NTFY_MAX_ACTIONS });
  } catch (error) {
    if (
      isUserInteractionError(error, 'ASK_SETTLED') ||
      isUserInteractionError(error, 'UNKNOWN_INTERACTION')
    ) {
      return [];
    }
    throw error;
  }
}

/**
 * The JSON message for `notification`. Text that does not fit ntfy's 4,096 bytes is not cut:
 * the message says the question is too long to show, has no buttons (nobody should answer
 * what they could not read), and its click opens the page with all of it.
 */
export function ntfyMessageOf(
  notification: Notification,
  topic: string,
  buttons: readonly PushAction[],
  priority: NtfyPriority,
): NtfyMessage {
  const settled = notification.kind === 'settled';
  let actions = buttons.map(
    (button): NtfyHttpAction => ({
      action: 'http',
      label: escapeControlCharacters(button.label),
      url: button.url,
      method: 'POST',
      clear: true,
    }),
  );
  const tap =
    actions.length > 0
      ? `Tap an option to answer as ${notification.recipient.id}, or open the message for the whole form.`
      : undefined;
  let message = [renderPlainText(notification).trimEnd(), tap].filter(Boolean).join('\n\n');
  const bytes = Buffer.byteLength(message, 'utf8');
  if (bytes > NTFY_MAX_MESSAGE_BYTES) {
    actions = [];
    message = `This ${settled ? 'message' : 'question'} is too long to show here (${bytes} bytes; ntfy shows up to ${NTFY_MAX_MESSAGE_BYTES}). Open it to read all of it${settled ? '' : ' and answer'}.`;
  }
  return {
    topic,
    title: renderSubject(notification),
    message,
    ...(notification.link === undefined ? {} : { click: notification.link }),
    ...(actions.length === 0 ? {} : { actions }),
    priority: settled ? 2 : priority,
    tags: [tagOf(notification)],
  };
}

/** An emoji short code ntfy shows before the title. */
function tagOf(notification: Notification): string {
  if (notification.kind !== 'settled') return notification.kind === 'created' ? 'question' : 'bell';
  return notification.outcome.status === 'answered' ? 'white_check_mark' : 'no_entry_sign';
}
