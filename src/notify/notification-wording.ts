/**
 * The sentences a notification says, written once for every part that shows them (the mail's
 * subject, its text and HTML parts). Plain strings: each part escapes them its own way.
 */
import type { AskUserQuestion } from '../contracts/question.js';
import { samePerson } from '../rules/person-id.js';
import { formatTime } from '../web/shown-time.js';
import type { Notification } from './notification.js';

/** The first line of the message: why the recipient receives it. */
export function headlineOf(notification: Notification): string {
  switch (notification.kind) {
    case 'created':
      return 'Your answer is needed';
    case 'reminded':
      return `Reminder ${notification.seq}: your answer is still needed`;
    case 'escalated':
      return 'Escalated to you: an answer is needed';
    case 'settled':
      return notification.outcome.status === 'answered' ? 'Answered' : 'Closed without an answer';
  }
}

/** A one-line subject: the headline and the first question, line breaks made blanks. */
export function subjectOf(notification: Notification): string {
  const [first, ...rest] = notification.questions;
  const more = rest.length === 0 ? '' : ` (+${rest.length} more)`;
  return `${headlineOf(notification)}: ${oneLine(first!.question)}${more}`;
}

/** How the ask ended, for a settled notification; undefined for the others. */
export function settledSentenceOf(notification: Notification): string | undefined {
  if (notification.kind !== 'settled') return undefined;
  const { outcome, recipient } = notification;
  const when = formatTime(outcome.at);
  switch (outcome.status) {
    case 'answered': {
      const by = outcome.answeredBy;
      if (by === undefined) return `Answered on ${when}. Nothing more is needed from you.`;
      if (samePerson(by.recipient, recipient.id)) return `You answered this on ${when}. Thank you.`;
      const via = by.channel === undefined ? '' : ` (via ${by.channel})`;
      return `Answered by ${by.recipient}${via} on ${when}. Nothing more is needed from you.`;
    }
    case 'cancelled':
      return `Cancelled (${outcome.reason}) on ${when}. Nothing more is needed from you.`;
    case 'timedOut':
      return `Nobody answered before the deadline, ${when}. Nothing more is needed from you.`;
    case 'aborted':
      return `The program that asked stopped waiting on ${when}. Nothing more is needed from you.`;
  }
}

/** "Please answer by …", when the ask has a deadline and is still open. */
export function deadlineSentenceOf(notification: Notification): string | undefined {
  if (notification.kind === 'settled' || notification.deadline === undefined) return undefined;
  return `Please answer by ${formatTime(notification.deadline)}.`;
}

/** What the link does, so the recipient (and whoever reviews a mail scanner) knows it is safe. */
export function linkSentenceOf(notification: Notification): string | undefined {
  if (notification.link === undefined) return undefined;
  return notification.kind === 'settled'
    ? 'See the outcome:'
    : 'Answer here. Opening the link only shows the form; nothing is decided until you submit it.';
}

/** The sentence before the recipient's inbox link, when the notification has one. */
export function inboxSentenceOf(notification: Notification): string | undefined {
  return notification.inboxLink === undefined
    ? undefined
    : 'Everything waiting for you, on one page:';
}

/** How a question may be answered, e.g. "Pick one or more, or write your own answer." */
export function answerHintOf(question: AskUserQuestion): string {
  if (question.options.length === 0) return 'Write your answer.';
  const pick = question.allowMultiple ? 'Pick one or more' : 'Pick one';
  return question.allowFreeform ? `${pick}, or write your own answer.` : `${pick}.`;
}

function oneLine(text: string): string {
  return text.replace(/\s*[\r\n\u2028\u2029]+\s*/g, ' ').trim();
}
