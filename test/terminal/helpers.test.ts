import { describe, expect, it } from 'vitest';
import { isEscapedCharacter } from '../../src/rules/escape-text.js';
import { formatCountdown } from '../../src/terminal/countdown.js';
import { toLiteralText } from '../../src/terminal/literal-text.js';
import { searchOptions } from '../../src/terminal/option-search.js';
import { fitViewport } from '../../src/terminal/viewport.js';

describe('toLiteralText', () => {
  it('escapes C0, C1 and bidi controls, keeps line breaks, expands tabs', () => {
    expect(toLiteralText('a\x1b[31mb\x1b]0;t\x07\r\n\tc\u009b\u202e\rd')).toBe(
      'a\\x1b[31mb\\x1b]0;t\\x07\n  c\\x9b\\u202e\\x0dd',
    );
  });

  it('escapes exactly what the shared escaper escapes', () => {
    for (let code = 0; code < 0x3000; code++) {
      if (code === 0x0a || code === 0x09 || code === 0x0d) continue;
      const character = String.fromCharCode(code);
      expect(toLiteralText(character) !== character, `U+${code.toString(16)}`).toBe(
        isEscapedCharacter(code),
      );
    }
    expect(toLiteralText('\ufeff\ud800')).toBe('\\ufeff\\ud800');
  });

  it('leaves Markdown, HTML and wide characters alone', () => {
    const text = '**b** <i>x</i> [l](u) 漢字 😀';
    expect(toLiteralText(text)).toBe(text);
  });
});

describe('searchOptions', () => {
  const options = [
    { title: 'PostgreSQL', description: 'server' },
    { title: 'SQLite', description: 'one file' },
  ];
  it('matches every word in titles or descriptions, case-insensitively', () => {
    expect(searchOptions(options, 'SQL')).toEqual([0, 1]);
    expect(searchOptions(options, 'sql file')).toEqual([1]);
    expect(searchOptions(options, '')).toEqual([0, 1]);
    expect(searchOptions(options, 'mongo')).toEqual([]);
  });
});

describe('fitViewport', () => {
  it('shows everything that fits', () => {
    expect(fitViewport([1, 2, 1], 2, 0, 10)).toEqual({ top: 0, end: 3, above: 0, below: 0 });
  });

  it('scrolls just enough to show the active row, keeping room for the indicators', () => {
    expect(fitViewport([1, 1, 1, 1, 1], 3, 0, 4)).toEqual({ top: 2, end: 4, above: 2, below: 1 });
    expect(fitViewport([1, 1, 1, 1, 1], 3, 2, 4)).toEqual({ top: 2, end: 4, above: 2, below: 1 });
    expect(fitViewport([1, 1, 1, 1, 1], 0, 3, 4)).toEqual({ top: 0, end: 2, above: 0, below: 3 });
  });

  it('shows a row taller than the room on its own', () => {
    expect(fitViewport([1, 9, 1], 1, 0, 5)).toMatchObject({ top: 1, end: 2 });
  });
});

describe('formatCountdown', () => {
  it('formats seconds and minutes, and says when time is up', () => {
    expect(formatCountdown(1)).toBe('1s left');
    expect(formatCountdown(59_000)).toBe('59s left');
    expect(formatCountdown(65_000)).toBe('1:05 left');
    expect(formatCountdown(0)).toBe('time is up');
  });
});
