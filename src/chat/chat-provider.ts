/** The chat provider: the notify provider with a channel per Chat SDK adapter, and the clicks. */
import type { Chat } from 'chat';
import type { InteractionService } from '../engine/service-contract.js';
import { storeOf } from '../engine/store-of.js';
import type { NotifyChannel } from '../notify/channel.js';
import type { NotifyProviderOptions } from '../notify/notify-options.js';
import { createNotifyProvider, type NotifyProvider } from '../notify/notify-provider.js';
import { describe } from '../rules/describe.js';
import { cardReferenceFor, interactionIdFor } from './card-reference.js';
import { handleChatAnswers, type WhoMayAnswer } from './chat-answers.js';
import { createChatChannel } from './chat-channel.js';
import type { ChatPlatform } from './platform.js';
import { CHAT_PLATFORMS } from './platforms/index.js';

/** Options of `createChatProvider`: the notify provider's, with `chat` for the channels. */
export interface ChatProviderOptions extends Omit<NotifyProviderOptions, 'channels'> {
  /**
   * The Chat SDK instance (`new Chat({ adapters, state })`): each of its adapters is a channel
   * named after it (`'slack'`, `'telegram'`, ...), which recipients name. Its webhooks stay
   * yours to mount (`chat.webhooks.slack(request, { waitUntil })`): the provider registers its
   * action and modal handlers on it.
   */
  chat: Chat;
  /** More channels besides the chat's (email, webhooks): recipients name any of them. */
  channels?: readonly NotifyChannel[];
  /**
   * Platforms besides the built-in ones (Slack, Telegram), or in their place under the same
   * name: one per adapter of `chat` that has no built-in platform.
   */
  platforms?: readonly ChatPlatform[];
  /**
   * Who may answer from a card. `recipients` (default): only people the route named on this
   * platform, whose recipient `id` is their platform user id (`U0123ABC` on Slack, the numeric
   * id on Telegram), and only once their card was sent; for a quorum ask whose `from` names who
   * decides, those people (the engine refuses and audits anyone else), so one card in a team's
   * channel serves them all. `anyone`: whoever the platform lets see and click the card
   * (everyone in the channel), each recorded under their own platform user id; opt in only
   * where the channel's membership is who should decide.
   */
  whoMayAnswer?: WhoMayAnswer;
  /**
   * The interaction service that records the answers. Default: `server.service` (a web answer
   * server over `createInteractionService`).
   */
  service?: Pick<InteractionService, 'respond' | 'history' | 'get'>;
}

/** The chat provider: a notify provider whose channels post cards, answered by a click. */
export type ChatProvider = NotifyProvider;

/**
 * Hands each ask to the people `route` names, as a card in their chat: the question, its
 * context, a button per option, a typed answer in a modal where the platform has one, and their
 * own signed web link for whatever a card cannot hold (the card says why). A click answers
 * (`respond` for a quorum) as `by: { recipient: <platform user id>, channel: <adapter name> }`,
 * read only from the request the adapter verified. Built on `createNotifyProvider`: the card is
 * posted exactly once through the outbox across hosts and restarts, a reminder is a new card in
 * the same thread, an escalation posts to the new recipient, and when the ask settles anywhere
 * every card of it is edited to say how it ended and who decided. A click on a settled ask
 * changes nothing: the person is told so, only them, and the attempt is audited.
 *
 * A recipient is `{ id: <platform user id>, channel: <adapter name>, address }`, the address a
 * Chat SDK channel id (`slack:C0123`), thread id or `dm:<platform user id>`.
 *
 * @example
 * const chat = new Chat({ userName: 'approvals', adapters: { slack: createSlackAdapter() }, state });
 * const server = await createWebAnswerServer({ service, secret, baseUrl: 'https://asks.example.com' });
 * service.registerProvider(
 *   createChatProvider({
 *     chat,
 *     server,
 *     route: () => [{ id: 'U0ALICE', channel: 'slack', address: 'slack:C0DEPLOYS' }],
 *     reminders: { afterMs: 3_600_000 },
 *   }),
 * );
 * // In your HTTP server: POST /slack/events -> chat.webhooks.slack(request, { waitUntil })
 */
