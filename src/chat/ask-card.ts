/**
 * The cards of an ask, platform-neutral: the open card (the question, its context, a button per
 * option, a typed-answer button, the recipient's own signed link) and the card it is edited to
 * once the ask settles. What a card cannot hold within the platform's limits is never cut: the
 * card says why, and the signed link takes the answer instead.
 */

import {
  Actions,
  Button,
  type ButtonElement,
  Card,
  type CardChild,
  type CardElement,
  LinkButton,
  type LinkButtonElement,
  CardText as Text,
} from 'chat';
import type { AskUserQuestion } from '../contracts/question.js';
import type { Notification, SettledSummary } from '../notify/notification.js';
import { formatTime } from '../web/shown-time.js';
import { modalFit } from './ask-modal.js';
import { buttonValue, CHAT_ACTION_ID } from './card-reference.js';
import type { ChatPlatform } from './platform.js';

/** A notification about the open ask: the first one, a reminder or an escalation. */
export type OpenNotification = Exclude<Notification, { kind: 'settled' }>;

/**
 * What a card takes of an ask: the question whose options are its buttons (when they fit), the
 * ask's modal (a typed answer, a comment, several questions; where the platform has one), or
 * neither, and why: then the recipient's web link takes the answer.
 */
export interface CardFit {
  buttons?: AskUserQuestion;
  form: boolean;
  why?: string;
}

/**
 * The card posted to a recipient for an open ask. Their signed web link answers as them, so it
 * is on the card only where the card is theirs alone (`personal`: a direct message); a card in a
 * shared channel has none, and an ask it cannot take says where to send it instead.
 */
export function openAskCard(
  notification: OpenNotification,
  platform: ChatPlatform,
  reference: string,
  personal: boolean,
): CardElement {
  const { questions } = notification;
  const link = personal ? notification.link : undefined;
  // Our own words go through the platform's escaping too: one rule for every text block.
  const say = (text: string, style?: 'muted') =>
    Text(platform.escapeText(text), style === undefined ? {} : { style });
  const children: CardChild[] = [];
  const lead = LEADS[notification.kind];
  if (lead !== undefined) children.push(say(lead, 'muted'));
  const shown = shownText(questions, platform);
  children.push(...shown.blocks);
  if (notification.deadline !== undefined) {
    children.push(say(`Open until ${formatTime(notification.deadline)}.`, 'muted'));
  }
  const fit: CardFit =
    shown.why === undefined
      ? cardFit(questions, platform, reference, link !== undefined)
      : { form: false, why: shown.why };
  if (fit.why !== undefined) children.push(say(personal ? fit.why : `${fit.why} ${SHARED}`));
  const actions: (ButtonElement | LinkButtonElement)[] = [];
  fit.buttons?.options.forEach((option, index) => {
    actions.push(
      Button({
        id: CHAT_ACTION_ID,
        label: platform.plainText(option.title),
        value: buttonValue(reference, { kind: 'option', n: index + 1 }),
      }),
    );
  });
  if (fit.form) {
    actions.push(
      Button({
        id: CHAT_ACTION_ID,
        label: formLabel(questions, fit.buttons !== undefined),
        value: buttonValue(reference, { kind: 'form' }),
        actionType: 'modal',
      }),
    );
  }
  if (link !== undefined) {
    const label = fit.why === undefined ? 'Open in browser' : 'Answer on the web page';
    actions.push(LinkButton({ url: link, label }));
  }
  if (actions.length > 0) children.push(Actions(actions));
  return Card({ children });
}

/** The card an open card is edited to once the ask settled: how it ended and who decided. */
export function settledAskCard(
  questions: readonly AskUserQuestion[],
  outcome: SettledSummary,
  platform: ChatPlatform,
): CardElement {
  const shown = shownText(questions, platform);
  const children: CardChild[] = [...shown.blocks, Text(platform.escapeText(endingOf(outcome)))];
  return Card({ children });
}

/** Why a card in a shared channel has no web link, and what to do instead. */
const SHARED =
  'A web link answers as the person it was made for, so a card in a shared channel has none: send this ask to direct messages (dm:<user id>) instead.';

const LEADS: Record<OpenNotification['kind'], string | undefined> = {
  created: undefined,
  reminded: 'Reminder: this question is still open.',
  escalated: 'Escalated to you: this question is still open.',
};

/**
 * What a card on `platform` takes of the ask. Buttons: one single-choice question whose every
 * option is a button with its whole label, within the platform's button count and payload. The
 * modal (`modalFit`): offered next to the buttons when the question also takes a typed answer
 * or a comment, and alone when the buttons do not fit. Neither: the card says why.
 */
