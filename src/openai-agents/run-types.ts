/**
 * What the OpenAI Agents approvals take and give back: their options, each decision, and a
 * round decided here (with this host's claim on it), handed elsewhere, or claimed by another.
 */
import type { AnsweredBy, AskOutcome } from '../contracts/outcome.js';
import type { HeldWorkClaim } from '../engine/held-claim.js';
import type { WorkClaim } from '../stores/work-claims.js';
import type { AlwaysOption } from './approval-call.js';

/** Options of `askRunApprovals`. */
export interface RunApprovalOptions {
  /**
   * Your id for this run (a conversation and turn, a job id): each interruption's ask is keyed
   * by it and the call id, so asking again, here or on another host, attaches to the same ask.
   */
  runId: string;
  /** Milliseconds each ask waits (at least `MIN_TIMEOUT_MS`); an ask that times out rejects. */
  timeoutMs?: number;
  /** Aborting it ends the open asks (their calls are rejected) and stops the wait. */
  signal?: AbortSignal;
  /** The conversation the run belongs to; kept with the asks and handed to the provider. */
  sessionId?: string;
  /**
   * Offer "approve with edits" for function tools with an input schema (default true). The SDK
   * runs a call only as the model wrote it, so an edited approval rejects the call with a
   * message that gives the model the edited input to call the tool with again (asked again).
   */
  allowEdits?: boolean;
  /**
   * Tools whose one decision holds for the rest of the run (the SDK's `alwaysApprove` /
   * `alwaysReject`): only the tools named here, and the question says so. Kept with the asks,
   * so every host applies the same, and reported in each decision's `sticky`.
   */
  always?: AlwaysOption;
  /** How long the round's claim runs unless renewed (ms, default 15,000): see `ResumeRunOptions`. */
  leaseMs?: number;
}

/** Options of `resumeRunApprovals`. */
export interface ResumeRunOptions {
  /** Aborting it stops the wait for the asks, rejecting with its reason (the asks go on). */
  signal?: AbortSignal;
  /**
   * How long the round's claim runs unless renewed (ms, at least 100, default 15,000). It is
   * renewed every third of it while the run goes on; if renewals fail for that long, the claim
   * is lost (`claim.signal` aborts) and another host may resume the round.
   */
  leaseMs?: number;
}

/** How one interruption was decided and what was applied to the run. */
export interface RunApprovalDecision {
  /** The approval ask (`service.get(askId)`, `service.history(askId)`). */
  askId: string;
  callId: string;
  toolName: string;
  /** `approve`: the call runs as the model wrote it. `reject`: it does not run. */
  applied: 'approve' | 'reject';
  /** What the model reads for a rejected call: the person's reason, or why it was not approved. */
  message?: string;
  /** The person approved other input: the call was rejected with the edited input in `message`. */
  edited?: { from: string; to: string; fields: string[]; input: unknown };
  /** Applied with `alwaysApprove` / `alwaysReject`: it holds for every later call of the tool. */
  sticky?: true;
  /** Who decided, when the surface named them. */
  answeredBy?: AnsweredBy;
  /** The ask's outcome. */
  outcome: AskOutcome;
}

/**
 * Every interruption decided, applied to `state`, and the round claimed for this host: run it
 * with `run(agent, state, { signal: claim.signal })`, then `claim.finish()`.
 */
export interface DecidedRun<TState> {
  status: 'decided';
  state: TState;
  decisions: RunApprovalDecision[];
  /**
   * This host's claim on the round, held in the store (renewed) until `finish()` or
   * `release()`: no other host gets `decided` for it meanwhile, and none ever after `finish()`.
   * Its `signal` aborts if the claim is lost; `release()` gives the round back undone.
   */
  claim: HeldWorkClaim;
}

/**
 * Another host claimed this round: it is continuing the run (its lease runs until
 * `claim.until`, renewed while it runs) or has (`claim.status` `done`). Nothing to do here.
 */
export interface ClaimedRun {
  status: 'claimed';
  runId: string;
  /** The round's asks, one per interruption. */
  askIds: string[];
  /** The store's claim on the round: who holds it and until when, or who finished it and when. */
  claim: Exclude<WorkClaim, { status: 'claimed' }>;
}

/** Some asks went elsewhere (a web link, a chat): any host resumes once they are settled. */
export interface WaitingRun {
  status: 'waiting';
  runId: string;
  /** The run's asks, one per interruption: give any of them to `resumeRunApprovals`. */
  askIds: string[];
}
