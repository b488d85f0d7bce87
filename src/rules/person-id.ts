/**
 * A person's id, in one canonical form wherever it is recorded or compared (`by.recipient`,
 * a provider's `answeredBy.recipient`, `quorum.from`, a recipient-bound link, a notify route's
 * recipient ids, the `answeredBy` and `notified` list filters). One person under two spellings
 * of one id must count once: ids that differ only invisibly are refused, and ids that differ in
 * case, Unicode composition or look-alike letters are the same id.
 */
import { describe } from './describe.js';
import { UserInteractionError } from './errors.js';
import { escapeControlCharacters, isEscapedCharacter } from './escape-text.js';
import { MAX_ANSWERED_BY_LENGTH } from './limits.js';

/**
 * Cyrillic and Greek letters that look like a Latin letter in common fonts, and that letter: a
 * bounded table drawn from Unicode's confusables data (UTS #39), not the whole data set, which
 * no dependency of this browser-safe layer carries. An id is mapped through it before it is
 * lower-cased, so `ВОВ` (Cyrillic) is `bob` and `Іvan` (Cyrillic І) is `ivan`. Latin letters
 * that look alike (`I`, `l`, `1`) are not folded: they are letters of the ids people type.
 */
export const LOOK_ALIKE_LETTERS: Readonly<Record<string, string>> = Object.freeze({
  // Cyrillic capitals
  А: 'A',
  В: 'B',
  Е: 'E',
  І: 'I',
  Ј: 'J',
  К: 'K',
  М: 'M',
  Н: 'H',
  О: 'O',
  Р: 'P',
  С: 'C',
  Ѕ: 'S',
  Т: 'T',
  У: 'Y',
  Х: 'X',
  Ү: 'Y',
  Һ: 'h',
  Ӏ: 'I',
  Ԛ: 'Q',
  Ԝ: 'W',
  // Cyrillic small letters
  а: 'a',
  е: 'e',
  і: 'i',
  ј: 'j',
  о: 'o',
  р: 'p',
  с: 'c',
  ѕ: 's',
  у: 'y',
  х: 'x',
  ү: 'y',
  һ: 'h',
  ӏ: 'l',
  ԁ: 'd',
  ԛ: 'q',
  ԝ: 'w',
  // Greek capitals
  Α: 'A',
  Β: 'B',
  Ε: 'E',
  Ζ: 'Z',
  Η: 'H',
  Ι: 'I',
  Κ: 'K',
  Μ: 'M',
  Ν: 'N',
  Ο: 'O',
  Ρ: 'P',
  Τ: 'T',
  Υ: 'Y',
  Χ: 'X',
  // Greek small letters
  α: 'a',
  ι: 'i',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  υ: 'u',
});

// Printable ASCII with single spaces between words: already canonical but for case.
const PLAIN_ASCII = /^[\x21-\x7e]+(?: [\x21-\x7e]+)*$/;
const LOOK_ALIKE = new RegExp(`[${Object.keys(LOOK_ALIKE_LETTERS).join('')}]`, 'gu');
const INVISIBLE = /\p{Default_Ignorable_Code_Point}/u;
// White space a reader cannot tell from a space (or from nothing): only U+0020 is allowed.
const OTHER_SPACE = /[^\S ]/u;

/**
 * Checks a person's id and returns its canonical form: NFKD, look-alike letters mapped to
 * Latin (`LOOK_ALIKE_LETTERS`), lower case, NFC. `Ana`, `ana`, `an\u0061` and `аna` (Cyrillic
 * а) are all `ana`. Refused (`INVALID_REQUEST`, `data.field` = `field`), never cleaned up: a
 * value that is not a non-empty string of at most `MAX_ANSWERED_BY_LENGTH` characters, a control
 * character, and anything invisible: a default-ignorable code point (zero-width space, word
 * joiner, soft hyphen, variation selector, ...), white space other than U+0020, or a space at
 * either end or next to another. The message shows the character as an escape.
 *
 * @example
 * canonicalPersonId('Ana', 'by.recipient'); // 'ana'
 * canonicalPersonId('ana\u200b', 'by.recipient'); // throws: ... the invisible character \u200b ...
 */
export function canonicalPersonId(value: unknown, field: string): string {
  const text = readPersonText(value, field);
  if (PLAIN_ASCII.test(text)) return text.toLowerCase();
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
  const canonical = text
    .normalize('NFKD')
    .replace(LOOK_ALIKE, (letter) => LOOK_ALIKE_LETTERS[letter] as string)
    .toLowerCase()
    .normalize('NFC');
  // A compatibility character can spell out to several (U+FDFA is 18).
  if (canonical.length > MAX_ANSWERED_BY_LENGTH) {
    throw refusal(
      field,
      `\`${field}\` has ${canonical.length} characters in its canonical form, more than the ${MAX_ANSWERED_BY_LENGTH} allowed; it is refused, not shortened.`,
    );
  }
  return canonical;
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
