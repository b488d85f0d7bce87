/**
 * What ask-engine decided about one Claude tool call, and the two shapes Claude reads it in:
 * a `canUseTool` `PermissionResult` and a `PreToolUse` hook output.
 */
import type { PermissionResult, SyncHookJSONOutput } from '@anthropic-ai/claude-agent-sdk';
import type { AskOutcome } from '../contracts/outcome.js';

/**
 * Allow (with the input to run: the proposed one, an edited one, or AskUserQuestion's with its
 * answers), deny with the reason the model reads, or defer: the ask waits elsewhere and the
 * call waits for it.
 */
export type ToolCallDecision =
  | { behavior: 'allow'; updatedInput: Record<string, unknown>; reason: string }
  | { behavior: 'deny'; reason: string }
  | { behavior: 'defer'; reason: string; askId: string };

/**
 * The decision as `canUseTool` returns it. A deferral is not an allow: `canUseTool` has no
 * way to wait outside the call, so a decision still deferred here is a deny saying so.
 */
export function toPermissionResult(
  decision: ToolCallDecision,
  toolUseID: string,
): PermissionResult {
  if (decision.behavior === 'allow') {
    return { behavior: 'allow', updatedInput: decision.updatedInput, toolUseID };
  }
  return { behavior: 'deny', message: decision.reason, toolUseID };
}

/** The decision as a `PreToolUse` hook returns it (`permissionDecision` allow, deny or defer). */
export function toPreToolUseOutput(decision: ToolCallDecision): SyncHookJSONOutput {
  return {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: decision.behavior,
      permissionDecisionReason: decision.reason,
      ...(decision.behavior === 'allow' ? { updatedInput: decision.updatedInput } : {}),
    },
  };
}

/** Why an outcome that is not an answer gave none, in words the model reads. */
export function describeNonAnswer(outcome: Exclude<AskOutcome, { status: 'answered' }>): string {
  switch (outcome.status) {
    case 'cancelled':
      return outcome.reason === 'user'
        ? `the user declined${withMessage(outcome.message)}`
        : `the question was cancelled (${outcome.reason})${withMessage(outcome.message)}`;
    case 'timedOut':
      return 'the user did not answer before the deadline.';
    case 'aborted':
      return `the question was withdrawn (${outcome.message}).`;
    case 'deferred':
      return `the question waits elsewhere (interaction id ${outcome.interactionId}) and has no answer yet.`;
  }
}

function withMessage(message: string | undefined): string {
  return message === undefined || message === '' ? '.' : `: ${message}`;
}
