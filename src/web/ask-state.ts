/** How the pages name an ask's state to a person, and which states still wait for one. */
import { askMachine } from '../../machines/ask.machine.js';
import { ASK_STATES, type AskState } from '../engine/audit.js';

/** The states in which an ask still waits for a person (pending, deferred), read from the machine. */
export const OPEN_STATES: readonly AskState[] = Object.freeze(
  ASK_STATES.filter((state) => askMachine.root.states[state]?.type !== 'final'),
);

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
