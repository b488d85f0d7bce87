/** The CLI's exit codes: one per way an ask can end, so scripts can branch without parsing. */
import type { AskUserToolDetails } from '../tool/tool-result.js';

export const EXIT = {
  answered: 0,
  cancelled: 1,
  /** Refused before anything was asked: bad JSON, bad flags, input the tool rejects. */
  invalidInput: 2,
  timedOut: 3,
  deferred: 4,
  /** The store (`--store`) cannot be opened or used: one line names the problem and the fix. */
  store: 5,
  /**
   * A package the command needs (the terminal UI, the MCP SDK, the SQLite or PostgreSQL driver)
   * is not installed: one line names it. Every optional package takes this one path
   * (optional-package.ts).
   */
  missingPackage: 6,
  /** 128 + signal number, as shells report a process ended by that signal. */
  interrupted: 130,
  terminated: 143,
} as const;

/**
 * @example
 * exitCodeFor('aborted', 'SIGTERM') // => 143
 */
/** The exit codes every help text lists, one line each. */
export const EXIT_CODES_HELP = `Exit codes:
  0 answered   1 cancelled (declined, or no terminal)   2 invalid input or usage (message on stderr)
  3 timed out   4 deferred (answer it later: ask-engine resume or serve)
  5 the store cannot be opened or used (one line names the problem and the fix)
  6 a package the command needs is not installed (one line names it and how to install it)
  130 aborted by SIGINT (ctrl+c)   143 aborted by SIGTERM`;

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
