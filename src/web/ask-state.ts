/** What the ask machine says about a stored state, read from the machine itself. */
import { askMachine } from '../../machines/ask.machine.js';
import type { AskState } from '../engine/audit.js';

/** True once nothing can change the ask any more (a final state of the machine). */
export function isSettled(state: AskState): boolean {
  return askMachine.states[state]?.type === 'final';
}

const STATE_WORDS: Record<AskState, string> = {
  pending: 'is waiting for an answer',
  deferred: 'is waiting for an answer',
  answered: 'has been answered',
  cancelled: 'was cancelled',
  timedOut: 'timed out before an answer arrived',
  aborted: 'was withdrawn by the program that asked',
};

/** "This question has been answered." and the like, for a person. */
export function describeState(state: AskState): string {
  return `This question ${STATE_WORDS[state]}.`;
}
