/** Text the CLI writes for people (stderr) and for scripts (JSON), made safe for a terminal. */
import { escapeControlCharacters, isEscapedCharacter } from '../rules/escape-text.js';

/**
 * A message for stderr: control, C1 and bidi characters quoted from model text are shown as
 * escapes (the shared escaper), line breaks kept.
 *
 * @example
 * toStderrText('bad title "\u202eevil"\n') // => 'bad title "\\u202eevil"\n'
 */
export function toStderrText(message: string): string {
  return escapeControlCharacters(message, true);
}

/**
 * `JSON.stringify(value)` with every character the shared escaper shows escaped as `\uXXXX`
 * too (JSON already escapes C0; C1, bidi controls and U+2028/9 it leaves raw). The parsed
 * value is the same; a terminal that shows the JSON obeys none of it.
 *
 * @example
 * toTerminalSafeJson({ title: '\u202eevil' }) // => '{"title":"\\u202eevil"}'
 */
export function toTerminalSafeJson(value: unknown): string {
  const json = JSON.stringify(value);
  let out = '';
  let start = 0;
  for (let index = 0; index < json.length; index++) {
    const code = json.charCodeAt(index);
    // JSON.stringify escapes lone surrogates itself; a surrogate here is half of a valid pair.
    if (code < 0x7f || (code >= 0xd800 && code <= 0xdfff) || !isEscapedCharacter(code)) continue;
    out += `${json.slice(start, index)}\\u${code.toString(16).padStart(4, '0')}`;
    start = index + 1;
  }
  return start === 0 ? json : out + json.slice(start);
}

/**
 * An error's message on one line, without its final period, to quote inside a sentence: a
 * driver's message can span several lines.
 *
 * @example
 * oneLineMessage(new Error('file is not a database\n  at open.')) // => 'file is not a database at open'
 */
export function oneLineMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\s*\n\s*/g, ' ').replace(/\.$/, '');
}

/**
 * A message as one sentence for a line on stderr: its own final stop kept (never doubled), one
 * added where it has none (a driver's or the system's text often ends without one).
 *
 * @example
 * sentence('connect ECONNREFUSED 127.0.0.1:1') // => 'connect ECONNREFUSED 127.0.0.1:1.'
 */
export function sentence(message: string): string {
  return /[.!?…]$/.test(message) ? message : `${message}.`;
}
