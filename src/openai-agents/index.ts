/**
 * `ask-engine/openai-agents`: human tool approvals for the OpenAI Agents SDK (`@openai/agents`,
 * an optional peer dependency). Each approval interruption of a run is a keyed approval ask,
 * the run's serialized state is kept with the asks in the store, and any host continues the
 * run once they are settled.
 *
 * @module ask-engine/openai-agents
 */

export type { HeldWorkClaim } from '../engine/held-claim.js';
export type { AlwaysOption } from './approval-call.js';
export { askRunApprovals, resumeRunApprovals } from './run-approvals.js';
export { RUN_STATE_KIND, RunResumeError } from './run-state-attachment.js';
export type {
  ClaimedRun,
  DecidedRun,
  ResumeRunOptions,
  RunApprovalDecision,
  RunApprovalOptions,
  WaitingRun,
} from './run-types.js';
