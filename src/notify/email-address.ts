/** Mail addresses as this channel accepts them: one plain address, nothing a header could smuggle. */
import { describe } from '../rules/describe.js';

/** One mail address with an optional display name, as in `Approvals <approvals@example.com>`. */
export interface MailAddress {
  /** The display name, when one was given. */
  name?: string;
  /** The plain `local@domain` address. */
  address: string;
}

// One `local@domain` with none of the characters that would start a second address, a comment,
// a group or a new header line. Quoted local parts and IP literals are refused, not parsed.
const PLAIN_ADDRESS = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:".]+$/;
// `Approvals <approvals@example.com>`: the display name is everything before the last `<`.
const NAMED_ADDRESS = /^(.*?)\s*<([^<>]*)>$/s;

/**
 * Reads the channel's `from`: `'approvals@example.com'`, `'Approvals <approvals@example.com>'` or
 * `{ name, address }`. Throws a `TypeError` naming the problem otherwise.
 */
export function readFromAddress(from: unknown): MailAddress {
  if (typeof from === 'object' && from !== null) {
    const { name, address } = from as { name?: unknown; address?: unknown };
    return {
      ...(name === undefined ? {} : { name: readDisplayName(name) }),
      address: readMailAddress(address, '`from.address`'),
    };
  }
  if (typeof from !== 'string') {
    throw new TypeError(
      `Expected \`from\` to be an address like 'approvals@example.com' or { name, address }, got ${describe(from)}.`,
    );
  }
  const named = NAMED_ADDRESS.exec(from);
  if (named === null) return { address: readMailAddress(from, '`from`') };
  const name = named[1]!.replace(/^"(.*)"$/s, '$1');
  return {
    ...(name === '' ? {} : { name: readDisplayName(name) }),
    address: readMailAddress(named[2], '`from`'),
  };
}

/** The first character that is not printable ASCII (a control, a blank, anything above `~`). */
const NOT_PRINTABLE_ASCII = /[^!-~]/u;
/** A character a reader can see; any other is named by its code point only. */
const VISIBLE = /[\p{L}\p{M}\p{N}\p{P}\p{S}]/u;

/**
 * Checks one plain `local@domain` address; `what` names it in the error.
 *
 * Printable ASCII only. A control character (NUL, ESC) or a blank reaches the envelope raw or
 * is dropped by the transport, and a direction mark (U+202E) or a look-alike from another script
 * (Cyrillic `а` for `a`) makes the address read as another; nodemailer turns a non-ASCII domain
 * into its punycode form and delivers there. Telling a safe international address from a
 * look-alike needs the recipient's intent, which the channel does not know, so it takes none:
 * an internationalized domain is given in its ASCII form (`xn--…`), where it can be seen for
 * what it is, and a non-ASCII local part (which needs SMTPUTF8 end to end) is not supported.
 */
export function readMailAddress(address: unknown, what: string): string {
  const odd = typeof address === 'string' ? NOT_PRINTABLE_ASCII.exec(address) : null;
  if (odd !== null) {
    throw new TypeError(
      `Expected ${what} to be a mail address in printable ASCII, got ${describe(address)}: ${codePointName(odd[0])} at position ${odd.index + 1}. Mail addresses here are only ASCII: control, invisible and non-ASCII characters are refused, since a transport may drop or rewrite them and deliver elsewhere. Give an internationalized domain in its ASCII (punycode) form, \`xn--…\`; a non-ASCII local part is not supported.`,
    );
  }
  if (typeof address !== 'string' || !PLAIN_ADDRESS.test(address)) {
    throw new TypeError(
      `Expected ${what} to be one plain mail address like 'alice@example.com' (no display name, list, line break or blank), got ${describe(address)}.`,
    );
  }
  return address;
}

/** The domain of an address: Message-IDs of this sender are made under it. */
export function domainOf(address: string): string {
  return address.slice(address.lastIndexOf('@') + 1);
}

function readDisplayName(name: unknown): string {
  // Control characters (CR and LF above all) would end the header; they are refused, not escaped,
  // because a sender's name is configuration, not text a model wrote.
  if (typeof name !== 'string' || name.trim() === '' || /[\p{Cc}"<>]/u.test(name)) {
    throw new TypeError(
      `Expected the \`from\` display name to be text without control characters, quotes or angle brackets, got ${describe(name)}.`,
    );
  }
  return name;
}

/** `U+0430 ("а")` for a visible character, `U+202E` for one a reader cannot see. */
function codePointName(character: string): string {
  const code = (character.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0');
  return VISIBLE.test(character) ? `U+${code} ("${character}")` : `U+${code}`;
}
