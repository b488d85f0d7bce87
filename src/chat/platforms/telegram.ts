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
 * web page.
 */
export const telegramPlatform: ChatPlatform = {
  name: 'telegram',
  limits: { buttons: 20, buttonLabel: 64, text: 1_900, cardText: 1_900 },
  fitsButton: (actionId, value) =>
    Buffer.byteLength(`chat:${JSON.stringify({ a: actionId, v: value })}`, 'utf8') <=
    CALLBACK_DATA_BYTES,
  hasModals: false,
  escapeText: (text) => breakEmojiPlaceholders(escapeMarkdown(text)),
  plainText: (text) => breakEmojiPlaceholders(escapeControlCharacters(text)),
};
