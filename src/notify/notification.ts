/** What a channel is asked to deliver: one message about one ask to one recipient. */
import { type Static, Type } from '@sinclair/typebox';
import { AnsweredBySchema, AskCancelReasonSchema } from '../contracts/outcome.js';
import { AskUserQuestionSchema } from '../contracts/question.js';
import { compileCheck } from '../rules/compiled-check.js';
import { describe } from '../rules/describe.js';

/** Who is told, and how: `channel` names the `NotifyChannel` that delivers to `address`. */
export const NotificationRecipientSchema = Type.Object(
  {
    /** The recipient's own id, stable across notifications; `answeredBy` names it. */
    id: Type.String({ minLength: 1 }),
    /** The `name` of the channel that reaches this recipient (`'email'`, `'webhook'`, ...). */
    channel: Type.String({ minLength: 1 }),
    /** Where that channel reaches them: a mail address, a chat handle, ... */
    address: Type.String({ minLength: 1 }),
  },
  { additionalProperties: false },
);
/** One person to notify, and the channel and address that reach them. */
export type NotificationRecipient = Static<typeof NotificationRecipientSchema>;

const at = Type.Integer({ minimum: 0 });

/** The longest receipt (`NotifyReceipt.ref`) a channel may keep of a message it sent. */
export const MAX_RECEIPT_LENGTH = 1024;

// One schema per status, so a wrong summary is explained by its own branch.
const settledSummaries = {
  answered: Type.Object(
    { status: Type.Literal('answered'), at, answeredBy: Type.Optional(AnsweredBySchema) },
    { additionalProperties: false },
  ),
  cancelled: Type.Object(
    { status: Type.Literal('cancelled'), at, reason: AskCancelReasonSchema },
    { additionalProperties: false },
  ),
  timedOut: Type.Object({ status: Type.Literal('timedOut'), at }, { additionalProperties: false }),
  aborted: Type.Object({ status: Type.Literal('aborted'), at }, { additionalProperties: false }),
};

/**
 * How an ask ended, told to the people who were asked. It has no room for answers: a settled
 * notification says who answered and when, and what they answered stays in the store.
 */
export const SettledSummarySchema = Type.Union(Object.values(settledSummaries));
/** How an ask ended (`status` and when), and for an answer who gave it; never the answers. */
export type SettledSummary = Static<typeof SettledSummarySchema>;

/**
 * Why a notification is sent: the ask was `created`, a `reminded` or `escalated` step came due,
 * or the ask `settled`.
 */
export const NOTIFICATION_KINDS = ['created', 'reminded', 'escalated', 'settled'] as const;
/** `created`, `reminded`, `escalated` or `settled`. */
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

const common = {
  askId: Type.String({ minLength: 1 }),
  /** When the transition that caused the notification happened, in ms since the epoch. */
  at,
  questions: Type.Array(AskUserQuestionSchema, { minItems: 1 }),
  recipient: NotificationRecipientSchema,
  /** The recipient's own signed link: the answer form, or once settled, who answered. */
  link: Type.Optional(Type.String({ pattern: '^https?://[^\\s]+$' })),
  /**
   * The recipient's own signed inbox link: every open ask they were told of (when the server
   * makes such links, `server.inboxLinkFor`). Not in `settled` notifications.
   */
  inboxLink: Type.Optional(Type.String({ pattern: '^https?://[^\\s]+$' })),
  /** When the ask times out, in ms since the epoch. */
  deadline: Type.Optional(at),
  /**
   * The receipts (`NotifyReceipt.ref`) of the messages sent to this recipient about this ask
   * before this one, oldest first: absent when there are none (always, for `created`).
   */
  receipts: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: MAX_RECEIPT_LENGTH }), { minItems: 1 }),
  ),
};
/** Which reminder or escalation step this is: 1, 2, ...; each step is its own delivery. */
const seq = Type.Integer({ minimum: 1 });

const notifications = {
  created: Type.Object(
    { kind: Type.Literal('created'), ...common },
    { additionalProperties: false },
  ),
  reminded: Type.Object(
    { kind: Type.Literal('reminded'), seq, ...common },
    { additionalProperties: false },
  ),
  escalated: Type.Object(
    { kind: Type.Literal('escalated'), seq, ...common },
    { additionalProperties: false },
  ),
  settled: Type.Object(
    { kind: Type.Literal('settled'), ...common, outcome: SettledSummarySchema },
    { additionalProperties: false },
  ),
};

/**
 * A notification: one message about one ask to one recipient, told apart by `kind`. Every kind
 * carries the ask id, the time of its cause, the questions, the recipient and optionally their
 * link and the deadline; reminders and escalations add their step `seq`, a settled one its
 * summary.
 */
export const NotificationSchema = Type.Union(Object.values(notifications));
/** A notification a channel delivers; `readNotification` checks one. */
export type Notification = Static<typeof NotificationSchema>;

const notificationCheck = compileCheck(NotificationSchema);
const kindChecks = mapValues(notifications, compileCheck);
const summaryChecks = mapValues(settledSummaries, compileCheck);

/**
 * Checks that a value is a notification and returns it typed; otherwise throws a `TypeError`
 * naming the first field that is wrong. Channels call it first, so a notification read back from
 * an outbox row is checked again before anything is sent.
 *
 * @example
 * readNotification({ kind: 'created', askId, at: Date.now(), questions, recipient, link });
 */
export function readNotification(value: unknown): Notification {
  if (notificationCheck.check(value)) return value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeError(`Expected a notification object, got ${describe(value)}.`);
  }
  const kind = (value as { kind?: unknown }).kind;
  if (!NOTIFICATION_KINDS.includes(kind as NotificationKind)) {
    throw new TypeError(
      `Expected notification \`kind\` to be one of ${NOTIFICATION_KINDS.join(', ')}, got ${describe(kind)}.`,
    );
  }
  // The branch for its kind states the problem; the union would only say "no branch matched".
  let error = kindChecks[kind as NotificationKind].firstError(value);
  const outcome = (value as { outcome?: unknown }).outcome;
  if (error?.path === '/outcome' && typeof outcome === 'object' && outcome !== null) {
    const status = (outcome as { status?: unknown }).status;
    if (!Object.hasOwn(settledSummaries, status as string)) {
      throw new TypeError(
        `Invalid settled notification at \`outcome.status\`: expected one of ${Object.keys(settledSummaries).join(', ')}, got ${describe(status)}.`,
      );
    }
    const inner = summaryChecks[status as keyof typeof settledSummaries].firstError(outcome);
    if (inner !== undefined) error = { path: `/outcome${inner.path}`, message: inner.message };
  }
  const path = error?.path ?? '';
  throw new TypeError(
    `Invalid ${String(kind)} notification at \`${fieldOf(path) || '(root)'}\`: ${error?.message ?? 'not valid'}, got ${describe(valueAt(value, path))}.`,
  );
}

function mapValues<K extends string, V, R>(
  record: Record<K, V>,
  fn: (value: V) => R,
): Record<K, R> {
  return Object.fromEntries(
    Object.entries(record).map(([key, value]) => [key, fn(value as V)]),
  ) as Record<K, R>;
}

/** `/recipient/address` reads as `recipient.address`, `/questions/0/id` as `questions[0].id`. */
function fieldOf(path: string): string {
  return path
    .split('/')
    .slice(1)
    .map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : i === 0 ? part : `.${part}`))
    .join('');
}

function valueAt(value: unknown, path: string): unknown {
  let at = value;
  for (const part of path.split('/').slice(1)) {
    if (typeof at !== 'object' || at === null) return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  return at;
}
