/**
 * Text that a store keeps or looks up (an ask id, a key, an interaction id, a session, a list
 * filter or cursor) holds no U+0000: PostgreSQL's text and jsonb cannot hold it, so the same
 * value would be kept by one store and fail in another with the server's raw "invalid byte
 * sequence". Every store and the service refuse it the same way, before any query.
 */
import { UserInteractionError } from './errors.js';

/**
 * Throws `INVALID_REQUEST` (`data.field` = `field`) when `value` holds U+0000 (NUL), naming
 * the field and where the NUL is; `where` names what the field belongs to (`list filter`).
 *
 * @example
 * checkStoreText('step-1', 'key'); // passes
 * checkStoreText('step\u00001', 'key'); // throws: `key` holds the character U+0000 (NUL) at position 4 ...
 */
export function checkStoreText(value: string, field: string, where?: string): void {
  const problem = storeTextProblem(value, field, where);
  if (problem !== undefined) throw new UserInteractionError('INVALID_REQUEST', problem, { field });
}

/** What `checkStoreText` would refuse `value` for, or `undefined` when a store can keep it. */
export function storeTextProblem(value: string, field: string, where?: string): string | undefined {
  const at = value.indexOf('\u0000');
  if (at === -1) return undefined;
  return `${where === undefined ? '' : `${where} `}\`${field}\` holds the character U+0000 (NUL) at position ${at}, which no ask store keeps (PostgreSQL cannot hold it), so nothing is stored or found under it. Remove it.`;
}
