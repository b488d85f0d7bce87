/**
 * OpenAI Agents SDK tool approvals asked through ask-engine: each approval interruption of a
 * run is one keyed approval ask, the run's state is kept with the asks in the store, and any
 * host sharing the store applies the decisions and continues the run once all are settled.
 */
import type { RunState, RunToolApprovalItem } from '@openai/agents';
import type { AskAttachment } from '../contracts/attachment.js';
import { raceAbort } from '../engine/abortable.js';
import { askIdForKey } from '../engine/ask-ids.js';
import type { AskOptions, InteractionService } from '../engine/service-contract.js';
import {
  askToolApproval,
  decideToolApproval,
  type ToolApprovalCall,
  type ToolApprovalDecision,
} from '../engine/tool-approval.js';
import { UserInteractionError } from '../rules/errors.js';
import {
  type AlwaysOption,
  type AnyAgent,
  approvalCall,
  approvalKey,
  type InterruptedCall,
  interruptedCall,
} from './approval-call.js';
import { claimRound } from './round-claim.js';
import { checkRunOptions, checkWaitOptions } from './run-options.js';
import {
  readSavedRun,
  restoreRunState,
  runAttachment,
  type SavedRun,
} from './run-state-attachment.js';
import type {
  ClaimedRun,
  DecidedRun,
  ResumeRunOptions,
  RunApprovalDecision,
  RunApprovalOptions,
  WaitingRun,
} from './run-types.js';

/**
 * Asks one approval per interruption of `result` (a `run` result, or anything with its
 * `state`), keyed by `runId` and the call id, with the run's serialized state kept with each
 * ask in the store. When every ask is decided here (a terminal, a test script), the decisions
 * are applied to the state: pass it to `run(agent, state)`. When some were handed elsewhere
 * (a web link, mail, chat), the run is `waiting`: this process may exit, and any host sharing
 * the store continues it with `resumeRunApprovals` once they are settled. Only an explicit
 * approval approves; a timeout, a cancellation or anything else rejects with the reason.
 * A decided round is claimed in the store first (see `DecidedRun.claim`); when another host
 * claimed it (asking about the same run), it is `claimed` and this host runs nothing.
 *
 * @example
 * let result = await run(agent, input);
 * while (result.interruptions.length > 0) {
 *   const round = await askRunApprovals(service, result, { runId: jobId });
 *   if (round.status !== 'decided') return round; // resumed elsewhere
 *   result = await run(agent, round.state, { signal: round.claim.signal });
 *   await round.claim.finish();
 * }
 */
export async function askRunApprovals<TContext, TAgent extends AnyAgent>(
  service: InteractionService,
  result: { readonly state: RunState<TContext, TAgent> },
  options: RunApprovalOptions,
): Promise<DecidedRun<RunState<TContext, TAgent>> | WaitingRun | ClaimedRun> {
  const { runId, allowEdits, always, leaseMs } = checkRunOptions(options);
  const state = result?.state;
  if (typeof state?.getInterruptions !== 'function') {
    throw new TypeError('Expected a run result (or an object with its `state`), got no `state`.');
  }
  const items = state.getInterruptions();
  if (items.length === 0) {
    throw new TypeError(
      'Expected a run result that stopped for approvals, got one without interruptions: there is nothing to ask, the run is finished (read its `finalOutput`).',
    );
  }
  const saved: Omit<SavedRun, 'state' | 'schemaVersion'> = { runId, allowEdits, always };
  const askOptions: AskOptions = {
    attachment: runAttachment(runId, allowEdits, always, state),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
  };
  const asked = await Promise.all(items.map((item) => askOne(service, item, saved, askOptions)));
  if (asked.some(({ decision }) => decision.outcome.status === 'deferred')) {
    return { status: 'waiting', runId, askIds: asked.map(({ askId }) => askId) };
  }
  return decidedOnce(service, runId, state, items, asked, always, leaseMs);
}

/**
 * Continues a run whose approvals were handed elsewhere, on any host sharing the store: reads
 * the run's state kept with `askId` (any of its asks), waits until every ask of the run is
 * settled, and applies the decisions to the restored state: pass it to `run(agent, state)`.
 * `agent` is the agent the run started with (the same name and tools). A state saved by an
 * SDK whose run-state schema this one cannot read is refused (`RunResumeError`). An ask of the
 * run that is missing (its host died before starting it) is started here. Any number of hosts
 * may call it for one run: the round is claimed in the store before it is `decided`, so one
 * host continues the run and the others get `claimed` (who holds it until when, or that it was
 * done). Run the state with the claim's signal, then `finish()` it, or `release()` it when the
 * run failed before it did anything another host must not do again.
 *
 * @example
 * const round = await resumeRunApprovals(service, agent, askId);
 * if (round.status === 'claimed') return; // another host continues this run
 * const result = await run(agent, round.state, { signal: round.claim.signal });
 * await round.claim.finish();
 */
