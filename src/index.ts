/**
 * `ask-engine`: the root entry. Everything browser-safe from `ask-engine/data`, plus the
 * engine: the ask machine, the interaction service, the ask_user tool, providers and stores.
 * Explicit named exports only: test/public-api.test.ts pins this surface.
 *
 * @module ask-engine
 */

export {
  type AskMachine,
  type AskMachineAnswer,
  type AskMachineAnsweredBy,
  type AskMachineCancelReason,
  type AskMachineContext,
  type AskMachineEvent,
  type AskMachineInput,
  type AskMachineOutcome,
  type AskMachineQuorum,
  type AskMachineQuorumResponse,
  type AskMachineRefusalReason,
  type AskMachineResponse,
  type AskMachineToolEdit,
  askMachine,
  type QuorumParams as AskMachineQuorumParams,
} from '../machines/ask.machine.js';
export * from './data.js';
export type { AskObserver, AskTelemetry, AskTraceContext } from './engine/ask-observer.js';
export type { PersistedAskState } from './engine/ask-table.js';
export type {
  AskAttemptSource,
  AskAuditEvent,
  AskAuditEventType,
  AskState,
  AuditEventBase as AskAuditEventBase,
  AuditedAnswers,
  NotifiedData,
  ResponseRefusalReason,
  Transition as AskAuditTransition,
} from './engine/audit.js';
export { type Clock, systemClock } from './engine/clock.js';
export type { Inspect, InspectionEvent } from './engine/inspection.js';
export type { AskProvider, AskProviderContext, ProviderDeferral } from './engine/provider.js';
export { REDACTED } from './engine/redact.js';
export type { RetentionOptions } from './engine/retention.js';
export {
  createInteractionService,
  type InteractionServiceOptions,
} from './engine/service.js';
export type {
  AnswerOptions,
  AskHandle,
  AskInfo,
  AskOptions,
  AskSnapshot,
  InteractionService,
  OutcomeOptions,
  PurgeOptions,
  ResponseReceipt,
  ResumeOptions,
} from './engine/service-contract.js';
export {
  askToolApproval,
  decideToolApproval,
  TOOL_APPROVE,
  TOOL_REJECT,
  type ToolApprovalCall,
  type ToolApprovalDecision,
  toolApprovalBinding,
  toolApprovalRequest,
} from './engine/tool-approval.js';
export {
  createFormProvider,
  type FormHost,
  FormHostDrainedError,
  type FormHostResult,
  type FormRequestContext,
} from './providers/form-provider.js';
export {
  createScriptedProvider,
  type ScriptedAnswers,
  type ScriptedProvider,
  type ScriptedProviderOptions,
  type ScriptStep,
} from './providers/scripted-provider.js';
export {
  type NormalizeAskUserRequestOptions,
  type NormalizeAskUserRequestResult,
  type NormalizedAskRequest,
  normalizeAskUserRequest,
} from './rules/normalize.js';
export {
  describeQuorum,
  type QuorumOption,
  type QuorumProgress,
} from './rules/quorum.js';
export type {
  AskCreateResult,
  AskIndex,
  AskListFilter,
  AskListPage,
  AskListResult,
  AskLog,
  AskOutbox,
  AskStore,
  AskStoreChange,
  AskSubscribeOptions,
  AskTimeRange,
  AskUpdateResult,
  AskWrite,
  ClaimedOutboxAsk,
  ClaimedOutboxEntry,
  ListedAsk,
  OutboxEntry,
  OutboxLease,
  PersistedAskSnapshot,
  StoredAsk,
  UnreadableAsk,
} from './stores/ask-store.js';
export { createMemoryAskStore } from './stores/memory-store.js';
export type { AskStorePorts } from './stores/store-ports.js';
export type { WorkClaim, WorkClaimRequest, WorkClaimStore } from './stores/work-claims.js';
export { prepareAskUserArguments } from './tool/prepare-arguments.js';
export {
  type AskUserTool,
  type AskUserToolContext,
  type AskUserToolErrorContext,
  type AskUserToolOptions,
  type AskUserToolUpdate,
  createAskUserTool,
} from './tool/tool.js';
export type {
  AskUserToolDetails,
  AskUserToolProgressDetails,
  AskUserToolResult,
} from './tool/tool-result.js';
