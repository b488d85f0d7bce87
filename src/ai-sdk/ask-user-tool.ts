/** The ask_user tool as an AI SDK `tool`: asks through the service, once per tool call. */
import { type JSONSchema7, jsonSchema, type Tool, type ToolResultPart, tool } from 'ai';
import type { AskUserQuestionAnswer } from '../contracts/answer.js';
import type { AskUserToolInput } from '../contracts/tool-input.js';
import type { InteractionService } from '../engine/service-contract.js';
import { type AskUserToolOptions, createAskUserTool } from '../tool/tool.js';
import type { AskUserToolDetails, AskUserToolResult } from '../tool/tool-result.js';
import { keyedByToolCall } from './keyed-by-tool-call.js';

/** Options of the AI SDK ask_user tool: the core tool's options plus deferred mode and session. */
export interface AiSdkAskUserToolOptions extends AskUserToolOptions {
  /**
   * `true` for hosts that cannot wait inside a step: the tool has no `execute`, so the loop
   * stops at the call; start the ask with `deferAskUser` and, once the person has answered,
   * append the part `resumeAskUser` returns.
   */
  deferred?: boolean;
  /**
   * The conversation this tool serves. Some model providers number tool calls per conversation
   * (`call_0`, `call_1`), so with a store shared by several conversations the key must name the
   * conversation too: it becomes `<sessionId>:<toolCallId>`. Also handed to the provider.
   */
  sessionId?: string;
}

/** A tool call as the AI SDK reports it (`result.toolCalls`, or a `tool-call` content part). */
export interface AiSdkToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
}

/**
 * The ask_user tool for `generateText`, `streamText` and agents. `execute` asks with the call's
 * `toolCallId` as the idempotency key and its `abortSignal`, so a retried step (or the same step
 * replayed by another process sharing the store) attaches to the same ask and never asks twice.
 * The tool's output is the ask_user result text.
 *
 * @example
 * const result = await generateText({ model, tools: { ask_user: askUserTool(service) }, stopWhen: stepCountIs(5), prompt });
 */
export function askUserTool(
  service: InteractionService,
  options: AiSdkAskUserToolOptions & { deferred: true },
): Tool<AskUserToolInput>;
export function askUserTool(
  service: InteractionService,
  options?: AiSdkAskUserToolOptions,
): Tool<AskUserToolInput, string>;
export function askUserTool(
  service: InteractionService,
  options: AiSdkAskUserToolOptions = {},
): Tool<AskUserToolInput, string> | Tool<AskUserToolInput> {
  const { deferred = false, sessionId, ...toolOptions } = options;
  if (typeof deferred !== 'boolean') {
    throw new TypeError(`Expected \`deferred\` to be a boolean, got ${String(deferred)}.`);
  }
  checkSessionId(sessionId);
  const ctx = sessionId === undefined ? undefined : { sessionId };
  const askUser = createAskUserTool(keyedByToolCall(service), toolOptions);
  // No `validate`: the model's arguments reach `execute` as sent, and the tool repairs and
  // checks them itself (strings as options, JSON-encoded arrays), with errors the model can act on.
  const inputSchema = jsonSchema<AskUserToolInput>(askUser.parameters as JSONSchema7);
  if (deferred) {
    const withoutExecute: Tool<AskUserToolInput> = tool({
      description: askUser.description,
      inputSchema,
    });
    return withoutExecute;
  }
  return tool<AskUserToolInput, string>({
    description: askUser.description,
    inputSchema,
    execute: async (input, { toolCallId, abortSignal }) =>
      resultText(await askUser.execute(toolCallId, input, abortSignal, undefined, ctx)),
  });
}

/** Options of `deferAskUser` and `resumeAskUser`: give both the same ones. */
export type DeferredAskOptions = Omit<AiSdkAskUserToolOptions, 'deferred'>;

