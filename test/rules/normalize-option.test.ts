import { describe, expect, it } from 'vitest';
import { isUserInteractionError } from '../../src/rules/errors.js';
import { normalizeAskUserOption } from '../../src/rules/normalize-option.js';

function errorOf(input: unknown): { code: string; message: string } {
  try {
    normalizeAskUserOption(input);
  } catch (error) {
    if (!isUserInteractionError(error)) throw error;
    return { code: error.code, message: error.message };
  }
  throw new Error('expected normalizeAskUserOption to throw');
}

describe('normalizeAskUserOption', () => {
  it('turns a string into a trimmed title', () => {
    expect(normalizeAskUserOption('  Postgres \n')).toEqual({ title: 'Postgres' });
  });

  it('turns finite numbers and booleans into title strings', () => {
    expect(normalizeAskUserOption(3)).toEqual({ title: '3' });
    expect(normalizeAskUserOption(-0.5)).toEqual({ title: '-0.5' });
    expect(normalizeAskUserOption(true)).toEqual({ title: 'true' });
    expect(normalizeAskUserOption(false)).toEqual({ title: 'false' });
  });

  it.each(['title', 'label', 'text', 'value', 'name', 'option'])(
    'reads the title from an object keyed %s',
    (key) => {
      expect(normalizeAskUserOption({ [key]: ' Yes ', description: ' Ship it ' })).toEqual({
        title: 'Yes',
        description: 'Ship it',
      });
    },
  );

  it('prefers title over label over text over value', () => {
    expect(normalizeAskUserOption({ value: 'pg', label: 'Postgres' })).toEqual({
      title: 'Postgres',
    });
    expect(normalizeAskUserOption({ text: 'b', title: 'a', label: 'c' })).toEqual({ title: 'a' });
  });

  it('accepts a number or a boolean under a title key', () => {
    expect(normalizeAskUserOption({ value: 42 })).toEqual({ title: '42' });
    expect(normalizeAskUserOption({ label: false })).toEqual({ title: 'false' });
  });

  it('leaves out a description that is null or blank', () => {
    expect(normalizeAskUserOption({ title: 'A', description: null })).toEqual({ title: 'A' });
    expect(normalizeAskUserOption({ title: 'A', description: '  ' })).toEqual({ title: 'A' });
  });

  it('keeps control characters and long titles as they are, never shortened', () => {
    const long = `x${'y'.repeat(100_000)}`;
    expect(normalizeAskUserOption(long).title).toBe(long);
    expect(normalizeAskUserOption('a\u0000b').title).toBe('a\u0000b');
  });

  it('rejects an empty or blank title with INVALID_REQUEST', () => {
    expect(errorOf('')).toEqual({
      code: 'INVALID_REQUEST',
      message: expect.stringMatching(/empty/),
    });
    expect(errorOf({ label: '   ' }).message).toMatch(/"label" is empty/);
  });

  it('rejects NaN and infinities, naming the value', () => {
    expect(errorOf(Number.NaN).message).toMatch(/NaN.*not a finite number/);
    expect(errorOf(Number.POSITIVE_INFINITY).message).toMatch(/Infinity/);
  });

  it('rejects null, undefined, arrays, functions and symbols', () => {
    expect(errorOf(null).message).toMatch(/got null/);
    expect(errorOf(undefined).message).toMatch(/got undefined/);
    expect(errorOf(['a']).message).toMatch(/got an array of 1/);
    expect(errorOf(() => 'a').code).toBe('INVALID_REQUEST');
    expect(errorOf(Symbol('a')).code).toBe('INVALID_REQUEST');
  });

  it('rejects an object with none of the title keys, listing the fields it had', () => {
    expect(errorOf({ id: 'a', caption: 'b' }).message).toMatch(
      /needs a "title".*got an object with fields "id", "caption"/,
    );
    expect(errorOf({}).message).toMatch(/no fields/);
  });

  it('rejects a title key holding an object or null', () => {
    expect(errorOf({ title: { text: 'a' } }).message).toMatch(/"title" must be a string/);
    expect(errorOf({ title: null }).message).toMatch(/"title" must be .* got null/);
  });

  it('rejects a description that is not a string', () => {
    expect(errorOf({ title: 'A', description: 3 }).message).toMatch(
      /"A" has a description that is not a string, got 3/,
    );
  });

  it('rejects unknown fields instead of dropping them', () => {
    expect(errorOf({ title: 'A', recommended: true }).message).toMatch(
      /unknown field "recommended"/,
    );
  });

  it('reads only own fields, so prototype keys never supply a title', () => {
    const proto = { title: 'inherited' };
    const input = Object.create(proto) as object;
    expect(errorOf(input).message).toMatch(/needs a "title"/);
    expect(errorOf(JSON.parse('{"__proto__": {"title": "x"}}')).message).toMatch(
      /got an object with fields "__proto__"/,
    );
    expect(errorOf(JSON.parse('{"title": "A", "__proto__": {}}')).message).toMatch(
      /unknown field "__proto__"/,
    );
  });
});
