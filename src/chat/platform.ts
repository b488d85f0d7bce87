/**
 * What the chat provider needs to know of one chat platform: its adapter's name, the limits of a
 * card there, how its markup is escaped, whether it has modals and how a refusal reaches the one
 * person who clicked. Everything else is the Chat SDK's: one platform module per platform
 * (`platforms/slack.ts`, ...) fills this in, and the provider reads nothing platform-specific
 * anywhere else.
 */

import type { ActionEvent, CardElement } from 'chat';
import { escapeControlCharacters } from '../rules/escape-text.js';

/** The limits of a card on a platform, each as the platform counts it. */
export interface ChatCardLimits {
  /** Buttons one card may hold (options, plus the typed-answer button, plus the web link). */
  buttons: number;
  /** Characters of a button's label. */
  buttonLabel: number;
  /** Characters of one text block (the header, the question, its context), after escaping. */
  text: number;
  /** Characters of all of a card's text blocks together, after escaping. */
  cardText: number;
}

/** The limits of a modal on a platform (`ChatPlatform.modalLimits`). */
export interface ChatModalLimits {
  /** Blocks one modal holds: a text block per question and an input per form field. */
  blocks: number;
  /** Characters of an input's label. */
  label: number;
  /** Options one select holds. */
  options: number;
  /** Characters of a select option's label. */
  optionLabel: number;
  /** Characters of one text block, after escaping. */
  text: number;
  /** Characters a person may type in a text input (the platform's own cap). */
  typed: number;
}

/**
 * One chat platform as the chat provider sees it. `name` is the key of its adapter in the Chat
 * SDK's `adapters` (`'slack'`, `'telegram'`, ...), and the `channel` that recipients, links and
 * `answeredBy` name.
 *
 * @example
 * const matrix: ChatPlatform = {
 *   name: 'matrix',
 *   limits: { buttons: 10, buttonLabel: 40, text: 4000, cardText: 16000 },
 *   fitsButton: (actionId, value) => Buffer.byteLength(`${actionId}|${value}`) <= 256,
 *   hasModals: false,
 *   escapeText: (text) => text.replace(/[\\*_`]/g, '\\$&'),
 *   plainText: (text) => text,
 * };
 */
export interface ChatPlatform {
  readonly name: string;
  readonly limits: ChatCardLimits;
  /**
   * Whether a button with this action id and value can be posted as the platform's adapter
   * encodes them (Telegram's `callback_data` holds both, as JSON, in 64 bytes). A button that
   * does not fit is never posted: the provider says so instead.
   */
  fitsButton(actionId: string, value: string): boolean;
  /** True when the adapter opens modals (`event.openModal`), for typed answers. */
  readonly hasModals: boolean;
  /**
   * The limits of the platform's modal: with them (and `hasModals`), a typed answer, a comment
   * or several questions are answered in a modal built from the generic form; without them, on
   * the web page.
   */
  readonly modalLimits?: ChatModalLimits;
  /**
   * Escapes text a model or a person wrote for the platform's markup in a card's text block, so
   * it shows as written: no mention, link, markup or emoji code takes effect. One rule per
   * platform, here and nowhere else.
   */
  escapeText(text: string): string;
  /**
   * Readies text for a button's label, which the platform shows as plain text: only what the
   * Chat SDK or the platform would still interpret there is neutralized.
   */
  plainText(text: string): string;
  /**
   * Tells the person who clicked, and only them, why their click changed nothing (the ask
   * settled, they are not among those asked), as a card of one text block already escaped.
   * Default: the thread's `postEphemeral` without a fallback to a DM.
   */
  tellClicker?(event: ActionEvent, card: CardElement): Promise<void>;
}

/** The Chat SDK's `{{emoji:name}}` placeholder, which its adapters turn into an emoji. */
const EMOJI_PLACEHOLDER = /\{\{(?=emoji:)/g;

/**
 * Breaks the Chat SDK's emoji placeholder (`{{emoji:name}}`) in text a model wrote, with a word joiner
 * (U+2060, invisible) between the braces, so it shows as typed instead of becoming an emoji. Every
 * platform's escaping calls it.
 */
export function breakEmojiPlaceholders(text: string): string {
  return text.replace(EMOJI_PLACEHOLDER, '{\u2060{');
}

/**
 * Escapes text for a platform whose card markup reads `&`, `<` and `>` as HTML entities (Slack's
 * mrkdwn, Google Chat's HTML subset): those three as entities, so no mention, ping, link or tag
 * takes effect; `**` (which the Chat SDK's adapters rewrite to emphasis) and the emoji
 * placeholder broken with an invisible word joiner; control characters shown as escapes. Line
 * breaks stay.
 */
export function escapeEntityMarkup(text: string): string {
  const escaped = escapeControlCharacters(text, true)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\*(?=\*)/g, '*\u2060');
  return breakEmojiPlaceholders(escaped);
}

/** The default of `ChatPlatform.tellClicker`: an ephemeral message in the card's thread. */
export async function tellClickerEphemerally(event: ActionEvent, card: CardElement): Promise<void> {
  await event.thread?.postEphemeral(event.user, card, { fallbackToDM: false });
}
