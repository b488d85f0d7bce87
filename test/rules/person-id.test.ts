/**
 * A person's id: checked and recorded as given (`readPersonId`), compared by its key
 * (`personKey`, `samePerson`, `canonicalPersonId`): one rule, and every entry of its look-alike
 * table.
 */
import { describe, expect, it } from 'vitest';
import {
  canonicalPersonId,
  LOOK_ALIKE_LETTERS,
  personKey,
  readPersonId,
  samePerson,
} from '../../src/rules/person-id.js';

describe('canonicalPersonId', () => {
  it('maps every look-alike letter of its table to the Latin letter it looks like', () => {
    for (const [letter, latin] of Object.entries(LOOK_ALIKE_LETTERS)) {
      const name = `U+${letter.codePointAt(0)?.toString(16)}`;
      expect(letter, name).toMatch(/^[\p{Script=Cyrillic}\p{Script=Greek}]$/u);
      expect(latin, name).toMatch(/^[A-Za-z]$/);
      expect(canonicalPersonId(`x${letter}x`, 'id'), name).toBe(`x${latin.toLowerCase()}x`);
    }
  });

  it('keeps ids that differ visibly apart', () => {
    const ids = ['ana', 'anna', 'ana b', 'ana-b', 'anä', '文字', 'иван'];
    expect(new Set(ids.map((id) => canonicalPersonId(id, 'id'))).size).toBe(ids.length);
  });

  it('refuses what is not a non-empty string of visible characters, naming the field', () => {
    for (const bad of ['', ' ana', 'a  b', 'a\u3000b', 'a\u0000b', 42, '\ufdfa'.repeat(15)]) {
      expect(() => canonicalPersonId(bad, 'by.recipient'), JSON.stringify(bad)).toThrow(
        /`by\.recipient`/,
      );
    }
  });
});

describe('readPersonId and samePerson', () => {
  it('gives an id back as given, and compares ids by their keys', () => {
    for (const id of ['U024BE7LH', '29:1AbC-xyz', 'Zoë 文字 🚀', 'Ana']) {
      expect(readPersonId(id, 'by.recipient')).toBe(id);
    }
    expect(samePerson('Ana', 'ana')).toBe(true);
    expect(samePerson('Ana', '\u0410na')).toBe(true);
    expect(samePerson('zoë', 'ZOE\u0308')).toBe(true);
    expect(samePerson('U024BE7LH', 'u024be7lh')).toBe(true);
    expect(samePerson('ana', 'anna')).toBe(false);
    expect(() => readPersonId('ana\u200b', 'by.recipient')).toThrow(
      '`by.recipient` holds the invisible character \\u200b',
    );
  });

  it('has keys that are their own keys, so ids recorded in that form before stay found', () => {
    const letters = Object.keys(LOOK_ALIKE_LETTERS).flatMap((letter) => [
      letter,
      letter.toLowerCase(),
      letter.toUpperCase(),
    ]);
    // U+0500 lower-cases to U+0501, a look-alike of d: mapped after lower-casing too.
    for (const id of [...letters, 'x\u0500x', 'ÅNGSTRÖM', '\uff21na', 'ǅemal', 'ﬃ']) {
      const key = personKey(id);
      expect(personKey(key), `${id} -> ${key}`).toBe(key);
    }
    expect(personKey('x\u0500x')).toBe('xdx');
  });
});
