/** The CLI's exit codes: one per way an ask can end, so scripts can branch without parsing. */
import type { AskUserToolDetails } from '../tool/tool-result.js';

export const EXIT = {
  answered: 0,
  cancelled: 1,
  /** Refused before anything was asked: bad JSON, bad flags, input the tool rejects. */
  invalidInput: 2,
  timedOut: 3,
  deferred: 4,
  /** 128 + signal number, as shells report a process ended by that signal. */
  interrupted: 130,
  terminated: 143,
} as const;

/**
 * @example
 * exitCodeFor('aborted', 'SIGTERM') // => 143
 */
export function exitCodeFor(
  status: AskUserToolDetails['status'],
  signal: 'SIGINT' | 'SIGTERM' | undefined,
): number {
  switch (status) {
    case 'answered':
      return EXIT.answered;
    case 'cancelled':
      return EXIT.cancelled;
    case 'timedOut':
      return EXIT.timedOut;
    case 'deferred':
      return EXIT.deferred;
    case 'invalid':
      return EXIT.invalidInput;
    case 'aborted':
      return signal === 'SIGTERM' ? EXIT.terminated : EXIT.interrupted;
  }
}
