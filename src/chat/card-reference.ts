/**
 * What a card's button carries: a short reference to the ask and the choice, never a token. The
 * reference is a digest of the ask id, kept as the ask's interaction id when the chat provider
 * defers it, so any host sharing the store finds the ask from a click (`findByInteractionId`).
 * It grants nothing: who may answer is decided from the platform's verified user id.
 */
import { createHash } from 'node:crypto';

/** The action id of every ask-engine button (`chat.onAction`), and of its modal's callback. */
export const CHAT_ACTION_ID = 'ask-engine';

/** The interaction ids the chat provider gives its asks start with this. */
const INTERACTION_PREFIX = 'chat:';

/** A button's choice: option `n` (from 1) of the card's question, or the ask's modal. */
export type CardChoice = { kind: 'option'; n: number } | { kind: 'form' };

/**
 * The reference of an ask on its cards: 16 characters of base64url (96 bits of a SHA-256 of the
 * ask id), short enough for Telegram's 64-byte `callback_data` with the action id around it.
 */
export function cardReferenceFor(askId: string): string {
  return createHash('sha256')
    .update(`ask-engine.chat\u0000${askId}`)
    .digest('base64url')
    .slice(0, 16);
}

/** The interaction id an ask is deferred under: its card reference, namespaced. */
export function interactionIdFor(reference: string): string {
  return `${INTERACTION_PREFIX}${reference}`;
}

/** A button's value: the reference and the choice (`<ref>.o3`, `<ref>.f`). */
export function buttonValue(reference: string, choice: CardChoice): string {
  return `${reference}.${choice.kind === 'option' ? `o${choice.n}` : 'f'}`;
}

const BUTTON_VALUE = /^([A-Za-z0-9_-]{16})\.(?:o([1-9][0-9]{0,2})|(f))$/;

/**
 * Reads a button's value back; `undefined` for anything this provider did not write (a button
 * of another bot under the same action id, a forged value): such a click changes nothing.
 */
export function readButtonValue(
  value: string | undefined,
): { reference: string; choice: CardChoice } | undefined {
  const match = BUTTON_VALUE.exec(value ?? '');
  if (match === null) return undefined;
  const reference = match[1] as string;
  return match[3] === undefined
    ? { reference, choice: { kind: 'option', n: Number(match[2]) } }
    : { reference, choice: { kind: 'form' } };
}
