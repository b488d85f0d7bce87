/** `ask-engine ask [JSON | -]`: asks ask_user tool input in the terminal, prints the outcome. */
import { parseArgs } from 'node:util';
import type { AskUserToolDetails } from '../tool/tool-result.js';
import { parseDuration } from './duration.js';
import { EXIT, exitCodeFor } from './exit-codes.js';
import { ASK_HELP } from './help.js';
import { listenForInterrupts } from './interrupts.js';
import { preferenceFlagOptions, readPreferenceFlags } from './preference-flags.js';
import { readStdin } from './read-stdin.js';
import { openCliStore } from './resume-command.js';
import { setUpAsking } from './terminal-setup.js';
import { UsageError } from './usage-error.js';

/**
 * Runs the command and returns the exit code; output goes to stdout, messages to stderr.
 *
 * @example
 * process.exitCode = await runAskCommand(['{"question":"Deploy now?","options":["Yes","No"]}']);
 */
export async function runAskCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      text: { type: 'boolean' },
      timeout: { type: 'string' },
      store: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      ...preferenceFlagOptions,
    },
  });
  if (values.help) {
    process.stdout.write(ASK_HELP);
    return EXIT.answered;
  }
  if (positionals.length > 1) {
    throw new UsageError(`ask takes one JSON argument (or "-"), got ${positionals.length}.`);
  }
  const preferences = readPreferenceFlags(values);
  const timeoutMs = values.timeout === undefined ? undefined : parseDuration(values.timeout);
  const params = parseInput(await readInput(positionals[0]));
  if (timeoutMs !== undefined) params.timeout = timeoutMs;

  const store = values.store === undefined ? undefined : await openCliStore(values.store);
  const asking = setUpAsking(preferences, {}, store);
  const interrupts = listenForInterrupts();
  try {
    const result = await asking.tool.execute('cli', params, interrupts.signal);
    const { details } = result;
    if (details.status === 'invalid') {
      process.stderr.write(`ask-engine ask: ${details.error?.message ?? result.content[0].text}\n`);
      return EXIT.invalidInput;
    }
    process.stdout.write(
      values.text ? `${result.content[0].text}\n` : `${JSON.stringify(toOutcome(details))}\n`,
    );
    return exitCodeFor(details.status, interrupts.received);
  } finally {
    interrupts.dispose();
    await asking.close();
    if (store !== undefined) {
      await asking.service.close();
      await store.close();
    }
  }
}

async function readInput(argument: string | undefined): Promise<string> {
  if (argument !== undefined && argument !== '-') return argument;
  if (argument === undefined && process.stdin.isTTY) {
    throw new UsageError('ask needs the ask_user input: a JSON argument, or "-" to read stdin.');
  }
  return readStdin();
}

function parseInput(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`The ask_user input is not valid JSON: ${(error as Error).message}.`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError('The ask_user input must be a JSON object like {"question": "…"}.');
  }
  return value as Record<string, unknown>;
}

/** The ask's outcome, in the engine's own `AskOutcome` shape, rebuilt from the tool details. */
function toOutcome(details: AskUserToolDetails): Record<string, unknown> {
  switch (details.status) {
    case 'answered':
      return { status: 'answered', answers: details.answers };
    case 'cancelled':
      return withMessage({ status: 'cancelled', reason: details.reason }, details.message);
    case 'timedOut':
      return { status: 'timedOut', deadlineAt: details.deadlineAt };
    case 'deferred':
      return withMessage(
        { status: 'deferred', interactionId: details.interactionId },
        details.message,
      );
    default:
      return { status: details.status, message: details.message ?? '' };
  }
}

function withMessage(outcome: Record<string, unknown>, message: string | undefined) {
  return message === undefined ? outcome : { ...outcome, message };
}
