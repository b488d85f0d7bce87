/** Size limits, enforced before delivery with an explicit error, never by shortening. */

/** The most questions one ask may hold (a wizard); more is `TOO_MANY_QUESTIONS`. */
export const MAX_QUESTIONS = 4;
/** The most options a question allowing several selections may have; more is `LIMIT_EXCEEDED`. */
export const MAX_MULTI_SELECT_OPTIONS = 64;
/** Each written answer and each comment, in UTF-8 bytes. */
export const MAX_ANSWER_BYTES = 32 * 1024;
/** `answeredBy.recipient` and `answeredBy.channel`, in UTF-16 code units (an email address fits). */
export const MAX_ANSWERED_BY_LENGTH = 256;
/** The most people a quorum ask may name in `from` (and so the most it may require). */
export const MAX_QUORUM_PEOPLE = 100;
/**
 * An ask's attachment data (`start`'s `attachment.data`), in UTF-8 bytes: enough for an agent
 * run's saved state; larger data belongs in a store of its own, with a reference attached.
 */
export const MAX_ATTACHMENT_BYTES = 4 * 1024 * 1024;
/** The generic form's hint data, JSON-encoded, in UTF-8 bytes. */
export const MAX_FORM_HINT_BYTES = 128 * 1024;

/** UTF-8 length of a string without encoding it (lone surrogates count as U+FFFD, 3 bytes). */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}
