/** Slack as the chat provider sees it: Block Kit limits, mrkdwn escaping, modals. */
import { escapeControlCharacters } from '../../rules/escape-text.js';
import { breakEmojiPlaceholders, type ChatPlatform, escapeEntityMarkup } from '../platform.js';

/**
 * Slack (`@chat-adapter/slack`, adapter name `slack`). Limits are Block Kit's: 25 elements in an
 * actions block, 75 characters of a button's label, 3,000 of a section's
 * mrkdwn text, 255 of an action id and 2,000 of a button's value; a message's 50 blocks bound
 * the whole text (a card uses at most 12 text blocks of 3,000). A modal (the generic form) takes
 * typed answers, comments and several questions: 100 blocks, labels of 2,000 characters, 100
 * options of 75 characters per select, 3,000 characters typed per input.
 */
export const slackPlatform: ChatPlatform = {
  name: 'slack',
  limits: { buttons: 25, buttonLabel: 75, text: 3_000, cardText: 40_000 },
  fitsButton: (actionId, value) => actionId.length <= 255 && value.length <= 2_000,
  hasModals: true,
  modalLimits: {
    blocks: 100,
    label: 2_000,
    options: 100,
    optionLabel: 75,
    text: 3_000,
    typed: 3_000,
  },
  escapeText: escapeSlackMrkdwn,
  plainText: (text) => breakEmojiPlaceholders(escapeControlCharacters(text)),
};

/**
 * Escapes text for Slack's mrkdwn as Slack documents it (`&`, `<`, `>` as entities), so no
 * `<@U123>` mention, `<!channel>` ping or `<https://…|label>` link takes effect; the Chat SDK's
 * own rewrites (`**bold**`, `{{emoji:…}}`) are broken with an invisible word joiner, and
 * control characters show as escapes. Line breaks stay.
 *
 * @example
 * escapeSlackMrkdwn('<!channel> ship & tell') // '&lt;!channel&gt; ship &amp; tell'
 */
export function escapeSlackMrkdwn(text: string): string {
  return escapeEntityMarkup(text);
}
