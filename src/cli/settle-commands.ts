/**
 * `ask-engine answer` and `cancel`: an operator settles a pending or deferred ask in a store by
 * its id, checked and recorded exactly as any other surface (the answer validated against the
 * ask's questions, the OS user recorded as who answered, every refusal audited).
 */
import { shownOfAsk } from '../engine/ask-info.js';
import { osUserAnswerer } from '../terminal/os-user.js';
import { parseAnswers } from './answers-input.js';
import { EXIT } from './exit-codes.js';
import { oneAskId } from './inspect-commands.js';
import { parseFlags } from './parse-flags.js';
import { readStdin } from './read-stdin.js';
import { toTerminalSafeJson } from './stderr-text.js';
import { withStoreService } from './store-service.js';
import { UsageError } from './usage-error.js';

export const ANSWER_HELP = `Usage: ask-engine answer ASK_ID <answers-json | -> --store PATH|URL

Answers a pending or deferred ask by its id and prints its outcome as JSON (its answers read
"[redacted]" where the ask's service redacts, as everywhere). The answers are a
JSON array of { "questionId", "response" }, checked against the ask's questions as any answer
is; the OS user is recorded as who answered (channel "cli"). On an ask several people decide
(a quorum), it is the OS user's response: it prints the outcome if it decided the ask, else
the state and the quorum's progress ({ askId, state, quorum }).

Options:
  --store PATH|URL   the SQLite file, or postgres://… URL, the ask lives in (never created)
  -h, --help         this help

Exit codes: 0 answered (or the response recorded); 2 refused (message on stderr): an unknown
ask, one already settled, answers that do not fit (the ask stays open), a second response by
the same person; 5 the store cannot be opened.

Example:
  ask-engine answer ask-7 '[{"questionId":"q1","response":{"kind":"selection","selections":["Yes"]}}]' --store asks.db
`;

export const CANCEL_HELP = `Usage: ask-engine cancel ASK_ID --store PATH|URL [--message TEXT]

Cancels a pending or deferred ask by its id (reason "user") and prints its outcome as JSON;
whoever waits for it gets that outcome, never an answer.

Options:
  --store PATH|URL   the SQLite file, or postgres://… URL, the ask lives in (never created)
  --message TEXT     why, for the audit trail and the waiting agent
  -h, --help         this help

Exit codes: 0 cancelled; 2 refused (an unknown ask, or one already settled); 5 the store.
`;

/** @example process.exitCode = await runAnswerCommand(['ask-7', answersJson, '--store', 'asks.db']); */
export async function runAnswerCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags('answer', argv, {
    store: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    process.stdout.write(ANSWER_HELP);
    return EXIT.answered;
  }
  const [askId, answersText, ...extra] = positionals;
  if (askId === undefined || answersText === undefined || extra.length > 0) {
    throw new UsageError(
      `answer takes an ask id and the answers JSON (or "-"), got ${positionals.length} argument(s).`,
    );
  }
  const answers = parseAnswers(answersText === '-' ? await readStdin() : answersText);
  return withStoreService('answer', values.store, async (service, store) => {
    const by = osUserAnswerer('cli');
    const { outcome, state, quorum } = await service.respond(
      askId,
      answers,
      by === undefined ? {} : { by },
    );
    const shown = outcome === undefined ? { askId, state, quorum } : { askId, ...outcome };
    // Redacted where the ask redacts: a quorum's outcome holds everyone's responses.
    process.stdout.write(`${toTerminalSafeJson(shownOfAsk(shown, await store.get(askId)))}\n`);
    return EXIT.answered;
  });
}

/** @example process.exitCode = await runCancelCommand(['ask-7', '--store', 'asks.db']); */
export async function runCancelCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags('cancel', argv, {
    store: { type: 'string' },
    message: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    process.stdout.write(CANCEL_HELP);
    return EXIT.answered;
  }
  const askId = oneAskId('cancel', positionals);
  return withStoreService('cancel', values.store, async (service) => {
    const outcome = await service.cancel(askId, 'user', values.message);
    process.stdout.write(`${toTerminalSafeJson({ askId, ...outcome })}\n`);
    return EXIT.answered; // the command did what it was asked: 0
  });
}