export function createChatProvider(options: ChatProviderOptions): ChatProvider {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(
      `Expected chat provider options { chat, server, route, ... }, got ${describe(options)}.`,
    );
  }
  const {
    chat,
    platforms = [],
    whoMayAnswer = 'recipients',
    channels = [],
    service: givenService,
    ...notify
  } = options;
  const webhooks = (chat as { webhooks?: unknown } | undefined)?.webhooks;
  if (
    typeof webhooks !== 'object' ||
    webhooks === null ||
    typeof chat.onAction !== 'function' ||
    typeof chat.getAdapter !== 'function'
  ) {
    throw new TypeError(
      `Expected \`chat\` to be a Chat SDK instance (new Chat({ adapters, state })), got ${describe(chat)}.`,
    );
  }
  if (whoMayAnswer !== 'recipients' && whoMayAnswer !== 'anyone') {
    throw new TypeError(
      `Expected \`whoMayAnswer\` to be 'recipients' or 'anyone', got ${describe(whoMayAnswer)}.`,
    );
  }
  const known = new Map<string, ChatPlatform>(CHAT_PLATFORMS.map((p) => [p.name, p]));
  for (const platform of Array.isArray(platforms) ? platforms : [platforms]) {
    if (
      typeof platform?.name !== 'string' ||
      typeof platform.escapeText !== 'function' ||
      typeof platform.plainText !== 'function' ||
      typeof platform.fitsButton !== 'function' ||
      typeof platform.limits !== 'object'
    ) {
      throw new TypeError(
        `Expected \`platforms\` to be an array of ChatPlatform ({ name, limits, fitsButton, hasModals, escapeText, plainText }), got ${describe(platform)}.`,
      );
    }
    known.set(platform.name, platform);
  }
  const used = new Map<string, ChatPlatform>();
  for (const name of Object.keys(webhooks)) {
    const platform = known.get(name);
    if (platform === undefined) {
      throw new TypeError(
        `The Chat SDK adapter ${describe(name)} has no ask-engine platform (built in: ${CHAT_PLATFORMS.map((p) => p.name).join(', ')}); name the adapter after one, or pass its platform in \`platforms\`.`,
      );
    }
    used.set(name, platform);
  }
  const service = givenService ?? (options.server as { service?: unknown } | undefined)?.service;
  if (
    typeof (service as { respond?: unknown } | undefined)?.respond !== 'function' ||
    typeof (service as { history?: unknown }).history !== 'function' ||
    typeof (service as { get?: unknown }).get !== 'function'
  ) {
    throw new TypeError(
      `Expected \`service\` (the interaction service recording answers), or a \`server\` made by createWebAnswerServer over one; got ${describe(service)}.`,
    );
  }
  const store = options.store ?? storeOf(service);
  if (typeof store?.findByInteractionId !== 'function') {
    throw new TypeError(
      "Expected `store` (the interaction service's ask store): the service given is not one made by createInteractionService, so there is no store to take.",
    );
  }
  const provider = createNotifyProvider({
    ...notify,
    store,
    channels: [
      ...[...used.values()].map((platform) => createChatChannel(chat, platform)),
      ...channels,
    ],
  });
  let open = true;
  handleChatAnswers(chat, {
    service: service as Pick<InteractionService, 'respond' | 'history' | 'get'>,
    store,
    platforms: used,
    whoMayAnswer,
    onError: notify.onError ?? ((error) => console.error(error)),
    isOpen: () => open,
  });
  return {
    async ask(request, ctx) {
      const outcome = await provider.ask(request, ctx);
      // Deferred under the cards' reference, so a click on any host finds the ask by it.
      return outcome.status === 'deferred'
        ? { ...outcome, interactionId: interactionIdFor(cardReferenceFor(ctx.askId)) }
        : outcome;
    },
    flush: () => provider.flush(),
    close() {
      open = false;
      return provider.close();
    },
  };
}
