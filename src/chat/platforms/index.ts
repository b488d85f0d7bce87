/** The platforms the chat provider knows by their adapter's name. */
import type { ChatPlatform } from '../platform.js';
import { discordPlatform } from './discord.js';
import { gchatPlatform } from './gchat.js';
import { slackPlatform } from './slack.js';
import { teamsPlatform } from './teams.js';
import { telegramPlatform } from './telegram.js';

/** Every built-in platform; `createChatProvider` matches them to `chat`'s adapters by name. */
export const CHAT_PLATFORMS: readonly ChatPlatform[] = Object.freeze([
  slackPlatform,
  telegramPlatform,
  discordPlatform,
  teamsPlatform,
  gchatPlatform,
]);
