/** A `canUseTool` for the Claude Agent SDK that asks a person through ask-engine. */
import type { CanUseTool } from '@anthropic-ai/claude-agent-sdk';
import type { InteractionService } from '../engine/service-contract.js';
import { type ClaudeAskOptions, decideToolCall } from './decide-tool-call.js';
import { checkClaudeAskOptions } from './options.js';
import { toPermissionResult } from './tool-call-decision.js';

/**
 * Returns a `canUseTool` callback: AskUserQuestion's questions are asked as one wizard and its
 * answers returned in the shape the tool reads (`updatedInput.answers`); every other tool's
 * permission prompt is an Approve / Approve with edits / Reject ask bound to the call's input digest,
 * returning the approved input as `updatedInput` (the edited one after an edit). A deferred ask
 * (a web link, a chat card) is waited for until it settles on any surface. A timeout, a
 * cancellation, no UI or an abort is a deny whose message the model reads: never an allow,
 * never an invented answer.
 *
 * @example
 * const q = query({ prompt, options: { canUseTool: createCanUseTool(service, { timeoutMs: 600_000 }) } });
 */
export function createCanUseTool(
  service: InteractionService,
  options: ClaudeAskOptions = {},
): CanUseTool {
  checkClaudeAskOptions(options);
  return async (toolName, input, context) => {
    const shown = permissionContext(context);
    const decision = await decideToolCall(
      service,
      {
        toolName,
        toolUseId: context.toolUseID,
        input,
        ...(shown === undefined ? {} : { context: shown }),
      },
      { ...options, signal: context.signal, waitForDeferredMs: Number.POSITIVE_INFINITY },
    );
    return toPermissionResult(decision, context.toolUseID);
  };
}

type PermissionContext = Parameters<CanUseTool>[2];

/** What Claude Code says about the request, as lines shown with the approval (escaped there). */
function permissionContext(context: PermissionContext): string | undefined {
  const lines = [
    context.title,
    context.description,
    context.decisionReason === undefined
      ? undefined
      : `Why Claude Code asks: ${context.decisionReason}`,
    context.blockedPath === undefined
      ? undefined
      : `Path outside the allowed directories: ${context.blockedPath}`,
    // A configured server's name is untrusted text: quoted, so it cannot pose as our words.
    context.mcpServer === undefined
      ? undefined
      : `MCP server ${JSON.stringify(context.mcpServer.name)} (source: ${context.mcpServer.source})`,
    context.agentID === undefined ? undefined : `Asked by the subagent ${context.agentID}`,
  ].filter((line): line is string => line !== undefined && line !== '');
  return lines.length === 0 ? undefined : lines.join('\n');
}
