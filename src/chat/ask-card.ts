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
import { buttonValue, CHAT_ACTION_ID } from './card-reference.js';
import type { ChatPlatform } from './platform.js';

/** A notification about the open ask: the first one, a reminder or an escalation. */
export type OpenNotification = Exclude<Notification, { kind: 'settled' }>;

/** What a card can take of an ask: its buttons, or why not (in the card's own words). */
export type CardFit =
  | { buttons: true; question: AskUserQuestion; typed: boolean }
  | { buttons: false; why: string };

/** The card posted to a recipient for an open ask. */
export function openAskCard(
  notification: OpenNotification,
  platform: ChatPlatform,
  reference: string,
): CardElement {
  const { questions, link } = notification;
  const fit = cardFit(questions, platform, reference, link !== undefined);
  const children: CardChild[] = [];
  const lead = LEADS[notification.kind];
  if (lead !== undefined) children.push(Text(lead, { style: 'muted' }));
  const shown = shownText(questions, platform);
  children.push(...shown.blocks);
  if (notification.deadline !== undefined) {
    children.push(Text(`Open until ${timeOf(notification.deadline)}.`, { style: 'muted' }));
  }
  const why = fit.buttons ? shown.why : (shown.why ?? fit.why);
  if (why !== undefined) children.push(Text(why));
  const actions: (ButtonElement | LinkButtonElement)[] = [];
  if (fit.buttons && shown.why === undefined) {
    fit.question.options.forEach((option, index) => {
      actions.push(
        Button({
          id: CHAT_ACTION_ID,
          label: platform.plainText(option.title),
          value: buttonValue(reference, { kind: 'option', n: index + 1 }),
        }),
      );
    });
    if (fit.typed) {
      actions.push(
        Button({
          id: CHAT_ACTION_ID,
          label: 'Type an answer',
          value: buttonValue(reference, { kind: 'typed' }),
          actionType: 'modal',
        }),
      );
    }
  }
  if (link !== undefined) {
    actions.push(
      LinkButton({
        url: link,
        label: why === undefined ? 'Open in browser' : 'Answer on the web page',
      }),
    );
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
  const children: CardChild[] = [...shown.blocks, Text(endingOf(outcome, platform))];
  return Card({ children });
}

const LEADS: Record<OpenNotification['kind'], string | undefined> = {
  created: undefined,
  reminded: 'Reminder: this question is still open.',
  escalated: 'Escalated to you: this question is still open.',
};

/**
 * Whether the ask's question fits a card's buttons on `platform`: one question, single choice,
 * every option a button with its whole label, a typed answer where the platform has a modal
 * (else the web link takes it), all within the platform's button count and payload.
 */
export function cardFit(
  questions: readonly AskUserQuestion[],
  platform: ChatPlatform,
  reference: string,
  hasLink: boolean,
): CardFit {
  const { limits, name } = platform;
  const [question] = questions;
  if (question === undefined || questions.length > 1) {
    return {
      buttons: false,
      why: `This ask has ${questions.length} questions and a card answers one.`,
    };
  }
  if (question.allowMultiple) {
    return {
      buttons: false,
      why: 'This question takes several choices and a card button takes one.',
    };
  }
  const typed = question.allowFreeform && platform.hasModals;
  if (question.options.length === 0 && !typed) {
    return {
      buttons: false,
      why: `This question wants a typed answer, which ${name} cards cannot take.`,
    };
  }
  const buttons = question.options.length + (typed ? 1 : 0) + (hasLink ? 1 : 0);
  if (buttons > limits.buttons) {
    return {
      buttons: false,
      why: `This question has ${question.options.length} options, more than the buttons a ${name} card holds (${limits.buttons} in all).`,
    };
  }
  for (const [index, option] of question.options.entries()) {
    const label = platform.plainText(option.title);
    if (label.length > limits.buttonLabel) {
      return {
        buttons: false,
        why: `Option ${index + 1} has ${label.length} characters, more than the ${limits.buttonLabel} a ${name} button shows.`,
      };
    }
  }
  const widest = buttonValue(reference, {
    kind: 'option',
    n: Math.max(1, question.options.length),
  });
  if (!platform.fitsButton(CHAT_ACTION_ID, widest)) {
    return { buttons: false, why: `This question's buttons do not fit ${name}'s button payload.` };
  }
  return { buttons: true, question, typed };
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

/** How the ask ended, in the card's words; the person's id escaped for the platform. */
function endingOf(outcome: SettledSummary, platform: ChatPlatform): string {
  const when = timeOf(outcome.at);
  switch (outcome.status) {
    case 'answered': {
      const by = outcome.answeredBy;
      return by === undefined
        ? `Answered at ${when}.`
        : `Answered by ${platform.escapeText(by.recipient)}${by.channel === undefined ? '' : ` (${platform.escapeText(by.channel)})`} at ${when}.`;
    }
    case 'cancelled':
      return `Cancelled (${outcome.reason}) at ${when}.`;
    case 'timedOut':
      return `Timed out at ${when}: nobody answered in time.`;
    case 'aborted':
      return `Closed at ${when}: the agent stopped waiting.`;
  }
}

/** A time as people read it in any time zone: `2026-12-05 16:30 UTC`. */
function timeOf(at: number): string {
  return `${new Date(at).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
