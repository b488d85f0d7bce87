/** The notify provider's options, checked once with an error that names the option and the fix. */
import type { AskUserRequest } from '../contracts/request.js';
import { type Clock, systemClock } from '../engine/clock.js';
import type { AskProviderContext } from '../engine/provider.js';
import { storeOf } from '../engine/store-of.js';
import { describe } from '../rules/describe.js';
import type { QuorumOption } from '../rules/quorum.js';
import type { AskLog, AskOutbox } from '../stores/ask-store.js';
import { type AskStorePorts, missingPort, readStorePorts } from '../stores/store-ports.js';
import type { AnswerAppLinks } from '../web/answer-app.js';
import type { NotifyChannel } from './channel.js';
import type { NotificationRecipient } from './notification.js';

/** Who is told of an ask: called once per ask, when it is handed over. */
export type NotifyRoute = (
  request: AskUserRequest,
  ctx: AskProviderContext,
) => NotifyRouteResult | Promise<NotifyRouteResult>;

/**
 * Whom to tell: the recipients, or (from the provider's `route` only) the recipients and the
 * quorum they decide by (`service.start`'s `quorum`: `required` of them must respond through
 * their links; `from` names the recipient ids that may). The quorum is set with the deferral.
 */
export type NotifyRouteResult =
  | readonly NotificationRecipient[]
  | { recipients: readonly NotificationRecipient[]; quorum?: QuorumOption };

/** Reminders to the first recipients while nobody answered. */
export interface NotifyReminders {
  /** The first reminder, this long after the ask was handed over. */
  afterMs: number;
  /** Then one every `everyMs`; without it there is one reminder. */
  everyMs?: number;
  /** At most this many (default: 1 without `everyMs`, else as many as fit before the deadline, at most 100). */
  max?: number;
}

/** One escalation step: this long after the ask was handed over, `route`'s recipients are told too. */
export interface NotifyEscalationStep {
  afterMs: number;
  /** Called when the ask is handed over, so the step's recipients are kept in the store. */
  route: NotifyRoute;
}

/** How the outbox is sent: polling, leases and retries. */
export interface NotifyDeliveryOptions {
  /** How often due messages are looked for, besides every store change (default 1 000 ms). */
  pollMs?: number;
  /**
   * How long a claimed message stays with its sender before another may send it (default
   * 300 000 ms): renewed every third of it while the send runs, so this is how long a sender that
   * died holds its messages, not a limit on a send.
   */
  leaseMs?: number;
  /** Sends tried per message before it is given up and reported (default 8). */
  maxAttempts?: number;
  /** Milliseconds before try `n + 1` after try `n` failed (default doubles from 1 s up to 10 min). */
  backoff?: (attempt: number) => number;
  /** Messages claimed at a time (default 32). */
  batch?: number;
}

/** Options of `createNotifyProvider`. */
export interface NotifyProviderOptions {
  /**
   * The web answer server (or answer app): each recipient gets their own signed link from it,
   * and, when it has `inboxLinkFor`, a link to their inbox of open asks.
   */
  server: Pick<AnswerAppLinks, 'linkFor'> & Partial<Pick<AnswerAppLinks, 'inboxLinkFor'>>;
  /**
   * The store the interaction service uses: messages are written to its outbox with the ask's
   * deferral and sent from there, by this provider or any other sharing the store. Default: the
   * store of `server.service` (a web answer server over `createInteractionService`); give it
   * for a server of your own or an answer app.
   */
  store?: AskStorePorts;
  /** The channels recipients name (`createEmailChannel`, `createWebhookChannel`, your own). */
  channels: readonly NotifyChannel[];
  /** Who is told of each ask. */
  route: NotifyRoute;
  reminders?: NotifyReminders;
  escalation?: readonly NotifyEscalationStep[];
  delivery?: NotifyDeliveryOptions;
  /** Time for due times and leases (default the system clock). */
  clock?: Clock;
  /** Messages given up on and failures of the sender itself (default `console.error`). */
  onError?: (error: unknown) => void;
}

export interface ResolvedNotifyOptions {
  server: NotifyProviderOptions['server'];
  /** The store's ask log with its outbox port. */
  store: AskLog & AskOutbox;
  channels: ReadonlyMap<string, NotifyChannel>;
  route: NotifyRoute;
  reminders: Required<Pick<NotifyReminders, 'afterMs'>> & { everyMs: number; max: number };
  escalation: readonly NotifyEscalationStep[];
  pollMs: number;
  leaseMs: number;
  maxAttempts: number;
  backoff: (attempt: number) => number;
  batch: number;
  clock: Clock;
  onError: (error: unknown) => void;
}

/** At most this many reminders per ask: each is a row written with the deferral. */
export const MAX_REMINDERS = 100;

