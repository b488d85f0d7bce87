/**
 * Discord, Teams and Google Chat behind one small interface for the end-to-end tests: each
 * driver starts its platform's fake, makes the real Chat SDK adapter against it, reads the cards
 * the adapter posted and edited as the platform received them, and clicks a button the way the
 * platform would deliver the click (signed, as the signature tests check).
 */
import { createDiscordAdapter } from '@chat-adapter/discord';
import { ConsoleLogger } from 'chat';
import type { ChatPlatform } from '../../../src/chat/platform.js';
import { discordPlatform } from '../../../src/chat/platforms/discord.js';
import { verifyDiscordRequests } from '../../../src/chat/platforms/discord-request.js';
import { gchatPlatform } from '../../../src/chat/platforms/gchat.js';
import { teamsPlatform } from '../../../src/chat/platforms/teams.js';
import type { RecordedCall } from '../../support/fake-chat-api.js';
import { startFakeDiscordApi } from '../../support/fake-discord-api.js';
import {
  createOfflineGoogleChatAdapter,
  routeGoogleCertsTo,
  startFakeGoogleChatApi,
} from '../../support/fake-gchat-api.js';
import { createOfflineTeamsAdapter, startFakeTeamsApi } from '../../support/fake-teams-api.js';

/** A button as the platform got it: its label, and its value (an ask-engine button) or URL. */
export interface ShownButton {
  label: string;
  value?: string;
  url?: string;
}

/** A card as the platform got it: where it went, its text (JSON of its blocks) and buttons. */
export interface ShownCard {
  call: RecordedCall;
  text: string;
  /** The card's text as a person reads it: its blocks, the platform's escaping undone. */
  read: string;
  buttons: ShownButton[];
}

