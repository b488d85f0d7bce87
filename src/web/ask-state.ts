/**
 * How the pages name an ask's state to a person, which states still wait for one, and the open
 * ask a link is made for.
 */
import { askMachine } from '../../machines/ask.machine.js';
import { ASK_STATES, type AskState } from '../engine/audit.js';
import type { AskInfo } from '../engine/service-contract.js';
import { UserInteractionError } from '../rules/errors.js';
import type { WebAnswerService } from './web-service.js';

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

/** The open ask a link is made for; rejects for an unknown or settled one. */
export async function openAskFor(
  service: Pick<WebAnswerService, 'get'>,
  askId: string,
): Promise<AskInfo> {
  const ask = await service.get(askId);
  if (ask === undefined) {
    throw new UserInteractionError(
      'UNKNOWN_INTERACTION',
      `No ask with id ${JSON.stringify(askId)} in the store; start it first.`,
      { askId },
    );
  }
  if (ask.final) {
    throw new UserInteractionError(
      'ASK_SETTLED',
      `Ask ${JSON.stringify(askId)} is ${ask.state}; a link to it would be useless.`,
      { askId, state: ask.state },
    );
  }
  return ask;
}
