/**
 * Reading a urlencoded answer: one pass over the body, a cap on the number of fields, and no
 * field name that could reach an object's prototype. Each refusal names what was wrong.
 */
import { describe } from '../rules/describe.js';
import { MAX_MULTI_SELECT_OPTIONS, MAX_QUESTIONS } from '../rules/limits.js';

/** A body the server refuses before reading the ask; `status` is the HTTP status it gets. */
export class BodyError extends Error {
  constructor(
    readonly status: 400 | 413 | 415,
    message: string,
  ) {
    super(message);
    this.name = 'BodyError';
  }
}

/**
 * The most fields an answer can have: the token and the action, and per question a mode, a
 * text, a comment and one selection per option of a multi-select question.
 */
export const MAX_FORM_FIELDS = 2 + MAX_QUESTIONS * (3 + MAX_MULTI_SELECT_OPTIONS);

/** Names that no form field has and that mean something to a plain object. */
const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** The posted fields by name, each with its values in the order sent. */
export type FormFields = ReadonlyMap<string, readonly string[]>;

/**
 * Parses an `application/x-www-form-urlencoded` body in linear time. Refuses (`BodyError`) more
 * than `MAX_FORM_FIELDS` fields with 413 and a prototype name (`__proto__`, `constructor`,
 * `prototype`) with 400. Repeated names are kept; `onlyOnce` and the form decide which may repeat.
 */
export function parseFormFields(text: string): FormFields {
  const fields = new Map<string, string[]>();
  let count = 0;
  // One pass over the text; the cap is checked before a field is decoded.
  for (let start = 0; start <= text.length; ) {
    let end = text.indexOf('&', start);
    if (end === -1) end = text.length;
    const piece = text.slice(start, end);
    start = end + 1;
    if (piece === '') continue;
    count++;
    if (count > MAX_FORM_FIELDS) {
      throw new BodyError(
        413,
        `The answer has more than ${MAX_FORM_FIELDS} fields, the most this server accepts (the token, the action, and for each of at most ${MAX_QUESTIONS} questions a mode, a text, a comment and up to ${MAX_MULTI_SELECT_OPTIONS} choices). Nothing was recorded.`,
      );
    }
    const [name, value] = decodeField(piece);
    if (PROTOTYPE_KEYS.has(name)) {
      throw new BodyError(
        400,
        `The answer has a field named "${name}", which no form has; the answer was refused as malformed and nothing was recorded.`,
      );
    }
    const values = fields.get(name);
    if (values === undefined) fields.set(name, [value]);
    else values.push(value);
  }
  return fields;
}

/** `name=value` decoded as URLSearchParams decodes it (`+` a space, bad escapes kept as written). */
function decodeField(piece: string): [string, string] {
  if (!/[%+]/.test(piece)) {
    const at = piece.indexOf('=');
    return at === -1 ? [piece, ''] : [piece.slice(0, at), piece.slice(at + 1)];
  }
  const [entry] = new URLSearchParams(piece);
  return entry ?? ['', ''];
}

/**
 * The values of a field the form sends at most once (all but multi-select choices); sending it
 * again makes the answer malformed (400), since no browser does that for such a field.
 */
export function onlyOnce(fields: FormFields, name: string): string | undefined {
  const values = fields.get(name);
  if (values === undefined) return undefined;
  if (values.length > 1) {
    throw new BodyError(
      400,
      `The answer sends the field ${describe(name)} ${values.length} times; it may be sent once. The answer was refused as malformed and nothing was recorded.`,
    );
  }
  return values[0];
}
