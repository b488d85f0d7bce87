/** An `AskProvider` that hands each ask to people: their own links by email, webhook or any channel. */
import type { AskProvider } from '../engine/provider.js';
import { compileCheck } from '../rules/compiled-check.js';
import { describe, messageOf } from '../rules/describe.js';
import { personKey, readPersonId } from '../rules/person-id.js';
import type { QuorumOption } from '../rules/quorum.js';
import { type NotificationRecipient, NotificationRecipientSchema } from './notification.js';
import {
  type NotifyProviderOptions,
  type NotifyRoute,
  type NotifyRouteResult,
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
      const at = resolved.clock.now();
      const linked = async (route: NotifyRoute, what: string) =>
        recipientsOf(resolved, await routed(route, what, request, ctx), what, ctx.askId);
      const first = await routed(resolved.route, '`route`', request, ctx, true);
      const recipients = await recipientsOf(resolved, first, '`route`', ctx.askId);
      if (recipients.length === 0) {
        return {
          status: 'cancelled',
          reason: 'unavailable',
          message: 'The notify route named nobody to ask.',
        };
      }
      // The people decide by a quorum: written with the deferral (checked like start's option).
      const quorum = Array.isArray(first) ? undefined : (first as { quorum?: QuorumOption }).quorum;
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
      const names = recipients.map(({ recipient }) => `${recipient.id} (${recipient.channel})`);
      return {
        status: 'deferred',
        interactionId: ctx.askId,
        message: `Sent to ${names.join(', ')}; the answer comes through their links.`,
        // Written in the deferral's own store write: sent if and only if the deferral is stored.
        outbox: entries,
        ...(quorum === undefined ? {} : { quorum }),
      };
    },
    flush: () => dispatcher.flush(),
    close: () => dispatcher.close(),
  };
}

/**
 * What a route returned: an array of recipients, or (the provider's own route only,
 * `withQuorum`) `{ recipients, quorum? }`.
 */
async function routed(
  route: NotifyRoute,
  what: string,
  request: Parameters<NotifyRoute>[0],
  ctx: Parameters<NotifyRoute>[1],
  withQuorum = false,
): Promise<NotifyRouteResult> {
  const result = await route(request, ctx);
  if (Array.isArray(result)) return result;
  const shaped =
    withQuorum &&
    typeof result === 'object' &&
    result !== null &&
    Array.isArray((result as { recipients?: unknown }).recipients) &&
    Object.keys(result).every((key) => key === 'recipients' || key === 'quorum');
  if (!shaped) {
    throw new TypeError(
      `Expected ${what} to return an array of { id, channel, address }${withQuorum ? ' or { recipients, quorum? }' : ''}, got ${describe(result)}.`,
    );
  }
  return result;
}

/** The recipients a route named, checked, each with their own signed link. */
async function recipientsOf(
  options: ResolvedNotifyOptions,
  result: NotifyRouteResult,
  what: string,
  askId: string,
): Promise<LinkedRecipient[]> {
  const named = Array.isArray(result) ? result : (result as { recipients: unknown[] }).recipients;
  const seen = new Set<string>();
  const linked: LinkedRecipient[] = [];
  for (const value of named as unknown[]) {
    if (!recipientCheck.check(value)) {
      const error = recipientCheck.firstError(value);
      throw new TypeError(
        `Expected ${what} to return recipients { id, channel, address } (non-empty strings), got ${describe(value)}: ${error?.path || '(root)'} ${error?.message ?? 'not valid'}.`,
      );
    }
    // The id as the route gave it (a chat platform's ids are case-sensitive), checked.
    const recipient: NotificationRecipient = {
      ...value,
      id: readPersonId(value.id, 'recipient.id'),
    };
    const channel = options.channels.get(recipient.channel);
    if (channel === undefined) {
      throw new TypeError(
        `${what} named channel ${describe(recipient.channel)} for ${describe(recipient.id)}, but the notify provider has only ${[...options.channels.keys()].map((name) => describe(name)).join(', ')}; add that channel to \`channels\`.`,
      );
    }
    try {
      channel.checkAddress?.(recipient.address);
    } catch (error) {
      throw new TypeError(
        `${what} named recipient ${describe(recipient.id)} with an address the ${describe(recipient.channel)} channel refuses: ${messageOf(error)}`,
        { cause: error },
      );
    }
    // One person once, in whichever spelling the route named them first.
    if (seen.has(personKey(recipient.id))) continue;
    seen.add(personKey(recipient.id));
    const by = { recipient: recipient.id, channel: recipient.channel };
    const link = await options.server.linkFor(askId, by);
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
