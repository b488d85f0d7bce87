/** An `AskProvider` that hands each ask to people: their own links by email, webhook or any channel. */
import type { AskProvider } from '../engine/provider.js';
import { compileCheck } from '../rules/compiled-check.js';
import { describe } from '../rules/describe.js';
import { type NotificationRecipient, NotificationRecipientSchema } from './notification.js';
import {
  type NotifyProviderOptions,
  type NotifyRoute,
  type ResolvedNotifyOptions,
  resolveNotifyOptions,
} from './notify-options.js';
import { OutboxDispatcher } from './outbox-dispatcher.js';
import { type LinkedRecipient, outboxEntriesOf } from './outbox-plan.js';

/** The notify provider: an `AskProvider` that also sends its outbox until it is closed. */
export interface NotifyProvider extends AskProvider {
  /** Sends every message due now; resolves with how many were sent. */
  flush(): Promise<number>;
  /** Stops sending (messages left in the outbox are sent by the next provider on the store). */
  close(): Promise<void>;
}

const recipientCheck = compileCheck(NotificationRecipientSchema);

/**
 * Hands each ask to the recipients `route` names: the ask is deferred (the caller gets
 * `deferred`, the answer comes through each recipient's own signed link, recorded as
 * `answeredBy`), and in the same store write as that deferral the outbox gets a notification
 * per recipient, their reminders, the escalation steps and, for when the ask settles, a
 * settled notification to everyone told. A process killed after that write still has them sent
 * (by this provider once restarted, or any other on the store), with the same Message-ID /
 * webhook-id. Reminders and escalations are due times in the store, sent once across hosts and
 * dropped when the ask settles first; escalation only tells more people, it never answers.
 *
 * @example
 * const server = await createWebAnswerServer({ service, secret, baseUrl: 'https://asks.example.com' });
 * const provider = createNotifyProvider({
 *   server,
 *   store,
 *   channels: [createEmailChannel({ transport, from: 'approvals@example.com' })],
 *   route: () => [{ id: 'alice', channel: 'email', address: 'alice@example.com' }],
 *   reminders: { afterMs: 3_600_000 },
 *   escalation: [{ afterMs: 4 * 3_600_000, route: () => [{ id: 'lead', channel: 'email', address: 'lead@example.com' }] }],
 * });
 * service.registerProvider(provider);
 */
export function createNotifyProvider(options: NotifyProviderOptions): NotifyProvider {
  const resolved = resolveNotifyOptions(options);
  const dispatcher = new OutboxDispatcher(resolved);
  return {
    async ask(request, ctx) {
      ctx.signal.throwIfAborted();
      if (typeof ctx.queueOutbox !== 'function') {
        throw new TypeError(
          'The notify provider writes its notifications with the deferral: register it with an interaction service (service.registerProvider), which gives ctx.queueOutbox.',
        );
      }
      const at = resolved.clock.now();
      const linked = (route: NotifyRoute, what: string) =>
        recipientsOf(resolved, route, what, request, ctx);
      const recipients = await linked(resolved.route, '`route`');
      if (recipients.length === 0) {
        return {
          status: 'cancelled',
          reason: 'unavailable',
          message: 'The notify route named nobody to ask.',
        };
      }
      const escalations = [];
      for (const [index, step] of resolved.escalation.entries()) {
        escalations.push({
          dueAt: at + step.afterMs,
          recipients: await linked(step.route, `\`escalation[${index}].route\``),
        });
      }
      const entries = outboxEntriesOf(
        {
          askId: ctx.askId,
          questions: request.questions,
          deadlineAt: ctx.deadlineAt,
          at,
          recipients,
          escalations,
        },
        resolved.reminders,
      );
      // What is due at once is written leased to this provider's sender, which sends it
      // without a claim once the write applied.
      dispatcher.lease(entries, at);
      ctx.queueOutbox(entries);
      const names = recipients.map(({ recipient }) => `${recipient.id} (${recipient.channel})`);
      return {
        status: 'deferred',
        interactionId: ctx.askId,
        message: `Sent to ${names.join(', ')}; the answer comes through their links.`,
      };
    },
    flush: () => dispatcher.flush(),
    close: () => dispatcher.close(),
  };
}

/** The recipients a route names, checked, each with their own signed link. */
async function recipientsOf(
  options: ResolvedNotifyOptions,
  route: NotifyRoute,
  what: string,
  ...args: Parameters<NotifyRoute>
): Promise<LinkedRecipient[]> {
  const named = await route(...args);
  if (!Array.isArray(named)) {
    throw new TypeError(
      `Expected ${what} to return an array of { id, channel, address }, got ${describe(named)}.`,
    );
  }
  const seen = new Set<string>();
  const linked: LinkedRecipient[] = [];
  for (const value of named as unknown[]) {
    if (!recipientCheck.check(value)) {
      const error = recipientCheck.firstError(value);
      throw new TypeError(
        `Expected ${what} to return recipients { id, channel, address } (non-empty strings), got ${describe(value)}: ${error?.path || '(root)'} ${error?.message ?? 'not valid'}.`,
      );
    }
    const recipient: NotificationRecipient = value;
    if (!options.channels.has(recipient.channel)) {
      throw new TypeError(
        `${what} named channel ${describe(recipient.channel)} for ${describe(recipient.id)}, but the notify provider has only ${[...options.channels.keys()].map((name) => describe(name)).join(', ')}; add that channel to \`channels\`.`,
      );
    }
    if (seen.has(recipient.id)) continue;
    seen.add(recipient.id);
    const by = { recipient: recipient.id, channel: recipient.channel };
    const link = await options.server.linkFor(args[1].askId, by);
    // Their inbox too (every open ask they were told of), when the server makes such links.
    const inboxLink = options.server.inboxLinkFor?.(by);
    linked.push(
      inboxLink === undefined
        ? { recipient: { ...recipient }, link }
        : { recipient: { ...recipient }, link, inboxLink },
    );
  }
  return linked;
}
