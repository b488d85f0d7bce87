/** Makes model-written text safe to print: control characters become visible escapes. */

// C0 controls except newline, DEL, C1 controls, and the Unicode bidi controls that can
// reorder what a reader sees (the "trojan source" family). Tabs are expanded separately.
const UNSAFE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * Returns `text` as it should appear on a terminal: every control character is written as an
 * escape (`\x1b`, `\r`, `\u202e`), so ANSI/OSC sequences from a model are shown, never obeyed.
 * Newlines are kept; tabs become two spaces. Markdown and HTML need nothing: a terminal shows
 * them literally.
 *
 * @example
 * toLiteralText('\x1b[31mred\x1b[0m') // => '\\x1b[31mred\\x1b[0m'
 */
export function toLiteralText(text: string): string {
  return text.replace(/\t/g, '  ').replace(UNSAFE, escapeCharacter);
}

function escapeCharacter(character: string): string {
  const code = character.charCodeAt(0);
  if (character === '\r') return '\\r';
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
  return `\\u${code.toString(16).padStart(4, '0')}`;
}
