/**
 * `ask-engine/ai-sdk`: the ask_user tool and human tool approvals for the AI SDK (`ai` 6 or 7,
 * an optional peer dependency).
 *
 * @module ask-engine/ai-sdk
 */

export type { AskUserToolErrorContext } from '../tool/tool.js';
export {
  ALLOW,
  type AnswerApprovalsOptions,
  type ApprovalSource,
  answerApprovals,
  DENY,
} from './answer-approvals.js';
export {
  type AiSdkAskUserToolOptions,
  type AiSdkToolCall,
  askUserTool,
  type DeferAskUserResult,
  type DeferredAskOptions,
  deferAskUser,
  resumeAskUser,
} from './ask-user-tool.js';
