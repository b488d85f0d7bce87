/** Makes model-written text safe to print on a terminal, through the one shared escaper. */
import { escapeControlCharacters } from '../rules/escape-text.js';

/**
 * Returns `text` as it should appear on a terminal: every control character is written as an
 * escape (`\x1b`, `\r`, `\x9b`, `\u202e`; see `isEscapedCharacter`), so ANSI/OSC sequences
 * from a model are shown, never obeyed. Line breaks (`\n`, `\r\n`) stay line breaks; tabs
 * become two spaces. Markdown and HTML need nothing: a terminal shows them literally.
 *
 * @example
 * toLiteralText('\x1b[31mred\x1b[0m') // => '\\x1b[31mred\\x1b[0m'
 */
export function toLiteralText(text: string): string {
  return escapeControlCharacters(text.replace(/\t/g, '  '), true).replace(/\r\n/g, '\n');
}
