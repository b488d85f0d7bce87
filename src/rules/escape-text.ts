/**
 * The one escaper for text a model or a person wrote, shared by the form codec, the terminal and
 * the CLI: control characters become visible escapes, and Markdown can be made literal.
 * Browser-safe: no Node APIs.
 */

/**
 * Shows control characters and invisible direction marks as escape sequences, so a label cannot
 * move the cursor, recolour a terminal or reorder what is shown. A code point up to U+00FF is
 * written `\xHH`, any other `\uHHHH` (lower-case hex), e.g. ESC becomes the six characters `\x1b`
 * and U+202E (right-to-left override) becomes `\u202e`. Text that already spells `\x1b` reads the
 * same; the escape exists to make the character visible, not to round-trip it.
 *
 * @example
 * escapeControlCharacters('red\u001b[31m') // 'red\\x1b[31m'
 */
export function escapeControlCharacters(text: string, keepLineBreaks = false): string {
  let out = '';
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (keepLineBreaks && (code === 0x0a || code === 0x09)) continue;
    if (keepLineBreaks && code === 0x0d && text.charCodeAt(i + 1) === 0x0a) continue;
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
    } else if (!isEscapedCharacter(code)) continue;
    out += text.slice(start, i) + escapeSequence(code);
    start = i + 1;
  }
  return start === 0 ? text : out + text.slice(start);
}

/**
 * Escapes text for a Markdown body or description so a renderer shows it as written: HTML,
 * links, images, emphasis, code, headings, lists, quotes, tables and line-leading indentation stay
 * literal; line breaks stay line breaks; control characters are shown as in
 * `escapeControlCharacters`. Nothing is removed or shortened.
 *
 * @example
 * escapeMarkdown('# Plan\n- **ship** <b>it</b>') // '\\# Plan\\\n\\- \\*\\*ship\\*\\* \\<b\\>it\\</b\\>'
 */
export function escapeMarkdown(text: string): string {
  const lines = escapeControlCharacters(text, true).split(/\r?\n/);
  let out = '';
  for (let i = 0; i < lines.length; i++) {
    const line = escapeMarkdownLine(lines[i]!);
    if (i > 0) {
      // A backslash before the newline is a hard break, so a plan keeps its lines instead of
      // being reflowed into one paragraph; next to a blank line it would show as a backslash.
      out += line === '' || out.endsWith('\n') || out === '' ? '\n' : '\\\n';
    }
    out += line;
  }
  return out;
}

// Every ASCII punctuation character that starts or closes a CommonMark or common extension
// construct (GFM tables, strikethrough, autolinks, footnotes; math; emoji short codes).
const MARKDOWN_PUNCTUATION = /[\\`*_~[\]()<>&#+\-=|!.$:{}^]/g;

function escapeMarkdownLine(line: string): string {
  if (line.trim() === '') return '';
  const indent = /^[ \t]*/.exec(line)![0];
  // Leading blanks as character references: they still show, but cannot start an indented code
  // block or nest a list.
  const lead = indent.replace(/[ \t]/g, (blank) => (blank === ' ' ? '&#32;' : '&#9;'));
  return lead + line.slice(indent.length).replace(MARKDOWN_PUNCTUATION, '\\$&');
}

/**
 * Whether a UTF-16 code unit is shown as an escape: C0 controls (tab and line feed included),
 * DEL and C1 controls (a lone `\x9b` is a CSI on many terminals), the bidi and direction
 * controls that reorder what a reader sees (U+061C, U+200E/F, U+202A–202E, U+2066–2069), the
 * line and paragraph separators, U+FEFF, and surrogates (callers skip a valid pair first).
 *
 * @example
 * isEscapedCharacter(0x1b) // => true
 * isEscapedCharacter(0x41) // => false
 */
export function isEscapedCharacter(code: number): boolean {
  return (
    code < 0x20 ||
    (code >= 0x7f && code <= 0x9f) ||
    code === 0x061c ||
    code === 0x200e ||
    code === 0x200f ||
    (code >= 0x2028 && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069) ||
    code === 0xfeff ||
    (code >= 0xd800 && code <= 0xdfff) // a lone surrogate: the paired case is skipped above
  );
}

function escapeSequence(code: number): string {
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}
