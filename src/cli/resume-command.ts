/**
 * `ask-engine resume <interactionId> <answers-json | -> --store PATH`: brings the answer of a
 * deferred ask kept in a SQLite file, from any later process, and prints the outcome.
 */
import { shownOfAsk } from '../engine/ask-info.js';
import { osUserAnswerer } from '../terminal/os-user.js';
import { parseAnswers } from './answers-input.js';
import { EXIT } from './exit-codes.js';
import { parseFlags } from './parse-flags.js';
import { readStdin } from './read-stdin.js';
import { toTerminalSafeJson } from './stderr-text.js';
import { requireStore, withStoreService } from './store-service.js';
import { UsageError } from './usage-error.js';

export const RESUME_HELP = `Usage: ask-engine resume <interactionId> <answers-json | -> --store PATH

Answers the deferred ask waiting on <interactionId> in the SQLite file PATH (the one an earlier
"ask-engine ask --store PATH" or any service wrote) and prints its outcome as JSON with its
"askId", as ask-engine answer does (its answers read "[redacted]" where the ask's service
redacts). The answers are a JSON array of { "questionId", "response" }, checked against the
ask's questions. The outcome records the OS user as who answered ("answeredBy", channel "cli").

Options:
  --store FILE   the SQLite file the ask lives in (required; never created)
  -h, --help     this help

Exit codes:
  0 answered   2 refused (message on stderr): bad JSON or flags, unknown interaction id,
  invalid answers (the ask stays open), or an ask that has already ended
  5 the store cannot be opened or used (one line names the problem and the fix)

Examples:
  ask-engine resume thread-42 '[{"questionId":"q1","response":{"kind":"selection","selections":["Yes"]}}]' --store asks.db
  echo '[{"questionId":"q1","response":{"kind":"freeform","text":"main"}}]' | ask-engine resume thread-7 - --store asks.db
`;

/**
 * Runs the command and returns the exit code.
 *
 * @example
 * process.exitCode = await runResumeCommand(['thread-42', answersJson, '--store', 'asks.db']);
 */
export async function runResumeCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags('resume', argv, {
    store: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    process.stdout.write(RESUME_HELP);
    return EXIT.answered;
  }
  const [interactionId, answersText, ...extra] = positionals;
  if (interactionId === undefined || answersText === undefined || extra.length > 0) {
    throw new UsageError(
      `resume takes an interaction id and the answers JSON (or "-"), got ${positionals.length} argument(s).`,
    );
  }
  // Before stdin is read: a missing --store is named even when the answers come on stdin.
  const storePath = requireStore('resume', values.store);
  const answers = parseAnswers(answersText === '-' ? await readStdin() : answersText);
  return withStoreService('resume', storePath, async (service, store) => {
    // The ask waiting on the id, read before it settles: the outcome names it as answer's does.
    const waiting = await store.findByInteractionId(interactionId);
    const by = osUserAnswerer('cli');
    const outcome = await service.resume(interactionId, answers, by === undefined ? {} : { by });
    const askId = waiting === undefined ? {} : { askId: waiting.askId };
    process.stdout.write(`${toTerminalSafeJson(shownOfAsk({ ...askId, ...outcome }, waiting))}\n`);
    return EXIT.answered;
  });
}
