/**
 * The outbox entries one ask hands over with its deferral: the first notification to each
 * recipient, their reminders, the escalation steps, and a settled notification to each of them.
 * All are written in that one write, so reminders and escalations are due times in the store:
 * they fire after a restart and are claimed by one sender across hosts. Every message but the
 * settled one is about the open ask (`whileOpen`): the store drops it if the ask settles before
 * it is sent, and holds the settled ones back while one is being sent; a settled one is sent
 * only to a recipient who was sent one of them (see the dispatcher).
 */
import type { AskUserQuestion } from '../contracts/question.js';
import type { OutboxEntry } from '../stores/ask-store.js';
import { deliveryIdFor } from './delivery-id.js';
import type { NotificationKind, NotificationRecipient } from './notification.js';
import type { ResolvedNotifyOptions } from './notify-options.js';

/** What an outbox entry of this provider carries. */
export interface NotifyPayload {
  /**
   * The notification as sent, except for `settled`: its `at` and `outcome` are read from the
   * stored ask when it is sent.
   */
  notification: Record<string, unknown> & { kind: NotificationKind };
}

/** One recipient, their own signed link and, when the server makes them, their inbox link. */
export interface LinkedRecipient {
  recipient: NotificationRecipient;
  link: string;
  inboxLink?: string;
}

export interface AskPlan {
  askId: string;
  questions: AskUserQuestion[];
  deadlineAt: number | undefined;
  /** When the ask was handed over: reminders and escalations count from here. */
  at: number;
  recipients: readonly LinkedRecipient[];
  /** Each escalation step's due time and recipients, in step order. */
  escalations: readonly { dueAt: number; recipients: readonly LinkedRecipient[] }[];
}

/** The entries of `plan`, one per delivery id (the first wins when a recipient repeats). */
export function outboxEntriesOf(
  plan: AskPlan,
  reminders: ResolvedNotifyOptions['reminders'],
): OutboxEntry[] {
  const entries = new Map<string, OutboxEntry>();
  const { askId, deadlineAt } = plan;
  const add = (
    { recipient, link, inboxLink }: LinkedRecipient,
    kind: NotificationKind,
    due: number | 'settled',
    seq?: number,
  ) => {
    const deliveryId = deliveryIdFor(askId, recipient.id, kind, seq);
    if (entries.has(deliveryId)) return;
    const notification: NotifyPayload['notification'] = {
      kind,
      askId,
      questions: plan.questions,
      recipient,
      link,
      ...(inboxLink === undefined || kind === 'settled' ? {} : { inboxLink }),
      ...(deadlineAt === undefined ? {} : { deadline: deadlineAt }),
      ...(due === 'settled' ? {} : { at: due }),
      ...(seq === undefined ? {} : { seq }),
    };
    const payload: NotifyPayload = { notification };
    entries.set(deliveryId, {
      deliveryId,
      askId,
      channel: recipient.channel,
      due,
      ...(kind === 'settled' ? {} : { whileOpen: true }),
      payload,
    });
  };
  const before = (time: number) => deadlineAt === undefined || time < deadlineAt;

  for (const recipient of plan.recipients) add(recipient, 'created', plan.at);
  for (let seq = 1; seq <= reminders.max; seq++) {
    const due = plan.at + reminders.afterMs + (seq - 1) * reminders.everyMs;
    if (!before(due)) break;
    for (const recipient of plan.recipients) add(recipient, 'reminded', due, seq);
  }
  plan.escalations.forEach(({ dueAt, recipients }, index) => {
    if (!before(dueAt)) return;
    for (const recipient of recipients) add(recipient, 'escalated', dueAt, index + 1);
  });
  for (const recipient of plan.recipients) add(recipient, 'settled', 'settled');
  for (const { dueAt, recipients } of plan.escalations) {
    if (!before(dueAt)) continue;
    for (const recipient of recipients) add(recipient, 'settled', 'settled');
  }
  return [...entries.values()];
}
