/** Renders a received value for an error message: its type, or a short quote of it. */

// Invisible characters are written as escapes, so a message about `"Allow\u200b"` does not
// read like one about `"Allow"`.
const IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;

export function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  if (typeof value === 'string') {
    const quoted = JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
    return quoted.replace(IGNORABLE, escapeCodePoint);
  }
  if (typeof value === 'function') return 'a function';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === 'object') return 'an object';
  return String(value);
}

/**
 * What kind of value it was, never the value itself: for messages that must not quote what a
 * person typed or picked (redaction).
 */
export function describeKind(value: unknown): string {
  if (typeof value === 'string') return `a string of ${value.length} characters`;
  if (typeof value === 'number' || typeof value === 'boolean') return `a ${typeof value}`;
  return describe(value);
}

/** The text of an error or an abort reason: its own message when it has one. */
export function messageOf(cause: unknown): string {
  try {
    if (typeof cause === 'object' && cause !== null && 'message' in cause) {
      const message = (cause as { message?: unknown }).message;
      if (typeof message === 'string' && message !== '') return message;
    }
    if (typeof cause === 'string' && cause !== '') return cause;
    if (cause === undefined) return 'aborted';
    return String(cause);
  } catch {
    // A hostile cause (a throwing getter, a Proxy, an object without toString) has no text.
    return 'an unreadable value';
  }
}

function escapeCodePoint(character: string): string {
  const code = character.codePointAt(0)!;
  return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
}