export function resolveNotifyOptions(options: NotifyProviderOptions): ResolvedNotifyOptions {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(
      `Expected notify provider options { server, channels, route, store? }, got ${describe(options)}.`,
    );
  }
  const { server, route, delivery = {} } = options;
  const store = options.store ?? storeOf((server as { service?: unknown } | undefined)?.service);
  if (typeof server?.linkFor !== 'function') {
    throw new TypeError(
      `Expected \`server\` to be the web answer server (createWebAnswerServer) or answer app, got ${describe(server)}.`,
    );
  }
  if (store === undefined) {
    throw new TypeError(
      "Expected `store` (the interaction service's ask store): the `server` given has no `service` made by createInteractionService to take it from.",
    );
  }
  const ports = readStorePorts(store, 'store');
  if (ports.outbox === undefined) throw missingPort('The notify provider', 'outbox');
  checkRoute(route, '`route`');
  const channels = new Map<string, NotifyChannel>();
  if (!Array.isArray(options.channels) || options.channels.length === 0) {
    throw new TypeError(
      `Expected \`channels\` to be a non-empty array of channels (createEmailChannel(...), ...), got ${describe(options.channels)}.`,
    );
  }
  for (const channel of options.channels) {
    if (
      typeof channel?.name !== 'string' ||
      typeof channel.send !== 'function' ||
      !['undefined', 'function'].includes(typeof channel.checkAddress)
    ) {
      throw new TypeError(
        `Expected each channel to be { name, send(notification, signal), checkAddress?(address) }, got ${describe(channel)}.`,
      );
    }
    if (channels.has(channel.name)) {
      throw new TypeError(
        `Two channels are named ${describe(channel.name)}; give one another \`name\`.`,
      );
    }
    channels.set(channel.name, channel);
  }
  const escalation = options.escalation ?? [];
  if (!Array.isArray(escalation)) {
    throw new TypeError(
      `Expected \`escalation\` to be an array of { afterMs, route }, got ${describe(escalation)}.`,
    );
  }
  escalation.forEach((step: NotifyEscalationStep, index) => {
    checkMs(step?.afterMs, `\`escalation[${index}].afterMs\``, 0);
    checkRoute(step.route, `\`escalation[${index}].route\``);
  });
  const {
    pollMs = 1_000,
    leaseMs = 300_000,
    maxAttempts = 8,
    backoff = defaultBackoff,
    batch = 32,
  } = delivery;
  checkMs(pollMs, '`delivery.pollMs`', 1);
  checkMs(leaseMs, '`delivery.leaseMs`', 1);
  checkCount(maxAttempts, '`delivery.maxAttempts`');
  checkCount(batch, '`delivery.batch`');
  if (typeof backoff !== 'function') {
    throw new TypeError(
      `Expected \`delivery.backoff\` to be a function from the attempt number to milliseconds, got ${describe(backoff)}.`,
    );
  }
  const clock = options.clock ?? systemClock;
  if (typeof clock?.now !== 'function') {
    throw new TypeError(
      `Expected \`clock\` to have now() (like systemClock), got ${describe(clock)}.`,
    );
  }
  const onError = options.onError ?? ((error: unknown) => console.error(error));
  if (typeof onError !== 'function') {
    throw new TypeError(`Expected \`onError\` to be a function, got ${describe(onError)}.`);
  }
  return {
    server,
    store: ports.log as AskLog & AskOutbox,
    channels,
    route,
    reminders: readReminders(options.reminders),
    escalation,
    pollMs,
    leaseMs,
    maxAttempts,
    backoff,
    batch,
    clock,
    onError,
  };
}

function readReminders(reminders: NotifyReminders | undefined): ResolvedNotifyOptions['reminders'] {
  if (reminders === undefined) return { afterMs: 0, everyMs: 0, max: 0 };
  if (typeof reminders !== 'object' || reminders === null) {
    throw new TypeError(
      `Expected \`reminders\` to be { afterMs, everyMs?, max? }, got ${describe(reminders)}.`,
    );
  }
  const { afterMs, everyMs, max } = reminders;
  checkMs(afterMs, '`reminders.afterMs`', 1);
  if (everyMs !== undefined) checkMs(everyMs, '`reminders.everyMs`', 1);
  if (max !== undefined) checkCount(max, '`reminders.max`');
  return {
    afterMs,
    everyMs: everyMs ?? 0,
    max: Math.min(max ?? (everyMs === undefined ? 1 : MAX_REMINDERS), MAX_REMINDERS),
  };
}

function checkRoute(route: unknown, what: string): void {
  if (typeof route !== 'function') {
    throw new TypeError(
      `Expected ${what} to be a function (request, ctx) => [{ id, channel, address }], got ${describe(route)}.`,
    );
  }
}

function checkMs(value: unknown, what: string, min: number): asserts value is number {
  if (!Number.isSafeInteger(value) || (value as number) < min) {
    throw new TypeError(
      `Expected ${what} to be whole milliseconds from ${min} up, got ${describe(value)}.`,
    );
  }
}

function checkCount(value: unknown, what: string): void {
  if (!Number.isSafeInteger(value) || (value as number) < 1) {
    throw new TypeError(`Expected ${what} to be an integer from 1 and up, got ${describe(value)}.`);
  }
}

function defaultBackoff(attempt: number): number {
  return Math.min(600_000, 1_000 * 2 ** (attempt - 1));
}
