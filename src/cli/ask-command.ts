/** `ask-engine ask [JSON | -]`: asks ask_user tool input in the terminal, prints the outcome. */

import type { AskProvider } from '../engine/provider.js';
import { createInteractionService } from '../engine/service.js';
import { createAskUserTool } from '../tool/tool.js';
import type { AskUserToolDetails } from '../tool/tool-result.js';
import { type CliStore, openCliStore } from './cli-store.js';
import { parseDuration } from './duration.js';
import { EXIT, exitCodeFor } from './exit-codes.js';
import { ASK_HELP } from './help.js';
import { listenForInterrupts } from './interrupts.js';
import { parseFlags } from './parse-flags.js';
import { preferenceFlagOptions, readPreferenceFlags } from './preference-flags.js';
import { readStdin } from './read-stdin.js';
import { toStderrText, toTerminalSafeJson } from './stderr-text.js';
import { type CliAsking, setUpAsking } from './terminal-setup.js';
import { UsageError } from './usage-error.js';

/**
 * Runs the command and returns the exit code; output goes to stdout, messages to stderr.
 *
 * @example
 * process.exitCode = await runAskCommand(['{"question":"Deploy now?","options":["Yes","No"]}']);
 */
export async function runAskCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags('ask', argv, {
    text: { type: 'boolean' },
    timeout: { type: 'string' },
    store: { type: 'string' },
    defer: { type: 'boolean' },
    'interaction-id': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
    ...preferenceFlagOptions,
  });
  if (values.help) {
    process.stdout.write(ASK_HELP);
    return EXIT.answered;
  }
  if (positionals.length > 1) {
    throw new UsageError(`ask takes one JSON argument (or "-"), got ${positionals.length}.`);
  }
  if (values.defer === true && values.store === undefined) {
    throw new UsageError(
      'ask --defer needs --store FILE: a deferred ask waits in the store for a later answer.',
    );
  }
  const interactionId = values['interaction-id'];
  if (interactionId !== undefined && (values.defer !== true || interactionId === '')) {
    throw new UsageError('--interaction-id names a deferred ask: give it a value, with --defer.');
  }
  const preferences = readPreferenceFlags(values);
  const timeoutMs =
    values.timeout === undefined ? undefined : parseDuration('--timeout', values.timeout);
  const params = parseInput(await readInput(positionals[0]));
  if (timeoutMs !== undefined) params.timeout = timeoutMs;

  const store = values.store === undefined ? undefined : await openCliStore(values.store, 'create');
  const asking =
    values.defer === true && store !== undefined
      ? deferInto(store, interactionId)
      : await setUpAsking(preferences, {}, store?.store).catch(async (error: unknown) => {
          await store?.close();
          throw error;
        });
  const interrupts = listenForInterrupts();
  try {
    const result = await asking.tool.execute('cli', params, interrupts.signal);
    const { details } = result;
    if (details.status === 'invalid') {
      const message = details.error?.message ?? result.content[0].text;
      process.stderr.write(toStderrText(`ask-engine ask: ${message}\n`));
      return EXIT.invalidInput;
    }
    process.stdout.write(
      values.text ? `${result.content[0].text}\n` : `${toTerminalSafeJson(toOutcome(details))}\n`,
    );
    return exitCodeFor(details.status, interrupts.received);
  } finally {
    interrupts.dispose();
    asking.close();
    if (store !== undefined) {
      await asking.service.close();
      await store.close();
    }
  }
}

/** Asking without a person: every ask is deferred at once and waits in the store. */
function deferInto(store: CliStore, interactionId: string | undefined): CliAsking {
  const service = createInteractionService({ store: store.store });
  const provider: AskProvider = {
    ask: async (_request, ctx) => ({
      status: 'deferred',
      interactionId: interactionId ?? ctx.askId,
    }),
  };
  const unregister = service.registerProvider(provider);
  return {
    service,
    tool: createAskUserTool(service),
    interactive: false,
    close: unregister,
  };
}

const NEEDS_INPUT =
  'ask needs the ask_user input: a JSON argument like \'{"question":"Deploy now?","options":["Yes","No"]}\', or that JSON on stdin';

async function readInput(argument: string | undefined): Promise<string> {
  if (argument !== undefined && argument !== '-') return argument;
  if (argument === undefined && process.stdin.isTTY) {
    throw new UsageError(`${NEEDS_INPUT} with "-".`);
  }
  const text = await readStdin();
  if (text.trim() === '') throw new UsageError(`${NEEDS_INPUT}; stdin was empty.`);
  return text;
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

/**
 * The ask's outcome, in the engine's own `AskOutcome` shape rebuilt from the tool details, with
 * the ask's id first (for resume, serve's links and the store's history).
 */
function toOutcome(details: AskUserToolDetails): Record<string, unknown> {
  const outcome = outcomeOf(details);
  return details.askId === undefined ? outcome : { askId: details.askId, ...outcome };
}

function outcomeOf(details: AskUserToolDetails): Record<string, unknown> {
  switch (details.status) {
    case 'answered':
      return details.answeredBy === undefined
        ? { status: 'answered', answers: details.answers }
        : { status: 'answered', answers: details.answers, answeredBy: details.answeredBy };
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
