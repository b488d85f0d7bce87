/** Who answers in a terminal: the operating system's user, as the terminal provider records them. */
import { userInfo } from 'node:os';
import type { AnsweredBy } from '../contracts/outcome.js';
import { answeredByOrNothing } from '../rules/answered-by.js';

/**
 * `{ recipient: <OS user name>, channel }` (default `'terminal'`), or `undefined` when the system cannot
 * name the user (`os.userInfo()` throws for a uid without a passwd entry, in some containers)
 * or the name is not one `answeredBy` may hold: an answer is never refused for its byline.
 *
 * @example
 * osUserAnswerer(); // { recipient: 'alice', channel: 'terminal' }
 */
export function osUserAnswerer(channel = 'terminal'): AnsweredBy | undefined {
  let username: string;
  try {
    username = userInfo().username;
  } catch {
    return undefined;
  }
  return answeredByOrNothing({ recipient: username, channel });
}
