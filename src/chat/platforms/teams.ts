/** Microsoft Teams as the chat provider sees it: an Adaptive Card with submit actions. */
import { escapeControlCharacters, escapeMarkdown } from '../../rules/escape-text.js';
import { breakEmojiPlaceholders, type ChatPlatform } from '../platform.js';

/**
 * Microsoft Teams (`@chat-adapter/teams`, adapter name `teams`), as its adapter renders a card:
 * an Adaptive Card 1.5 whose text blocks are `TextBlock`s (Teams renders their Markdown subset)
 * and whose buttons are `Action.Submit` actions carrying `{ actionId, value }`. Teams shows six
 * actions of a card (web and desktop drop the rest without a word; observed, not documented),
 * so six buttons (options, plus the web link); a button's label is held to 80 characters. A
 * Teams message is at most 28 KB; the adapter's card JSON spends about 3 KB on its own fields,
 * and a character may take three bytes, so the ask's text is held to 8,000 characters. A typed
 * answer, a comment, a wizard or more options than six buttons go to a Teams dialog (the
 * adapter's `task/fetch` flow, an Adaptive Card with inputs), whose limits are ask-engine's own
 * under the same 28 KB: Microsoft documents none per input. A refused click is told to the
 * person with the adapter's targeted (private) message.
 */
export const teamsPlatform: ChatPlatform = {
  name: 'teams',
  limits: { buttons: 6, buttonLabel: 80, text: 8_000, cardText: 8_000 },
  // The action id and value travel as `Action.Submit` data inside the 28 KB message, which has
  // no smaller limit of its own; ask-engine's values are 20 characters, held to 1,000 here.
  fitsButton: (actionId, value) => actionId.length + value.length <= 1_000,
  hasModals: true,
  modalLimits: {
    blocks: 40,
    label: 200,
    options: 100,
    optionLabel: 200,
    text: 2_000,
    typed: 3_000,
  },
  escapeText: (text) => breakEmojiPlaceholders(escapeMarkdown(text)),
  plainText: (text) => breakEmojiPlaceholders(escapeControlCharacters(text)),
};
