/**
 * `ask-engine claude-hook`: a Claude Code `PreToolUse` command hook. Reads the hook's JSON on
 * stdin, asks about the tool call through the store (any surface sharing it answers: `serve`'s
 * web page, `answer`, a service with notify or chat), prints the decision JSON on stdout.
 */
import { readFile } from 'node:fs/promises';
import type { SyncHookJSONOutput } from '@anthropic-ai/claude-agent-sdk';
import { type ClaudeToolCall, toolUseAskId } from '../claude/decide-tool-call.js';
import {
  checkHookOptions,
  decidePreToolUseCall,
  readPreToolUseInput,
} from '../claude/pre-tool-use-hook.js';
import type { AskProvider } from '../engine/provider.js';
import { createInteractionService } from '../engine/service.js';
import type { InteractionService } from '../engine/service-contract.js';
import { isUserInteractionError } from '../rules/errors.js';
import { openCliStore } from './cli-store.js';
import { parseDuration } from './duration.js';
import { EXIT } from './exit-codes.js';
import { MissingPackage } from './optional-package.js';
import { parseFlags } from './parse-flags.js';
import { readStdin } from './read-stdin.js';
import { sentence, toStderrText, toTerminalSafeJson } from './stderr-text.js';
import { StoreProblem } from './store-problem.js';
import { UsageError } from './usage-error.js';

export const CLAUDE_HOOK_HELP = `Usage: ask-engine claude-hook --store PATH|URL [options]

A Claude Code PreToolUse command hook. Reads the hook input JSON on stdin and asks a person
about the tool call: AskUserQuestion as its questions (the answers go back in the tool's
input), any other tool as Approve / Reject bound to the call's input digest. The ask waits in the
store, where ask-engine serve shows its link, ask-engine answer answers it, and any service
sharing the store can settle it. Prints the hook output JSON on stdout: "allow" (with the
input to run), "deny" (with the reason Claude reads: declined, timed out, cancelled), or
"defer" when no answer came within --wait.

"defer" is honoured by claude -p (print mode): the run ends with the call pending, and
claude -p --resume <session id> runs this hook again for the same call, which then reads the
answer. An interactive session ignores "defer": give it --unanswered deny.

Options:
  --store PATH|URL          the SQLite file (created if missing) or postgres://… URL the ask waits in
  --wait DURATION           hold the call up to 1500 (ms), 30s, 2m or 1h for an answer
                            (default: decide at once); keep it below the hook's "timeout"
  --unanswered defer|deny   no answer within --wait: defer (default), or deny and cancel the ask
  --timeout DURATION        the ask's deadline: past it the call is denied (timed out)
  --schemas FILE            a JSON object { "<tool name>": <input JSON Schema> }: the person may
                            edit those tools' input before approving
  -h, --help                this help

Exit codes: 0 the decision is on stdout; 2 the call is blocked, one line on stderr says why (hook
input that is not a PreToolUse hook's, bad flags, a store that cannot be opened, a missing
package): Claude Code reads exit code 2 as a blocking error and shows the line to Claude.

.claude/settings.json:
  { "hooks": { "PreToolUse": [ { "matcher": "Bash|Write|Edit|AskUserQuestion",
      "hooks": [ { "type": "command", "timeout": 120,
        "command": "npx ask-engine claude-hook --store .claude/asks.db --wait 100s" } ] } ] } }
`;

/**
 * Runs the hook and returns the exit code: 0 with the decision on stdout, or 2 (a blocking
 * error for Claude Code) with one line on stderr when it cannot ask.
 *
 * @example
 * process.exitCode = await runClaudeHookCommand(['--store', 'asks.db', '--wait', '30s']);
 */