export function cardFit(
  questions: readonly AskUserQuestion[],
  platform: ChatPlatform,
  reference: string,
  hasLink: boolean,
): CardFit {
  const modal = modalFit(questions, platform).modal;
  const [question] = questions;
  const wantsForm =
    modal && question !== undefined && (question.allowFreeform || question.allowComment);
  const buttons = buttonsFit(
    questions,
    platform,
    reference,
    (wantsForm ? 1 : 0) + (hasLink ? 1 : 0),
  );
  if (typeof buttons !== 'string') return { buttons, form: wantsForm };
  return modal ? { form: true } : { form: false, why: buttons };
}

/** The question whose options fit the card as buttons, or why they do not. */
function buttonsFit(
  questions: readonly AskUserQuestion[],
  platform: ChatPlatform,
  reference: string,
  extraButtons: number,
): AskUserQuestion | string {
  const { limits, name } = platform;
  const [question] = questions;
  if (question === undefined || questions.length > 1) {
    return `This ask has ${questions.length} questions and a ${name} card answers one.`;
  }
  if (question.allowMultiple) {
    return `This question takes several choices and a ${name} card button takes one.`;
  }
  if (question.options.length === 0) {
    return `This question wants a typed answer, which ${name} cards cannot take.`;
  }
  if (question.options.length + extraButtons > limits.buttons) {
    return `This question has ${question.options.length} options, more than the buttons a ${name} card holds (${limits.buttons} in all).`;
  }
  for (const [index, option] of question.options.entries()) {
    const label = platform.plainText(option.title);
    if (label.length > limits.buttonLabel) {
      return `Option ${index + 1} has ${label.length} characters, more than the ${limits.buttonLabel} a ${name} button shows.`;
    }
  }
  const widest = buttonValue(reference, { kind: 'option', n: question.options.length });
  if (!platform.fitsButton(CHAT_ACTION_ID, widest)) {
    return `This question's buttons do not fit ${name}'s button payload.`;
  }
  return question;
}

/** The label of the button that opens the ask's modal. */
function formLabel(questions: readonly AskUserQuestion[], besideButtons: boolean): string {
  const [question] = questions;
  if (questions.length > 1) return 'Answer the questions';
  if (question?.allowFreeform) return 'Type an answer';
  return besideButtons ? 'Answer with a comment' : 'Answer in a form';
}

/**
 * The ask's text as card blocks (each question's header, text, context and the options'
 * descriptions), escaped for the platform; when a block is longer than the platform shows, no
 * block is shown and `why` says so (the web page shows it whole).
 */
function shownText(
  questions: readonly AskUserQuestion[],
  platform: ChatPlatform,
): { blocks: CardChild[]; why?: string } {
  const blocks: CardChild[] = [];
  let total = 0;
  for (const question of questions) {
    const described = question.options.filter((option) => option.description !== undefined);
    const texts: [string, 'bold' | undefined][] = [
      [question.header, 'bold'],
      [question.question, undefined],
      ...(question.context === undefined
        ? []
        : [[question.context, undefined] as [string, undefined]]),
      ...(described.length === 0
        ? []
        : [
            [
              described.map((option) => `${option.title}: ${option.description}`).join('\n'),
              undefined,
            ] as [string, undefined],
          ]),
    ];
    for (const [text, style] of texts) {
      const escaped = platform.escapeText(text);
      total += escaped.length;
      if (total > platform.limits.cardText) {
        return {
          blocks: [],
          why: `This ask's text runs to more than the ${platform.limits.cardText} characters a ${platform.name} card shows: it is shown whole on the web page.`,
        };
      }
      if (escaped.length > platform.limits.text) {
        return {
          blocks: [],
          why: `This question's text runs to ${escaped.length} characters, more than the ${platform.limits.text} a ${platform.name} card shows in one block: it is shown whole on the web page.`,
        };
      }
      blocks.push(style === undefined ? Text(escaped) : Text(escaped, { style }));
    }
  }
  return { blocks };
}

/** How the ask ended, in the card's words (escaped with them by the caller). */
function endingOf(outcome: SettledSummary): string {
  const when = formatTime(outcome.at);
  switch (outcome.status) {
    case 'answered': {
      const by = outcome.answeredBy;
      return by === undefined
        ? `Answered at ${when}.`
        : `Answered by ${by.recipient}${by.channel === undefined ? '' : ` (${by.channel})`} at ${when}.`;
    }
    case 'cancelled':
      return `Cancelled (${outcome.reason}) at ${when}.`;
    case 'timedOut':
      return `Timed out at ${when}: nobody answered in time.`;
    case 'aborted':
      return `Closed at ${when}: the agent stopped waiting.`;
  }
}