/** What `deferAskUser` reports of the ask it started (or found) for one tool call. */
export interface DeferAskUserResult {
  /** The tool call the ask answers. */
  toolCallId: string;
  /**
   * What became of the ask: usually `deferred` (the provider handed it elsewhere); `invalid`
   * when the model's input was refused (then `resumeAskUser` returns the refusal at once).
   */
  status: AskUserToolDetails['status'];
  /** The ask's id (`service.answer(askId, answers)`, `service.get(askId)`); absent when refused. */
  askId?: string;
  /** Where the provider handed the question (a chat thread, a link id), when it deferred. */
  interactionId?: string;
}

/**
 * Deferred mode, step 1: starts the ask for an ask_user call the loop stopped at, keyed by the
 * tool-call id; the provider delivers it (a chat thread, a web link) and usually defers it.
 * Calling it again for the same call attaches to the same ask.
 */
export async function deferAskUser(
  service: InteractionService,
  toolCall: AiSdkToolCall,
  options: DeferredAskOptions = {},
): Promise<DeferAskUserResult> {
  const { details } = await executeForCall(service, toolCall, options);
  return {
    toolCallId: toolCall.toolCallId,
    status: details.status,
    ...(details.askId === undefined ? {} : { askId: details.askId }),
    ...(details.interactionId === undefined ? {} : { interactionId: details.interactionId }),
  };
}

/**
 * Deferred mode, step 2: the `tool-result` part for an ask_user call once its ask has an
 * outcome, to append in a `tool` message before the next step. With `answers`, they are given
 * through `service.answer` first (validated like any answer: an invalid one rejects with
 * `INVALID_ANSWER` and the ask stays open). Resolves `undefined` while the ask still waits for
 * the person, so nothing is appended early. Pass the same `options` as to `deferAskUser`: the
 * call's input and options are the request its key names.
 */
export async function resumeAskUser(
  service: InteractionService,
  toolCall: AiSdkToolCall,
  answers?: readonly AskUserQuestionAnswer[],
  options: DeferredAskOptions = {},
): Promise<ToolResultPart | undefined> {
  let result = await executeForCall(service, toolCall, options);
  if (answers !== undefined && isWaiting(result.details.status)) {
    if (result.details.askId === undefined) {
      throw new TypeError(`The ask_user call ${toolCall.toolCallId} has no ask to answer.`);
    }
    await service.answer(result.details.askId, answers);
    result = await executeForCall(service, toolCall, options);
  }
  if (isWaiting(result.details.status)) return undefined;
  return {
    type: 'tool-result',
    toolCallId: toolCall.toolCallId,
    toolName: toolCall.toolName,
    output: { type: 'text', value: resultText(result) },
  };
}

// Re-running the tool for a call attaches to its ask through the key and reads its outcome in
// the tool's own words; the provider is not asked again.
function executeForCall(
  service: InteractionService,
  toolCall: AiSdkToolCall,
  options: DeferredAskOptions,
): Promise<AskUserToolResult> {
  if (typeof toolCall?.toolCallId !== 'string' || toolCall.toolCallId === '') {
    throw new TypeError(
      `Expected a tool call with a non-empty \`toolCallId\`, got ${JSON.stringify(toolCall?.toolCallId)}.`,
    );
  }
  const { sessionId, ...toolOptions } = options;
  checkSessionId(sessionId);
  return createAskUserTool(keyedByToolCall(service), toolOptions).execute(
    toolCall.toolCallId,
    toolCall.input,
    undefined,
    undefined,
    sessionId === undefined ? undefined : { sessionId },
  );
}

function checkSessionId(sessionId: unknown): void {
  if (sessionId !== undefined && (typeof sessionId !== 'string' || sessionId === '')) {
    throw new TypeError(
      `Expected \`sessionId\` to be a non-empty string, got ${String(sessionId)}.`,
    );
  }
}

// `execute` returns only once the ask has an outcome; `deferred` is the one that is not final.
function isWaiting(status: AskUserToolDetails['status']): boolean {
  return status === 'deferred';
}

function resultText(result: AskUserToolResult): string {
  return result.content[0].text;
}
