/**
 * A person's id, checked where it is recorded (`by.recipient`, a provider's
 * `answeredBy.recipient`, `quorum.from`, a recipient-bound link, a notify route's recipient
 * ids) and recorded as given: a chat platform's user id is case-sensitive. Wherever two ids are
 * compared, their keys are (`personKey` / `samePerson`, machines/person-key.ts), so one person
 * under two spellings of one id counts once: ids that differ only invisibly are refused here,
 * and ids that differ in case, Unicode composition or look-alike letters have one key.
 */
import {
  LOOK_ALIKE_LETTERS,
  PLAIN_ASCII_ID,
  personKey,
  samePerson,
} from '../../machines/person-key.js';
import { describe } from './describe.js';
import { UserInteractionError } from './errors.js';
import { escapeControlCharacters, isEscapedCharacter } from './escape-text.js';
import { MAX_ANSWERED_BY_LENGTH } from './limits.js';

export { LOOK_ALIKE_LETTERS, personKey, samePerson };

const INVISIBLE = /\p{Default_Ignorable_Code_Point}/u;
// White space a reader cannot tell from a space (or from nothing): only U+0020 is allowed.
const OTHER_SPACE = /[^\S ]/u;

/**
 * Checks a person's id and returns it as given, to be recorded so. Refused (`INVALID_REQUEST`,
 * `data.field` = `field`), never cleaned up: a value that is not a non-empty string of at most
 * `MAX_ANSWERED_BY_LENGTH` characters (in its key too), a control character, and anything
 * invisible: a default-ignorable code point (zero-width space, word joiner, soft hyphen,
 * variation selector, ...), white space other than U+0020, or a space at either end or next to
 * another. The message shows the character as an escape.
 *
 * @example
 * readPersonId('U024BE7LH', 'by.recipient'); // 'U024BE7LH'
 * readPersonId('ana\u200b', 'by.recipient'); // throws: ... the invisible character \u200b ...
 */
export function readPersonId(value: unknown, field: string): string {
  const text = readPersonText(value, field);
  if (PLAIN_ASCII_ID.test(text)) return text;
  for (let i = 0; i < text.length; i++) {
    const char = String.fromCodePoint(text.codePointAt(i) as number);
    const blank = char === ' ' && (i === 0 || i === text.length - 1 || text[i + 1] === ' ');
    if (blank || INVISIBLE.test(char) || OTHER_SPACE.test(char)) {
      throw refusal(
        field,
        `\`${field}\` holds the invisible character ${escapeInvisible(char)} at position ${i}${blank ? ' (a space at an end or next to another)' : ''}; an id that differs from another only by what cannot be seen would count one person twice, so ids hold none. Remove it.`,
      );
    }
    if (char.length === 2) i++;
  }
  // A compatibility character can spell out to several (U+FDFA is 18).
  const key = personKey(text);
  if (key.length > MAX_ANSWERED_BY_LENGTH) {
    throw refusal(
      field,
      `\`${field}\` has ${key.length} characters in its canonical form, more than the ${MAX_ANSWERED_BY_LENGTH} allowed; it is refused, not shortened.`,
    );
  }
  return text;
}

/**
 * Checks a person's id (as `readPersonId` does) and returns its key, the form two ids are
 * compared in: `Ana`, `ana`, `an\u0061` and `аna` (Cyrillic а) are all `ana`. For what is
 * looked up by person (a list filter), never for what is recorded.
 *
 * @example
 * canonicalPersonId('Ana', 'answeredBy'); // 'ana'
 */
export function canonicalPersonId(value: unknown, field: string): string {
  return personKey(readPersonId(value, field));
}

/**
 * Checks a name shown to people (a channel, an option title in `quorum.veto`) and returns it as
 * given: a non-empty string of at most `MAX_ANSWERED_BY_LENGTH` characters without control
 * characters; refused naming `field`.
 */
export function readPersonText(value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '') {
    throw refusal(field, `Expected \`${field}\` to be a non-empty string, got ${describe(value)}.`);
  }
  if (value.length > MAX_ANSWERED_BY_LENGTH) {
    throw refusal(
      field,
      `\`${field}\` has ${value.length} characters, more than the ${MAX_ANSWERED_BY_LENGTH} allowed; it is refused, not shortened.`,
    );
  }
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
    }
    if (isEscapedCharacter(code)) {
      throw refusal(
        field,
        `\`${field}\` contains the control character ${escapeControlCharacters(value[i]!)} at position ${i}; a name of who answered is shown to people and printed in terminals, so it may hold none.`,
      );
    }
  }
  return value;
}

/** `\u200b`, `\u{e0100}`, `\x20`: the character as a JavaScript escape. */
function escapeInvisible(char: string): string {
  const code = char.codePointAt(0) as number;
  const hex = code.toString(16);
  if (code <= 0xff) return `\\x${hex.padStart(2, '0')}`;
  return code <= 0xffff ? `\\u${hex.padStart(4, '0')}` : `\\u{${hex}}`;
}

function refusal(field: string, message: string): UserInteractionError {
  return new UserInteractionError('INVALID_REQUEST', message, { field });
}
