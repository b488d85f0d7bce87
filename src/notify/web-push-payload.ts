/** What a Web Push message carries to the site's service worker: JSON the worker shows as it is. */
import { escapeControlCharacters } from '../rules/escape-text.js';
import type { Notification, NotificationKind } from './notification.js';
import {
  answerHintOf,
  deadlineSentenceOf,
  headlineOf,
  settledSentenceOf,
} from './notification-wording.js';

/**
 * The decrypted payload of a push: what the service worker passes to `showNotification(title,
 * { body, tag, data: { url } })`. Plain text, control characters shown as escapes.
 */
export interface WebPushPayload {
  /** Why the person gets it: "Your answer is needed", "Answered", ... */
  title: string;
  /** The question (or how the ask ended), its options and the deadline. */
  body: string;
  /** The recipient's signed link: open it on a click. */
  url?: string;
  askId: string;
  kind: NotificationKind;
  /** The same for every message of one ask, so a newer one replaces the older on screen. */
  tag: string;
}

/**
 * The most plaintext one push holds: 4,096 bytes of record less the aes128gcm header with its
 * 65-byte key id (86), the tag (16) and the padding delimiter (1).
 */
export const WEB_PUSH_MAX_PAYLOAD_BYTES = 4096 - 86 - 16 - 1;

/**
 * The payload for `notification`, as JSON. A question too long for one push is not cut: the
 * body says so, and the link opens all of it.
 */
export function webPushPayloadOf(notification: Notification): string {
  const payload: WebPushPayload = {
    title: headlineOf(notification),
    body: bodyOf(notification),
    ...(notification.link === undefined ? {} : { url: notification.link }),
    askId: notification.askId,
    kind: notification.kind,
    tag: `ask-engine:${notification.askId}`,
  };
  const json = JSON.stringify(payload);
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes <= WEB_PUSH_MAX_PAYLOAD_BYTES) return json;
  return JSON.stringify({
    ...payload,
    body: `This ${notification.kind === 'settled' ? 'message' : 'question'} is too long to show here (${bytes} bytes; a push holds up to ${WEB_PUSH_MAX_PAYLOAD_BYTES}). Open it to read all of it.`,
  });
}

function bodyOf(notification: Notification): string {
  const settled = settledSentenceOf(notification);
  // Once settled: how it ended, and which question it was.
  if (settled !== undefined) return `${settled}\n${literal(notification.questions[0]!.question)}`;
  const lines = notification.questions.flatMap((question) => [
    literal(question.question),
    ...(question.options.length === 0
      ? []
      : [question.options.map((option, n) => `${n + 1}. ${literal(option.title)}`).join('  ')]),
    answerHintOf(question),
  ]);
  const deadline = deadlineSentenceOf(notification);
  if (deadline !== undefined) lines.push(deadline);
  return lines.join('\n');
}

/** Model-written text: line breaks kept, other controls visible. */
function literal(text: string): string {
  return escapeControlCharacters(text, true).replace(/\r\n/g, '\n');
}
