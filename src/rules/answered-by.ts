/**
 * Who answered, checked where it is written (`service.answer`'s `by`, a provider's
 * `answeredBy`, a recipient-bound link): an object `{ recipient, channel? }` of non-empty
 * strings, each at most `MAX_ANSWERED_BY_LENGTH` long, with no control characters; the
 * recipient is a person's id, checked (`readPersonId`) and kept as given: ids are compared by
 * their keys wherever two are compared (`samePerson`). Nothing is shortened or dropped: a value
 * that breaks a rule is refused with the field it is in.
 */
import type { AnsweredBy } from '../contracts/outcome.js';
import { describe } from './describe.js';
import { UserInteractionError } from './errors.js';
import { readPersonId, readPersonText } from './person-id.js';

const FIELDS: ReadonlySet<string> = new Set(['recipient', 'channel']);

/**
 * Checks who answered and returns a plain copy, the recipient as given; throws `UserInteractionError`
 * (`INVALID_REQUEST`, `data.field` the field at fault) naming what is wrong. `field` is how the
 * caller spells the value (`by`, `answeredBy`; `''` for an options object that is itself
 * `{ recipient, channel? }`), so the message points at the caller's own code.
 *
 * @example
 * readAnsweredBy({ recipient: 'alice@example.com', channel: 'email' }); // a copy
 * readAnsweredBy({ recipient: '' }); // throws: Expected `by.recipient` to be a non-empty string ...
 */
export function readAnsweredBy(value: unknown, field = 'by'): AnsweredBy {
  const name = field === '' ? 'the value' : `\`${field}\``;
  const at = (key: string) => (field === '' ? key : `${field}.${key}`);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw refusal(
      field,
      `Expected ${name} to be an object { recipient, channel? }, got ${describe(value)}.`,
    );
  }
  for (const key of Object.keys(value)) {
    if (!FIELDS.has(key)) {
      throw refusal(
        at(key),
        `${name} has the field ${JSON.stringify(key)}, which it does not take; it takes recipient and channel.`,
      );
    }
  }
  const { recipient, channel } = value as { recipient?: unknown; channel?: unknown };
  const by: AnsweredBy = { recipient: readPersonId(recipient, at('recipient')) };
  if (channel !== undefined) by.channel = readPersonText(channel, at('channel'));
  return by;
}

/** Who answered if `value` passes `readAnsweredBy`, else `undefined`; for values a host found (an OS user name). */
export function answeredByOrNothing(value: unknown): AnsweredBy | undefined {
  try {
    return readAnsweredBy(value);
  } catch {
    return undefined;
  }
}

function refusal(field: string, message: string): UserInteractionError {
  return new UserInteractionError('INVALID_REQUEST', message, { field });
}