export async function resumeRunApprovals<TAgent extends AnyAgent>(
  service: InteractionService,
  agent: TAgent,
  askId: string,
  options: ResumeRunOptions = {},
): Promise<DecidedRun<RunState<unknown, TAgent>> | ClaimedRun> {
  const { leaseMs } = checkWaitOptions(options);
  const ask = await service.get(askId);
  if (ask === undefined) {
    throw new UserInteractionError(
      'UNKNOWN_INTERACTION',
      `No ask ${JSON.stringify(askId)} in the store; give the id of one of the run's asks (askRunApprovals' askIds).`,
      { askId },
    );
  }
  const saved = readSavedRun(ask);
  const state = await restoreRunState(askId, agent, saved);
  const items = state.getInterruptions();
  // No signal on the asks themselves: aborting stops this wait, never the asks.
  const askOptions: AskOptions = { attachment: ask.attachment as AskAttachment };
  const { signal } = options;
  const asked = await Promise.all(
    items.map(async (item) => {
      const asking = askOne(service, item, saved, askOptions);
      const first = await (signal === undefined ? asking : raceAbort(asking, signal));
      if (first.decision.outcome.status !== 'deferred') return first;
      const outcome = await service.outcome(first.askId, signal === undefined ? {} : { signal });
      return { ...first, decision: decideToolApproval(first.approval, outcome) };
    }),
  );
  return decidedOnce(service, saved.runId, state, items, asked, saved.always, leaseMs);
}

/** The decided round, once claimed here; `claimed` when another host has it (or did it). */
async function decidedOnce<TContext, TAgent extends AnyAgent>(
  service: InteractionService,
  runId: string,
  state: RunState<TContext, TAgent>,
  items: readonly RunToolApprovalItem[],
  asked: readonly Asked[],
  always: AlwaysOption,
  leaseMs: number,
): Promise<DecidedRun<RunState<TContext, TAgent>> | ClaimedRun> {
  const round = asked.map(({ askId, call }) => ({ askId, callId: call.callId }));
  const hold = await claimRound(service, runId, round, leaseMs);
  if (hold.held === undefined) {
    return { status: 'claimed', runId, askIds: round.map(({ askId }) => askId), claim: hold.claim };
  }
  const decisions = applyAll(state, items, asked, always);
  return { status: 'decided', state, decisions, claim: hold.held };
}

interface Asked {
  askId: string;
  call: InterruptedCall;
  /** The call as the person was asked about it. */
  approval: ToolApprovalCall;
  decision: ToolApprovalDecision;
}

async function askOne(
  service: InteractionService,
  item: RunToolApprovalItem,
  saved: Pick<SavedRun, 'runId' | 'allowEdits' | 'always'>,
  options: AskOptions,
): Promise<Asked> {
  const call = interruptedCall(item);
  const key = approvalKey(saved.runId, call.callId);
  const approval = approvalCall(call, saved.allowEdits, saved.always);
  const decision = await askToolApproval(service, approval, { ...options, key });
  return { askId: askIdForKey(key), call, approval, decision };
}

/**
 * Applies each decision to the state. Sticky decisions go first: the SDK's sticky decision of a
 * tool replaces what it held for that tool, while a decision on one call overrides a sticky one
 * for that call, so each call decided in this round keeps its own decision.
 */
function applyAll<TContext, TAgent extends AnyAgent>(
  state: RunState<TContext, TAgent>,
  items: readonly RunToolApprovalItem[],
  asked: readonly Asked[],
  always: AlwaysOption,
): RunApprovalDecision[] {
  const decided = asked.map((each, index) =>
    decisionOf(each, items[index] as RunToolApprovalItem, always),
  );
  const sticky = decided.filter(({ decision }) => decision.sticky === true);
  for (const { decision, apply } of [
    ...sticky,
    ...decided.filter((each) => !sticky.includes(each)),
  ]) {
    if (decision.applied === 'approve') state.approve(apply.item, { alwaysApprove: apply.always });
    else state.reject(apply.item, { message: decision.message ?? '', alwaysReject: apply.always });
  }
  return decided.map(({ decision }) => decision);
}

interface Decided {
  decision: RunApprovalDecision;
  apply: { item: RunToolApprovalItem; always: boolean };
}

/** What one ask's decision does to its call. */
function decisionOf(
  { askId, call, decision }: Asked,
  item: RunToolApprovalItem,
  always: AlwaysOption,
): Decided {
  const applied: RunApprovalDecision = {
    askId,
    callId: call.callId,
    toolName: call.toolName,
    applied: 'reject',
    outcome: decision.outcome,
  };
  if (decision.answeredBy !== undefined) applied.answeredBy = decision.answeredBy;
  let sticky = false;
  if (decision.approved && decision.edited === undefined) {
    applied.applied = 'approve';
    sticky = always.approve?.includes(call.toolName) === true;
  } else if (decision.approved) {
    // The SDK runs a call only as the model wrote it: the edited call is the model's to make.
    const edited = decision.edited as NonNullable<typeof decision.edited>;
    applied.edited = { ...edited, input: decision.input };
    applied.message = editedMessage(call.toolName, edited.fields, decision.input);
  } else {
    applied.message = decision.reason;
    sticky = always.reject?.includes(call.toolName) === true;
  }
  if (sticky) applied.sticky = true;
  return { decision: applied, apply: { item, always: sticky } };
}

/** What the model reads when the person approved the call only with other input. */
function editedMessage(toolName: string, fields: readonly string[], input: unknown): string {
  const changed = fields.length === 0 ? '' : ` (changed: ${fields.join(', ')})`;
  return `Not run as proposed: the user approved this call only with edited input${changed}. To run the approved version, call ${JSON.stringify(toolName)} again with exactly this input: ${JSON.stringify(input)}`;
}
