/** The canonical form of a person's id: one rule, and every entry of its look-alike table. */
import { describe, expect, it } from 'vitest';
import { canonicalPersonId, LOOK_ALIKE_LETTERS } from '../../src/rules/person-id.js';

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
