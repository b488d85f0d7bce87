/**
 * The one decision behind `canUseTool`, the `PreToolUse` hook and `ask-engine claude-hook`:
 * AskUserQuestion is asked as a wizard, every other tool as an Approve / Approve with edits /
 * Reject approval (`askToolApproval`) bound to its input digest. The ask is keyed by the tool-use id, so asking about the
 * same call again (a retried callback, the hook run again when a deferred session resumes, on
 * any host sharing the store) attaches to the same ask and reads its outcome.
 */

import { askIdForKey } from '../engine/ask-ids.js';
import type { AskOptions, InteractionService } from '../engine/service-contract.js';
import { askToolApproval } from '../engine/tool-approval.js';
import { messageOf } from '../rules/describe.js';
import {
  ASK_USER_QUESTION,
  askUserQuestionDecision,
  askUserQuestionRequest,
  readAskUserQuestionInput,
} from './ask-user-question.js';
import type { ToolCallDecision } from './tool-call-decision.js';
import { CLAUDE_TOOL_INPUT_SCHEMAS } from './tool-input-schemas.js';

/** One tool call Claude asks permission for, from `canUseTool` or a hook's input. */
export interface ClaudeToolCall {
  toolName: string;
  toolUseId: string;
  input: Record<string, unknown>;
  /** The Claude session, recorded with the ask. */
  sessionId?: string;
  /** Text shown with an approval: why Claude Code asks, the path, the MCP server, … */
  context?: string;
}

/** Options shared by `createCanUseTool`, `createPreToolUseHook` and the hook command. */
export interface ClaudeAskOptions {
  /** Milliseconds each ask waits before it ends timed out (a deny); default: no deadline. */
  timeoutMs?: number;
  /**
   * The input JSON Schema of tools whose calls the person may edit before approving, by tool
   * name, over `CLAUDE_TOOL_INPUT_SCHEMAS` (Bash, Write, Edit, WebFetch). A tool without one is
   * approved or denied as proposed.
   */
  inputSchemas?: Readonly<Record<string, object>>;
}

/** What the decision waits for besides the ask's options. */
export interface DecideOptions extends ClaudeAskOptions {
  signal?: AbortSignal;
  /**
   * How long to wait for a deferred ask to settle elsewhere before deciding `defer`:
   * 0 decides at once, `Infinity` waits until it settles (or `signal` aborts).
   */
  waitForDeferredMs: number;
}

/** The idempotency key of the ask about one tool use. */
export function toolUseKey(toolUseId: string): string {
  return `claude-tool-use:${toolUseId}`;
}

/** The id of the ask about one tool use, on any service sharing the store. */
export function toolUseAskId(toolUseId: string): string {
  return askIdForKey(toolUseKey(toolUseId));
}

/**
 * Asks about the call and decides: allow (with the input to run), deny (with the reason), or
 * defer while the ask waits elsewhere. A request the engine refuses, or any error, is a deny
 * naming it: nothing but an explicit approval or an answer allows a call.
 */
export async function decideToolCall(
  service: InteractionService,
  call: ClaudeToolCall,
  options: DecideOptions,
): Promise<ToolCallDecision> {
  const first = await askOnce(service, call, options);
  if (first.behavior !== 'defer' || options.waitForDeferredMs <= 0) return first;
  const wait = waitFor(options.waitForDeferredMs);
  const signals = [options.signal, wait.signal].filter(
    (signal): signal is AbortSignal => signal !== undefined,
  );
  try {
    await service.outcome(
      first.askId,
      signals.length === 0 ? {} : { signal: AbortSignal.any(signals) },
    );
  } catch (error) {
    if (options.signal?.aborted === true) {
      return {
        behavior: 'deny',
        reason: `Not decided: the permission request was withdrawn (${messageOf(options.signal.reason)}).`,
      };
    }
    if (wait.signal?.aborted === true) return first;
    return refusal(error);
  } finally {
    wait.dispose();
  }
  // Settled: the same key reads the stored outcome.
  return askOnce(service, call, options);
}

async function askOnce(
  service: InteractionService,
  call: ClaudeToolCall,
  options: DecideOptions,
): Promise<ToolCallDecision> {
  const key = toolUseKey(call.toolUseId);
  const askOptions: AskOptions = {
    key,
    toolCallId: call.toolUseId,
    ...(call.sessionId === undefined ? {} : { sessionId: call.sessionId }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  };
  try {
    if (call.toolName === ASK_USER_QUESTION) {
      const questions = readAskUserQuestionInput(call.input);
      const outcome = await service.ask(askUserQuestionRequest(questions), askOptions);
      return askUserQuestionDecision(call.input, questions, outcome, askIdForKey(key));
    }
    const schemas = { ...CLAUDE_TOOL_INPUT_SCHEMAS, ...options.inputSchemas };
    const inputSchema = Object.hasOwn(schemas, call.toolName) ? schemas[call.toolName] : undefined;
    const decision = await askToolApproval(
      service,
      {
        toolName: call.toolName,
        toolCallId: call.toolUseId,
        input: call.input,
        ...(inputSchema === undefined ? {} : { inputSchema }),
        ...(call.context === undefined ? {} : { context: call.context }),
      },
      askOptions,
    );
    if (decision.approved) {
      const { input } = decision;
      // A tool's input is an object; an edit a custom schema let through as anything else is
      // no input Claude Code can run.
      if (typeof input !== 'object' || input === null || Array.isArray(input)) {
        return {
          behavior: 'deny',
          reason: 'Not allowed: the approved input is not a JSON object.',
        };
      }
      return {
        behavior: 'allow',
        // The input the person approved, edited or as proposed: exactly what runs.
        updatedInput: input as Record<string, unknown>,
        reason: approvedReason(decision),
      };
    }
    if (decision.outcome.status === 'deferred') {
      return { behavior: 'defer', askId: askIdForKey(key), reason: decision.reason };
    }
    return { behavior: 'deny', reason: decision.reason };
  } catch (error) {
    return refusal(error);
  }
}

function approvedReason(decision: {
  edited?: { fields: string[] };
  answeredBy?: { recipient: string };
}): string {
  const by = decision.answeredBy === undefined ? 'the user' : decision.answeredBy.recipient;
  return decision.edited === undefined
    ? `Approved by ${by}.`
    : `Approved by ${by} with edits to ${decision.edited.fields.join(', ')}.`;
}

function refusal(error: unknown): ToolCallDecision {
  return {
    behavior: 'deny',
    reason: `Not allowed: the question could not be asked (${messageOf(error)}).`,
  };
}

/**
 * The end of a finite wait. Its timer keeps the process alive, unlike `AbortSignal.timeout`'s:
 * a hook process waiting for an answer must not exit with the wait still open.
 */
function waitFor(ms: number): { signal?: AbortSignal; dispose(): void } {
  if (!Number.isFinite(ms)) return { dispose() {} };
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`no answer within ${ms} ms`)), ms);
  return { signal: controller.signal, dispose: () => clearTimeout(timer) };
}
