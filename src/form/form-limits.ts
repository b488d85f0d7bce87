/** The size limit of a form's hint data, measured as the JSON a transport would carry. */
import { UserInteractionError } from '../rules/errors.js';
import { MAX_FORM_HINT_BYTES } from '../rules/limits.js';

// Encoding into a buffer one character wider than the limit counts exactly up to the limit and
// stops early past it, with no allocation per call: several times faster than counting in a loop.
let scratch: Uint8Array | undefined;
let encoder: TextEncoder | undefined;

/** UTF-8 bytes of `JSON.stringify(data)`; throws `LIMIT_EXCEEDED` over `MAX_FORM_HINT_BYTES`. */
export function checkFormHintSize(data: unknown): number {
  const json = JSON.stringify(data);
  const bytes = json.length > MAX_FORM_HINT_BYTES ? MAX_FORM_HINT_BYTES + 1 : jsonBytes(json);
  if (bytes > MAX_FORM_HINT_BYTES) {
    const actual = new TextEncoder().encode(json).length;
    throw new UserInteractionError(
      'LIMIT_EXCEEDED',
      `The questions take ${actual} bytes of UTF-8 as form data; the limit is ${MAX_FORM_HINT_BYTES} bytes. Shorten the context or options, or split the questions over several asks; nothing is shortened for you.`,
      { limit: MAX_FORM_HINT_BYTES, actual },
    );
  }
  return bytes;
}

/** Exact up to the limit; some number above it past the limit. */
function jsonBytes(json: string): number {
  encoder ??= new TextEncoder();
  scratch ??= new Uint8Array(MAX_FORM_HINT_BYTES + 4);
  const { read, written } = encoder.encodeInto(json, scratch);
  // JSON.stringify escapes lone surrogates, so every character encodes as itself.
  return read === json.length ? written : MAX_FORM_HINT_BYTES + 1;
}
