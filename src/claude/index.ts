/**
 * `ask-engine/claude`: the Claude Agent SDK and Claude Code asking a person through ask-engine
 * (`@anthropic-ai/claude-agent-sdk`, an optional peer dependency): a `canUseTool` handler for
 * AskUserQuestion and permission prompts, a `PreToolUse` hook that defers, and the resume of a
 * deferred session once its ask settles on any surface.
 *
 * @module ask-engine/claude
 */

export { ASK_USER_QUESTION } from './ask-user-question.js';
export { createCanUseTool } from './can-use-tool.js';
export { type ClaudeAskOptions, toolUseAskId } from './decide-tool-call.js';
export {
  createPreToolUseHook,
  decidePreToolUse,
  type PreToolUseHookOptions,
} from './pre-tool-use-hook.js';
export {
  type DeferredToolCall,
  type ResumeDeferredSessionOptions,
  readDeferredToolCall,
  resumeDeferredSession,
  waitForDeferredAsk,
} from './resume-deferred-session.js';
export { CLAUDE_TOOL_INPUT_SCHEMAS } from './tool-input-schemas.js';
