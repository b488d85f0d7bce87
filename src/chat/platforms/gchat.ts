/** Google Chat as the chat provider sees it: a Cards v2 card with a button list. */
import { escapeControlCharacters } from '../../rules/escape-text.js';
import { breakEmojiPlaceholders, type ChatPlatform, escapeEntityMarkup } from '../platform.js';

/**
 * Google Chat (`@chat-adapter/gchat`, adapter name `gchat`), as its adapter renders a card: a
 * Cards v2 card whose text blocks are `textParagraph` widgets (Google Chat reads their text as
 * a small subset of HTML) and whose buttons are one `buttonList`, each button's action id and
 * value as action parameters. A card is at most 32 KB and a character may take three bytes, so
 * the ask's text is held to 8,000 characters (a card also holds at most 100 widgets; an ask's
 * blocks are a handful). Google Chat documents no limit for a button list or a button's text;
 * ask-engine holds a card to 25 buttons with labels of up to 80 characters, so it stays
 * readable on a phone. No modals (the adapter opens no dialogs): a typed answer is given on the
 * web page. A refused click is told to the person with a private message
 * (`privateMessageViewer`), the adapter's ephemeral.
 */
export const gchatPlatform: ChatPlatform = {
  name: 'gchat',
  limits: { buttons: 25, buttonLabel: 80, text: 8_000, cardText: 8_000 },
  // Action parameters are strings inside the 32 KB card, which has no smaller limit of its own;
  // ask-engine's values are 20 characters, held to 1,000 here.
  fitsButton: (actionId, value) => actionId.length + value.length <= 1_000,
  hasModals: false,
  escapeText: escapeGoogleChatText,
  plainText: (text) => breakEmojiPlaceholders(escapeControlCharacters(text)),
};

/**
 * Escapes text for a Google Chat card's `textParagraph`: `&`, `<` and `>` as HTML entities (the
 * three its HTML subset needs; quotes stay as typed, outside any tag), so no `<a href>` link,
 * `<b>` or `<font>` markup and no `<users/…>` mention takes effect; `**` (which the adapter
 * rewrites to Google Chat's `*` emphasis) and the Chat SDK's `{{emoji:…}}` placeholder are
 * broken with an invisible word joiner. Control characters show as escapes; line breaks stay.
 *
 * @example
 * escapeGoogleChatText('<a href="https://x.example">ok</a>') // '&lt;a href="https://x.example"&gt;ok&lt;/a&gt;'
 */
export function escapeGoogleChatText(text: string): string {
  return escapeEntityMarkup(text);
}
