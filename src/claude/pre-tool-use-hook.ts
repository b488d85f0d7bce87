/**
 * A `PreToolUse` hook that asks a person through ask-engine, as an SDK hook callback and as
 * the JSON-in / JSON-out function behind `ask-engine claude-hook`.
 */
import type { HookCallback, SyncHookJSONOutput } from '@anthropic-ai/claude-agent-sdk';
import type { InteractionService } from '../engine/service-contract.js';
import { describe } from '../rules/describe.js';
import { type ClaudeAskOptions, type ClaudeToolCall, decideToolCall } from './decide-tool-call.js';
import { checkClaudeAskOptions } from './options.js';
import { toPreToolUseOutput } from './tool-call-decision.js';

/** Options of `createPreToolUseHook` and `decidePreToolUse`. */
export interface PreToolUseHookOptions extends ClaudeAskOptions {
  /**
   * Milliseconds to wait for a deferred ask (a web link, a chat card) to settle before the
   * hook returns `defer`; default 0, defer at once. `Infinity` never defers.
   */
  waitMs?: number;
}

/**
 * Returns a `PreToolUse` hook callback: the call is asked about (AskUserQuestion as a wizard,
 * other tools as an approval bound to the input digest) and the hook returns `allow` (with
 * `updatedInput`: the approved or edited input, or the questions' answers), `deny` with the
 * reason the model reads, or `defer` while the ask waits elsewhere. Claude Code honours `defer`
 * in print mode (`claude -p`): the run ends with `terminal_reason: 'tool_deferred'`, and
 * `resumeDeferredSession` continues it once the ask settles, on any host sharing the store
 * (the hook runs again for the same tool use and reads the ask's outcome).
 *
 * @example
 * const hook = createPreToolUseHook(service);
 * query({ prompt, options: { hooks: { PreToolUse: [{ hooks: [hook] }] } } });
 */
export function createPreToolUseHook(
  service: InteractionService,
  options: PreToolUseHookOptions = {},
): HookCallback {
  checkHookOptions(options);
  return (input, _toolUseID, { signal }) =>
    decidePreToolUse(service, input, { ...options, signal });
}

/**
 * Decides one `PreToolUse` hook input (the JSON Claude Code hands a hook) and resolves the
 * hook output. Throws a `TypeError` naming the field for an input that is not a `PreToolUse`
 * hook's.
 *
 * @example
 * const output = await decidePreToolUse(service, JSON.parse(stdin), { waitMs: 30_000 });
 */
export async function decidePreToolUse(
  service: InteractionService,
  hookInput: unknown,
  options: PreToolUseHookOptions & { signal?: AbortSignal } = {},
): Promise<SyncHookJSONOutput> {
  checkHookOptions(options);
  return decidePreToolUseCall(service, readPreToolUseInput(hookInput), options);
}

/** `decidePreToolUse` for a hook input already read (`readPreToolUseInput`). */
export async function decidePreToolUseCall(
  service: InteractionService,
  call: ClaudeToolCall,
  options: PreToolUseHookOptions & { signal?: AbortSignal },
): Promise<SyncHookJSONOutput> {
  const { waitMs = 0, ...rest } = options;
  return toPreToolUseOutput(
    await decideToolCall(service, call, { ...rest, waitForDeferredMs: waitMs }),
  );
}

/** The call a `PreToolUse` hook input names, checked once here. */
export function readPreToolUseInput(value: unknown): ClaudeToolCall {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeError(`A PreToolUse hook input must be a JSON object, got ${describe(value)}.`);
  }
  const input = value as Record<string, unknown>;
  if (input.hook_event_name !== 'PreToolUse') {
    throw new TypeError(
      `Expected a PreToolUse hook input, got hook_event_name ${describe(input.hook_event_name)}; register the hook under hooks.PreToolUse.`,
    );
  }
  const toolName = requireText(input, 'tool_name');
  const toolUseId = requireText(input, 'tool_use_id');
  const sessionId = requireText(input, 'session_id');
  const toolInput = input.tool_input;
  if (typeof toolInput !== 'object' || toolInput === null || Array.isArray(toolInput)) {
    throw new TypeError(
      `A PreToolUse hook input's tool_input must be a JSON object, got ${describe(toolInput)}.`,
    );
  }
  const context = [
    typeof input.cwd === 'string' ? `Working directory: ${input.cwd}` : undefined,
    typeof input.agent_type === 'string' ? `Agent: ${input.agent_type}` : undefined,
    mcpServerLine(input.mcp_server),
  ].filter((line): line is string => line !== undefined);
  return {
    toolName,
    toolUseId,
    sessionId,
    input: toolInput as Record<string, unknown>,
    ...(context.length === 0 ? {} : { context: context.join('\n') }),
  };
}

function mcpServerLine(server: unknown): string | undefined {
  if (typeof server !== 'object' || server === null) return undefined;
  const { name, source } = server as { name?: unknown; source?: unknown };
  // A configured server's name is untrusted text: quoted, so it cannot pose as our words.
  return typeof name === 'string'
    ? `MCP server ${JSON.stringify(name)} (source: ${String(source)})`
    : undefined;
}

function requireText(input: Record<string, unknown>, field: string): string {
  const value = input[field];
  if (typeof value !== 'string' || value === '') {
    throw new TypeError(
      `A PreToolUse hook input's ${field} must be a non-empty string, got ${describe(value)}.`,
    );
  }
  return value;
}

/** Throws a `TypeError` naming an option that cannot be used. */
export function checkHookOptions(options: PreToolUseHookOptions): void {
  checkClaudeAskOptions(options);
  const { waitMs } = options;
  if (
    waitMs !== undefined &&
    !(typeof waitMs === 'number' && waitMs >= 0 && !Number.isNaN(waitMs))
  ) {
    throw new TypeError(
      `Expected \`waitMs\` to be a number of milliseconds, 0 or more, got ${describe(waitMs)}.`,
    );
  }
}
