/**
 * A person's id, compared: two ids name one person when their keys are equal (`samePerson`).
 * Ids are recorded as given (a chat platform's user id is case-sensitive, and a mention needs
 * it as the platform spells it); everything that compares two ids, the quorum's distinct people
 * and `from`, a recipient-bound link, a veto, notify's routes and the list filters, compares
 * their keys. Pure and browser-safe, for the ask machine and the engine alike; the checks an id
 * must pass before it is recorded are `src/rules/person-id.ts`'s.
 */

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

/** Printable ASCII with single spaces between words: an id whose key is its lower case. */
export const PLAIN_ASCII_ID = /^[\x21-\x7e]+(?: [\x21-\x7e]+)*$/;
const LOOK_ALIKE = new RegExp(`[${Object.keys(LOOK_ALIKE_LETTERS).join('')}]`, 'gu');

/**
 * The key of a person's id: NFKD, look-alike letters mapped to Latin (`LOOK_ALIKE_LETTERS`),
 * lower case, look-alikes the lower case made mapped too, NFC. `Ana`, `ana`, `an\u0061` and
 * `аna` (Cyrillic а) all have the key `ana`; a key's key is itself, so ids recorded in this form
 * before are their own keys.
 */
export function personKey(id: string): string {
  if (PLAIN_ASCII_ID.test(id)) return id.toLowerCase();
  return latin(latin(id.normalize('NFKD')).toLowerCase()).normalize('NFC');
}

function latin(text: string): string {
  return text.replace(LOOK_ALIKE, (letter) => LOOK_ALIKE_LETTERS[letter] as string);
}

/** True when the ids `a` and `b` name one person (their keys are equal). */
export function samePerson(a: string, b: string): boolean {
  return a === b || personKey(a) === personKey(b);
}