export async function runClaudeHookCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags('claude-hook', argv, {
    store: { type: 'string' },
    wait: { type: 'string' },
    unanswered: { type: 'string' },
    timeout: { type: 'string' },
    schemas: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    process.stdout.write(CLAUDE_HOOK_HELP);
    return EXIT.answered;
  }
  if (positionals.length > 0) {
    throw new UsageError(
      `claude-hook takes no arguments (the hook input comes on stdin), got ${JSON.stringify(positionals[0])}.`,
    );
  }
  if (values.store === undefined || values.store === '') {
    throw new UsageError(
      'claude-hook needs --store PATH|URL: the store the ask waits in, which ask-engine serve and answer read.',
    );
  }
  const unanswered = values.unanswered ?? 'defer';
  if (unanswered !== 'defer' && unanswered !== 'deny') {
    throw new UsageError(
      `claude-hook: --unanswered must be defer or deny, got ${JSON.stringify(unanswered)}.`,
    );
  }
  const waitMs = values.wait === undefined ? 0 : parseDuration('--wait', values.wait);
  const timeoutMs =
    values.timeout === undefined ? undefined : parseDuration('--timeout', values.timeout);
  const inputSchemas = values.schemas === undefined ? undefined : await readSchemas(values.schemas);
  const text = await readStdin();
  const options = {
    waitMs,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(inputSchemas === undefined ? {} : { inputSchemas }),
  };
  // Read once, before the store is opened: input that is not a PreToolUse hook's is refused.
  const call = asUsage(() => {
    checkHookOptions(options);
    return readPreToolUseInput(parseHookInput(text));
  });

  try {
    return await decide(values.store, call, options, unanswered);
  } catch (error) {
    // A hook that cannot ask blocks the call: exit code 2 is Claude Code's blocking error.
    if (error instanceof StoreProblem || error instanceof MissingPackage) {
      process.stderr.write(toStderrText(`ask-engine claude-hook: ${sentence(error.message)}\n`));
      return EXIT.invalidInput;
    }
    throw error;
  }
}

interface HookOptions {
  waitMs: number;
  timeoutMs?: number;
  inputSchemas?: Record<string, object>;
}

async function decide(
  storePath: string,
  call: ClaudeToolCall,
  options: HookOptions,
  unanswered: 'defer' | 'deny',
): Promise<number> {
  const opened = await openCliStore(storePath, 'create');
  const service = createInteractionService({ store: opened.store });
  // No person at this process: the ask waits in the store, answered by its id from anywhere.
  const provider: AskProvider = {
    ask: async (_request, ctx) => ({ status: 'deferred', interactionId: ctx.askId }),
  };
  service.registerProvider(provider);
  try {
    let output = await decidePreToolUseCall(service, call, options);
    if (unanswered === 'deny' && isDeferred(output))
      output = await denyUnanswered(service, call, options);
    process.stdout.write(`${toTerminalSafeJson(output)}\n`);
    return EXIT.answered;
  } finally {
    await service.close();
    await opened.close();
  }
}

function isDeferred(output: SyncHookJSONOutput): boolean {
  const specific = output.hookSpecificOutput;
  return specific?.hookEventName === 'PreToolUse' && specific.permissionDecision === 'defer';
}

/**
 * No answer in time, in a session that cannot defer: the ask is cancelled and the call denied.
 * An ask settled meanwhile is decided by its outcome instead.
 */
async function denyUnanswered(
  service: InteractionService,
  call: ClaudeToolCall,
  options: HookOptions,
): Promise<SyncHookJSONOutput> {
  try {
    await service.cancel(
      toolUseAskId(call.toolUseId),
      'unavailable',
      'The hook denied the call: no answer within --wait.',
    );
  } catch (error) {
    if (!isUserInteractionError(error, 'ASK_SETTLED')) throw error;
    return decidePreToolUseCall(service, call, { ...options, waitMs: 0 });
  }
  return {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: 'deny',
      permissionDecisionReason:
        "Not allowed: no one answered within the hook's wait. Ask the user again, or go on without this call.",
    },
  };
}

/** A `TypeError` of the hook input or options, as a usage problem (exit code 2). */
function asUsage<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof TypeError) throw new UsageError(error.message);
    throw error;
  }
}

function parseHookInput(text: string): unknown {
  if (text.trim() === '')
    throw new UsageError(
      'claude-hook reads the PreToolUse hook input JSON on stdin; stdin was empty.',
    );
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`The hook input on stdin is not valid JSON: ${(error as Error).message}.`);
  }
}

async function readSchemas(path: string): Promise<Record<string, object>> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new UsageError(
      `--schemas ${JSON.stringify(path)} cannot be read as JSON: ${(error as Error).message}.`,
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError(
      `--schemas ${JSON.stringify(path)} must hold a JSON object of tool names to input JSON Schemas.`,
    );
  }
  return value as Record<string, object>;
}
