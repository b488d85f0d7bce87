/** Discord as the chat provider sees it: an embed with button rows, 100-character custom ids. */
import type { ActionEvent, CardElement } from 'chat';
import { escapeControlCharacters } from '../../rules/escape-text.js';
import { breakEmojiPlaceholders, type ChatPlatform } from '../platform.js';

/** Discord's limit on a component's `custom_id`, which the adapter validates (and throws past). */
const CUSTOM_ID_LENGTH = 100;

/**
 * Discord (`@chat-adapter/discord`, adapter name `discord`), as its adapter renders a card: the
 * text blocks joined into one embed description (Discord holds 4,096 characters there), the
 * buttons in action rows of five (Discord holds five rows, so 25 buttons), a button's label up
 * to Discord's 80 characters, and its action id and value joined by a newline into a
 * `custom_id` of at most 100 characters. The description also carries the card's notes (the
 * lead, the deadline, why a card cannot take the answer, how it ended) and the separators and
 * emphasis between blocks, so the ask's own text is held to 3,500 characters. No modals (the
 * adapter opens none): a typed answer is given on the web page. A refused click is told to the
 * person in a DM, the adapter's private path (it sends Discord's ephemeral follow-ups only to
 * discord.com, whatever its `apiUrl`).
 */
export const discordPlatform: ChatPlatform = {
  name: 'discord',
  limits: { buttons: 25, buttonLabel: 80, text: 3_500, cardText: 3_500 },
  fitsButton: (actionId, value) => `${actionId}\n${value}`.length <= CUSTOM_ID_LENGTH,
  hasModals: false,
  escapeText: escapeDiscordMarkdown,
  plainText: (text) => breakEmojiPlaceholders(escapeControlCharacters(text)),
  tellClicker: tellInDirectMessage,
};

/**
 * Escapes text for Discord's markdown so it shows as written: every ASCII punctuation character
 * gets a backslash, which Discord drops before any of them, so no `<@id>` mention, `<#id>`
 * channel, `[label](url)` link, `||spoiler||`, heading, quote, list or emphasis takes effect,
 * and `{{emoji:…}}` is no longer the Chat SDK's placeholder. Control characters show as escapes;
 * line breaks stay.
 *
 * @example
 * escapeDiscordMarkdown('<@80351110224678912> **ship**') // '\\<\\@80351110224678912\\> \\*\\*ship\\*\\*'
 */
export function escapeDiscordMarkdown(text: string): string {
  return escapeControlCharacters(text, true).replace(/[!-/:-@[-`{-~]/g, '\\$&');
}

async function tellInDirectMessage(event: ActionEvent, card: CardElement): Promise<void> {
  await event.thread?.postEphemeral(event.user, card, { fallbackToDM: true });
}
