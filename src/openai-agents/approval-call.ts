/**
 * What one OpenAI Agents SDK approval interruption is, for an ask: its call id, its tool, its
 * input and the tool's input schema, and the key that names its ask on every host.
 */
import type { RunToolApprovalItem, run } from '@openai/agents';
import type { ToolApprovalCall } from '../engine/tool-approval.js';
import { unsupportedSchemaKeyword } from '../rules/json-schema-keywords.js';

/** Any agent `run` accepts, whatever its context and output types. */
export type AnyAgent = Parameters<typeof run>[0];

/** The tools whose one decision applies to the rest of the run (the SDK's sticky decisions). */
export interface AlwaysOption {
  /** Tools for which an approval approves every later call in the run (`alwaysApprove`). */
  approve?: readonly string[];
  /** Tools for which a rejection rejects every later call in the run (`alwaysReject`). */
  reject?: readonly string[];
}

/** One interruption, read: what its ask is about. */
export interface InterruptedCall {
  callId: string;
  toolName: string;
  input: unknown;
  /** The function tool's parameters (a JSON Schema), when the call is a function tool's. */
  inputSchema?: object;
}

const KEY_PREFIX = 'openai-agents:';

/**
 * The idempotency key of the ask for one call of one run: every host that reads the run's
 * interruptions names the same ask, and the same call asked twice attaches to it. JSON-quoted,
 * so no run id and call id can spell another pair's key.
 */
export function approvalKey(runId: string, callId: string): string {
  return `${KEY_PREFIX}${JSON.stringify([runId, callId])}`;
}

/** The call an interruption asks about; throws naming the tool when it has no call id. */
export function interruptedCall(item: RunToolApprovalItem): InterruptedCall {
  const raw = item.rawItem as {
    type: string;
    callId?: string;
    id?: string;
    arguments?: string;
    action?: unknown;
    actions?: unknown;
    operation?: unknown;
  };
  const toolName = item.name ?? item.toolName ?? raw.type;
  const callId = raw.callId ?? raw.id;
  if (typeof callId !== 'string' || callId === '') {
    throw new TypeError(
      `The approval interruption for the tool ${JSON.stringify(toolName)} (${raw.type}) has no call id; each approval is asked once per call, keyed by its id, so it cannot be asked.`,
    );
  }
  const call: InterruptedCall = { callId, toolName, input: inputOf(raw) };
  if (raw.type === 'function_call') {
    const tool = (item.agent.tools as readonly { type?: string; name?: string }[]).find(
      (candidate) => candidate.type === 'function' && candidate.name === toolName,
    ) as { parameters?: unknown } | undefined;
    if (typeof tool?.parameters === 'object' && tool.parameters !== null) {
      call.inputSchema = tool.parameters;
    }
  }
  return call;
}

/**
 * The approval call asked for an interruption: edits are offered for a function tool with an
 * input schema the edit check reads, unless `allowEdits` is false, and the question says which
 * decision holds for the rest of the run, so the person knows what a pick does.
 */
export function approvalCall(
  call: InterruptedCall,
  allowEdits: boolean,
  always: AlwaysOption,
): ToolApprovalCall {
  const approval: ToolApprovalCall = {
    toolName: call.toolName,
    toolCallId: call.callId,
    input: call.input,
  };
  // Edits are checked against the schema before they count: a schema with a keyword the check
  // cannot read offers approve and reject only.
  if (
    allowEdits &&
    call.inputSchema !== undefined &&
    unsupportedSchemaKeyword(call.inputSchema) === undefined
  ) {
    approval.inputSchema = call.inputSchema;
  } else approval.allowEdits = false;
  const sticky = stickyNote(call.toolName, always);
  if (sticky !== undefined) approval.context = sticky;
  return approval;
}

/** What the question says of a sticky decision for this tool, if there is one. */
function stickyNote(toolName: string, always: AlwaysOption): string | undefined {
  const approves = always.approve?.includes(toolName) === true;
  const rejects = always.reject?.includes(toolName) === true;
  if (approves && rejects) {
    return 'Approving this call approves every later call of this tool in this run; rejecting it rejects every later call.';
  }
  if (approves) return 'Approving this call approves every later call of this tool in this run.';
  if (rejects) return 'Rejecting this call rejects every later call of this tool in this run.';
  return undefined;
}

/** The arguments as JSON where the model wrote JSON; a computer, shell or patch call's action. */
function inputOf(raw: {
  arguments?: string;
  action?: unknown;
  actions?: unknown;
  operation?: unknown;
}): unknown {
  if (typeof raw.arguments === 'string') {
    try {
      return JSON.parse(raw.arguments) as unknown;
    } catch {
      // Not JSON: the person sees the text the model wrote, as it wrote it.
      return raw.arguments;
    }
  }
  if (raw.operation !== undefined) return raw.operation;
  if (raw.actions !== undefined) return raw.actions;
  return raw.action ?? null;
}