/** Text escaped with backslashes before ASCII punctuation (Discord, Teams' Markdown), as read. */
function withoutBackslashes(text: string): string {
  return text
    .replace(/\\([!-/:-@[-`{-~])/g, '$1')
    .replace(/&#32;/g, ' ')
    .replace(/&#9;/g, '\t');
}

/** Google Chat's HTML-subset text, as read. */
function withoutEntities(text: string): string {
  return text
    .replace(/\u2060/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** One platform, faked, with the real adapter talking to the fake. */
export interface PlatformDriver {
  name: 'discord' | 'teams' | 'gchat';
  /** ask-engine's rules for the platform. */
  platform: ChatPlatform;
  /** Three platform user ids, as the platform's verified requests carry them. */
  users: readonly [string, string, string];
  /** The route's recipient for `userId`, whose card goes to a shared channel or space. */
  recipient(userId: string): { id: string; channel: string; address: string };
  /** The Chat SDK adapter, named `name`. */
  adapter: { readonly name: string };
  /** Cards posted so far, in order (private notices excluded). */
  cards(): ShownCard[];
  /** Cards edited so far, in order. */
  edits(): ShownCard[];
  /** What was told privately to `userId` so far, each as the JSON the platform got. */
  privateNotices(userId: string): string[];
  /** `userId` clicking the button with `value` on `card`, as a signed request; `forged` signs wrong. */
  click(userId: string, card: ShownCard, value: string, forged?: boolean): Request;
  /** Teams only: `userId` opening (`task/fetch`) or sending (`task/submit`) a dialog of `card`. */
  dialog?(
    userId: string,
    card: ShownCard,
    name: 'task/fetch' | 'task/submit',
    data: Record<string, unknown>,
  ): Request;
  close(): Promise<void>;
}

export async function startDiscordDriver(): Promise<PlatformDriver> {
  const fake = await startFakeDiscordApi();
  const other = await startFakeDiscordApi();
  const shown = (call: RecordedCall): ShownCard => {
    const body = call.body as {
      embeds?: { description?: string }[];
      components?: { components: { label: string; custom_id?: string; url?: string }[] }[];
    };
    return {
      call,
      text: JSON.stringify(body.embeds ?? []),
      read: withoutBackslashes((body.embeds ?? []).map((embed) => embed.description).join('\n')),
      buttons: (body.components ?? [])
        .flatMap((row) => row.components)
        .map((button) => ({
          label: button.label,
          ...(button.custom_id === undefined
            ? {}
            : { value: button.custom_id.slice(button.custom_id.indexOf('\n') + 1) }),
          ...(button.url === undefined ? {} : { url: button.url }),
        })),
    };
  };
  const channelOf = (call: RecordedCall) => call.path.split('/')[4] ?? '';
  return {
    name: 'discord',
    platform: discordPlatform,
    users: ['80351110224678912', '80351110224678913', '80351110224678914'],
    recipient: (id) => ({ id, channel: 'discord', address: 'discord:G1:C1' }),
    adapter: createDiscordAdapter({
      apiUrl: fake.apiUrl,
      applicationId: 'test-application',
      botToken: 'test-bot-token',
      publicKey: fake.publicKey,
      webhookVerifier: verifyDiscordRequests({ publicKey: fake.publicKey }),
      logger: new ConsoleLogger('silent'),
    }),
    cards: () =>
      fake
        .posted()
        .filter((call) => !channelOf(call).startsWith('dm-'))
        .map(shown),
    edits: () => fake.edited().map(shown),
    privateNotices: (userId) =>
      fake
        .posted()
        .filter((call) => channelOf(call) === `dm-${userId}`)
        .map((call) => JSON.stringify(call.body)),
    click: (userId, card, value, forged = false) =>
      (forged ? other : fake).click({
        userId,
        guildId: 'G1',
        channelId: channelOf(card.call),
        messageId: answered(card.call, 'id'),
        customId: `ask-engine\n${value}`,
      }),
    close: async () => {
      await Promise.all([fake.close(), other.close()]);
    },
  };
}

export async function startTeamsDriver(): Promise<PlatformDriver> {
  const fake = await startFakeTeamsApi();
  const adapter = createOfflineTeamsAdapter(fake);
  const conversation = '19:deploys@thread.tacv2';
  const shown = (call: RecordedCall): ShownCard => {
    const body = call.body as {
      attachments?: {
        content?: {
          body?: { text?: string }[];
          actions?: { type: string; title: string; data?: { value?: string }; url?: string }[];
        };
      }[];
    };
    const card = body.attachments?.[0]?.content;
    return {
      call,
      text: JSON.stringify(card?.body ?? []),
      read: withoutBackslashes((card?.body ?? []).map((block) => block.text).join('\n')),
      buttons: (card?.actions ?? []).map((action) => ({
        label: action.title,
        ...(action.data?.value === undefined ? {} : { value: action.data.value }),
        ...(action.url === undefined ? {} : { url: action.url }),
      })),
    };
  };
  const isTargeted = (call: RecordedCall) =>
    (call.body as { recipient?: unknown }).recipient !== undefined;
  return {
    name: 'teams',
    platform: teamsPlatform,
    users: ['29:1a2b3c-alice', '29:1a2b3c-bob', '29:1a2b3c-carol'],
    recipient: (id) => ({
      id,
      channel: 'teams',
      address: adapter.encodeThreadId({
        conversationId: conversation,
        serviceUrl: fake.serviceUrl,
      }),
    }),
    adapter,
    cards: () =>
      fake
        .sent()
        .filter((call) => !isTargeted(call))
        .map(shown),
    edits: () => fake.updated().map(shown),
    privateNotices: (userId) =>
      fake
        .sent()
        .filter((call) => (call.body as { recipient?: { id?: string } }).recipient?.id === userId)
        .map((call) => JSON.stringify(call.body)),
    click: (userId, card, value, forged = false) =>
      fake.click({
        userId,
        conversationId: conversation,
        activityId: answered(card.call, 'id'),
        data: { actionId: 'ask-engine', value },
        ...(forged ? { authorization: `Bearer ${fake.inboundToken({ aud: 'another-app' })}` } : {}),
      }),
    dialog: (userId, card, name, data) =>
      fake.dialog({
        name,
        userId,
        conversationId: conversation,
        activityId: answered(card.call, 'id'),
        data,
      }),
    close: () => fake.close(),
  };
}

export async function startGoogleChatDriver(): Promise<PlatformDriver> {
  const fake = await startFakeGoogleChatApi();
  const restoreFetch = routeGoogleCertsTo(fake);
  const space = 'spaces/AAAAdeploys';
  const shown = (call: RecordedCall): ShownCard => {
    const body = call.body as {
      cardsV2?: {
        card: {
          sections?: {
            widgets?: {
              textParagraph?: { text: string };
              buttonList?: {
                buttons: {
                  text: string;
                  onClick: {
                    action?: { parameters: { key: string; value: string }[] };
                    openLink?: { url: string };
                  };
                }[];
              };
            }[];
          }[];
        };
      }[];
    };
    const sections = body.cardsV2?.[0]?.card.sections ?? [];
    const widgets = sections.flatMap((section) => section.widgets ?? []);
    return {
      call,
      text: JSON.stringify(widgets.filter((widget) => widget.buttonList === undefined)),
      read: withoutEntities(widgets.map((widget) => widget.textParagraph?.text).join('\n')),
      buttons: widgets
        .flatMap((widget) => widget.buttonList?.buttons ?? [])
        .map((button) => {
          const value = button.onClick.action?.parameters.find((p) => p.key === 'value')?.value;
          const url = button.onClick.openLink?.url;
          return {
            label: button.text,
            ...(value === undefined ? {} : { value }),
            ...(url === undefined ? {} : { url }),
          };
        }),
    };
  };
  const viewer = (call: RecordedCall) =>
    (call.body as { privateMessageViewer?: { name?: string } }).privateMessageViewer?.name;
  return {
    name: 'gchat',
    platform: gchatPlatform,
    users: ['users/1001', 'users/1002', 'users/1003'],
    recipient: (id) => ({ id, channel: 'gchat', address: `gchat:${space}` }),
    adapter: createOfflineGoogleChatAdapter(fake),
    cards: () =>
      fake
        .created()
        .filter((call) => viewer(call) === undefined)
        .map(shown),
    edits: () => fake.updated().map(shown),
    privateNotices: (userId) =>
      fake
        .created()
        .filter((call) => viewer(call) === userId)
        .map((call) => JSON.stringify(call.body)),
    click: (userId, card, value, forged = false) =>
      fake.click({
        userName: userId,
        spaceName: space,
        messageName: answered(card.call, 'name'),
        parameters: { actionId: 'ask-engine', value },
        ...(forged ? { authorization: `Bearer ${fake.inboundToken({ aud: '999' })}` } : {}),
      }),
    close: async () => {
      restoreFetch();
      await fake.close();
    },
  };
}

/** A field of what the fake answered to `call` (the posted message's id, say). */
function answered(call: RecordedCall, field: string): string {
  const value = (call.answer?.body as Record<string, unknown> | undefined)?.[field];
  if (typeof value !== 'string') throw new Error(`the fake answered ${call.path} with no ${field}`);
  return value;
}

/** Every driver, by name, for `describe.each`. */
export const PLATFORM_DRIVERS = [
  ['discord', startDiscordDriver],
  ['teams', startTeamsDriver],
  ['gchat', startGoogleChatDriver],
] as const;
