import fc from 'fast-check';
import { marked } from 'marked';
import { describe, expect, it } from 'vitest';
import { escapeControlCharacters, escapeMarkdown } from '../../src/rules/escape-text.js';

// A real CommonMark + GFM renderer decides whether the escaped text stays literal.
function render(markdown: string): string {
  return marked.parse(markdown, { async: false, gfm: true, breaks: false });
}

const ENTITIES: Record<string, string> = {
  '&lt;': '<',
  '&gt;': '>',
  '&amp;': '&',
  '&quot;': '"',
  '&#39;': "'",
  '&#32;': ' ',
  '&#9;': '\t',
};

/** The text a reader sees, and every tag the renderer produced. */
function shown(html: string): { text: string; tags: string[] } {
  const tags = html.match(/<[^>]*>/g) ?? [];
  const text = html
    .replace(/<[^>]*>/g, '\n')
    .replace(/&(?:lt|gt|amp|quot|#39|#32|#9);/g, (e) => ENTITIES[e]!);
  return { text, tags };
}

const markdownish = fc.string({
  unit: fc.constantFrom(
    ...'#*_`[]()<>!-+=|~.:$&^{}\\/"\' \n\t\r1aZé😀\u001b\u202e'.split(''),
    '```',
    '<script>',
    '[x](http://e.example)',
    '    ',
    '1. ',
    '- ',
    '> ',
    '&amp;',
    'https://e.example',
    '\n\n',
  ),
  maxLength: 60,
});

describe('escapeMarkdown', () => {
  it('renders any text literally: no element but paragraphs and line breaks, no character lost', () => {
    fc.assert(
      fc.property(markdownish, (text) => {
        const { text: seen, tags } = shown(render(escapeMarkdown(text)));
        expect(tags.filter((tag) => !/^<\/?p>$|^<br>$/.test(tag))).toEqual([]);
        const visible = (value: string) => value.replace(/\s+/g, '');
        expect(visible(seen)).toBe(visible(escapeControlCharacters(text, true)));
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    ['HTML', '<img src=x onerror=alert(1)>', '<p>&lt;img src=x onerror=alert(1)&gt;</p>\n'],
    ['a link', '[docs](https://e.example)', '<p>[docs](https://e.example)</p>\n'],
    ['an autolink', '<https://e.example>', '<p>&lt;https://e.example&gt;</p>\n'],
    ['emphasis', '*a* __b__ ~~c~~', '<p>*a* __b__ ~~c~~</p>\n'],
    ['code', '`x` and\n```\nfence\n```', '<p>`x` and<br>```<br>fence<br>```</p>\n'],
    ['a heading', '# Title', '<p># Title</p>\n'],
    ['lists', '- a\n1. b\n2) c', '<p>- a<br>1. b<br>2) c</p>\n'],
    ['a quote', '> said', '<p>&gt; said</p>\n'],
    ['indented code', 'x\n\n    code', '<p>x</p>\n<p>&#32;&#32;&#32;&#32;code</p>\n'],
    ['an entity', '&copy;', '<p>&amp;copy;</p>\n'],
  ])('keeps %s literal', (_name, text, html) => {
    expect(render(escapeMarkdown(text))).toBe(html);
  });

  it('keeps line breaks and paragraphs', () => {
    expect(escapeMarkdown('one\ntwo\r\nthree\n\nfour')).toBe('one\\\ntwo\\\nthree\n\nfour');
  });

  it('shows control characters as escape sequences, never dropping them', () => {
    expect(escapeMarkdown('a\u001b[2Jb')).toBe('a\\\\x1b\\[2Jb');
    expect(render(escapeMarkdown('a\u0007b\rc'))).toBe('<p>a\\x07b\\x0dc</p>\n');
  });
});

describe('escapeControlCharacters', () => {
  it.each([
    ['ESC', '\u001b', '\\x1b'],
    ['NUL', '\u0000', '\\x00'],
    ['DEL', '\u007f', '\\x7f'],
    ['a C1 control', '\u009b', '\\x9b'],
    ['a line break', '\n', '\\x0a'],
    ['a right-to-left override', '\u202e', '\\u202e'],
    ['a byte order mark', '\ufeff', '\\ufeff'],
    ['a lone surrogate', '\ud800', '\\ud800'],
  ])('writes %s as an escape sequence', (_name, input, output) => {
    expect(escapeControlCharacters(`a${input}b`)).toBe(`a${output}b`);
  });

  it('leaves printable text, emoji and joiners alone', () => {
    const text = 'Ünïcödé 😀 👩‍💻 日本語';
    expect(escapeControlCharacters(text)).toBe(text);
  });
});
