/**
 * `ask-engine/langgraph`: ask from inside LangGraph nodes (`@langchain/langgraph` 1, an optional
 * peer dependency) so a node's re-run never asks twice, and map deferred asks to interrupts.
 *
 * @module ask-engine/langgraph
 */
export {
  type AskInterrupt,
  askInNode,
  askOrInterrupt,
  type NodeAskOptions,
} from './ask-in-node.js';
export { approveToolCallInNode, type ToolApprovalInterrupt } from './tool-approval-in-node.js';
