/** How the pages name an ask's state to a person. */
import type { AskState } from '../engine/audit.js';

const STATE_WORDS: Record<AskState, string> = {
  pending: 'is waiting for an answer',
  deferred: 'is waiting for an answer',
  answered: 'has been answered',
  cancelled: 'was cancelled',
  timedOut: 'timed out before an answer arrived',
  aborted: 'was withdrawn by the program that asked',
};

/** "This question has been answered." and the like. */
export function describeState(state: AskState): string {
  return `This question ${STATE_WORDS[state]}.`;
}
