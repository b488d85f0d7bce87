/**
 * The mail for one notification: subject, text part and HTML part, every model-written text
 * escaped. The text part is also what push channels (ntfy) show.
 */
import type { AskUserQuestion } from '../contracts/question.js';
import { escapeControlCharacters } from '../rules/escape-text.js';
import { type Html, html, shownText } from '../web/html.js';
import type { Notification } from './notification.js';
import {
  answerHintOf,
  deadlineSentenceOf,
  headlineOf,
  inboxSentenceOf,
  linkSentenceOf,
  settledSentenceOf,
  subjectOf,
} from './notification-wording.js';

export interface EmailContent {
  /** One line, control characters shown as escapes: nothing in it can start a new header. */
  subject: string;
  text: string;
  html: string;
}

export function renderEmail(notification: Notification): EmailContent {
  return {
    subject: renderSubject(notification),
    text: renderPlainText(notification),
    html: renderHtml(notification),
  };
}

/** One line, control characters shown as escapes: the mail's subject, a push message's title. */
export function renderSubject(notification: Notification): string {
  return escapeControlCharacters(subjectOf(notification));
}

/** The notification as plain text: what it says, line breaks kept, other controls shown escaped. */
export function renderPlainText(notification: Notification): string {
  const lines = [headlineOf(notification), ''];
  const settled = settledSentenceOf(notification);
  if (settled !== undefined) lines.push(literal(settled), '');
  for (const question of notification.questions) lines.push(...questionText(question), '');
  const deadline = deadlineSentenceOf(notification);
  if (deadline !== undefined) lines.push(deadline, '');
  const linkSentence = linkSentenceOf(notification);
  if (linkSentence !== undefined) lines.push(linkSentence, notification.link!, '');
  const inboxSentence = inboxSentenceOf(notification);
  if (inboxSentence !== undefined) lines.push(inboxSentence, notification.inboxLink!, '');
  return lines.join('\n');
}

function questionText(question: AskUserQuestion): string[] {
  const lines = [`[${literal(question.header)}] ${literal(question.question)}`];
  if (question.context !== undefined) lines.push(literal(question.context));
  question.options.forEach((option, i) => {
    const description = option.description === undefined ? '' : ` - ${literal(option.description)}`;
    lines.push(`  ${i + 1}. ${literal(option.title)}${description}`);
  });
  lines.push(answerHintOf(question));
  return lines;
}

/** Text a model or a person wrote, for the text part: line breaks kept, other controls visible. */
function literal(text: string): string {
  return escapeControlCharacters(text, true).replace(/\r\n/g, '\n');
}

function renderHtml(notification: Notification): string {
  const settled = settledSentenceOf(notification);
  const deadline = deadlineSentenceOf(notification);
  const linkSentence = linkSentenceOf(notification);
  const inboxSentence = inboxSentenceOf(notification);
  return html`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${shownText(subjectOf(notification))}</title></head>
<body style="font-family:system-ui,sans-serif;line-height:1.45;max-width:40em">
<h1 style="font-size:1.25em">${headlineOf(notification)}</h1>
${settled === undefined ? '' : html`<p>${shownText(settled)}</p>`}
${notification.questions.map(questionHtml)}
${deadline === undefined ? '' : html`<p>${deadline}</p>`}
${
  linkSentence === undefined
    ? ''
    : html`<p>${linkSentence}</p>
<p><a href="${notification.link}">${notification.link}</a></p>`
}
${
  inboxSentence === undefined
    ? ''
    : html`<p>${inboxSentence}</p>
<p><a href="${notification.inboxLink}">${notification.inboxLink}</a></p>`
}
</body>
</html>
`.value;
}

function questionHtml(question: AskUserQuestion): Html {
  return html`<section style="margin:1em 0">
<p style="margin:0;color:#555;font-size:.9em">${shownText(question.header)}</p>
<p style="margin:.2em 0;font-weight:600;white-space:pre-wrap">${shownText(question.question)}</p>
${question.context === undefined ? '' : html`<p style="white-space:pre-wrap">${shownText(question.context)}</p>`}
${
  question.options.length === 0
    ? ''
    : html`<ol>${question.options.map(
        (option) =>
          html`<li><strong>${shownText(option.title)}</strong>${
            option.description === undefined ? '' : html` - ${shownText(option.description)}`
          }</li>`,
      )}</ol>`
}
<p style="margin:0;color:#555">${answerHintOf(question)}</p>
</section>
`;
}
