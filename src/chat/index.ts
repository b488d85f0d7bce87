/**
 * `ask-engine/chat`: reach people where they chat. `createChatProvider` posts each ask as a card
 * through Vercel's Chat SDK (`chat`, an optional peer) to Slack, Telegram, Discord, Microsoft
 * Teams, Google Chat and any platform given as a `ChatPlatform`, settles it from a verified
 * click or modal, and edits every card once the ask settles anywhere.
 *
 * @module ask-engine/chat
 */

export type { AnsweredBy } from '../contracts/outcome.js';
export type { NotifyChannel, NotifyReceipt } from '../notify/channel.js';
export type {
  Notification,
  NotificationRecipient,
  SettledSummary,
} from '../notify/notification.js';
export type {
  NotifyDeliveryOptions,
  NotifyEscalationStep,
  NotifyReminders,
  NotifyRoute,
  NotifyRouteResult,
} from '../notify/notify-options.js';
export type { NotifyProvider } from '../notify/notify-provider.js';
export type { WhoMayAnswer } from './chat-answers.js';
export {
  type ChatProvider,
  type ChatProviderOptions,
  createChatProvider,
} from './chat-provider.js';
export type { ChatCardLimits, ChatModalLimits, ChatPlatform } from './platform.js';
export { discordPlatform, escapeDiscordMarkdown } from './platforms/discord.js';
export {
  DISCORD_MAX_AGE_SECONDS,
  type DiscordRequestCheck,
  verifyDiscordRequests,
} from './platforms/discord-request.js';
export { escapeGoogleChatText, gchatPlatform } from './platforms/gchat.js';
export { escapeSlackMrkdwn, slackPlatform } from './platforms/slack.js';
export { teamsPlatform } from './platforms/teams.js';
export { telegramPlatform } from './platforms/telegram.js';
