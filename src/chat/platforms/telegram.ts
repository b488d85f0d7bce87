/** Telegram as the chat provider sees it: inline keyboards, 64-byte callback data, Markdown. */
import { escapeControlCharacters, escapeMarkdown } from '../../rules/escape-text.js';
import { breakEmojiPlaceholders, type ChatPlatform } from '../platform.js';

/** Telegram's limit on a button's `callback_data`, in bytes. */
const CALLBACK_DATA_BYTES = 64;

/**
 * Telegram (`@chat-adapter/telegram`, adapter name `telegram`). A card is a message with an
 * inline keyboard: its text is the card's blocks as Markdown, which the adapter converts to
 * MarkdownV2 and cuts at 4,096 characters. MarkdownV2 may escape every character once more, so
 * a card's text is held to half of that (less a margin for the blocks' separators and styling),
 * and a longer ask goes to the web page instead of being cut. A button's `callback_data` holds
 * `chat:{"a":<action id>,"v":<value>}` in 64 bytes. No modals: a typed answer is given on the
 * web page. Telegram has no ephemeral messages: a refused press is explained in the bot's direct
 * chat with that person (which they reach only if they started the bot).
 */
export const telegramPlatform: ChatPlatform = {
  name: 'telegram',
  limits: { buttons: 20, buttonLabel: 64, text: 1_900, cardText: 1_900 },
  fitsButton: (actionId, value) =>
    Buffer.byteLength(`chat:${JSON.stringify({ a: actionId, v: value })}`, 'utf8') <=
    CALLBACK_DATA_BYTES,
  hasModals: false,
  // Markdown escaping makes every marker literal, `{` and `:` too, so no `{{emoji:…}}` remains
  // for the adapter to turn into an emoji; labels are plain text, where it must be broken.
  escapeText: escapeMarkdown,
  plainText: (text) => breakEmojiPlaceholders(escapeControlCharacters(text)),
  // Telegram has no message only one person sees: the bot tells them in its chat with them.
  async tellClicker(event, card) {
    await event.thread?.postEphemeral(event.user, card, { fallbackToDM: true });
  },
};
