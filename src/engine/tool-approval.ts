/**
 * Approval of one tool call, with edits: the person approves the proposed input, approves an
 * edited input (checked against the tool's input schema before it counts), or rejects with a
 * reason. Every adapter's approval goes through here, so what counts as an approval is one rule.
 */
import type { AnsweredBy, AskOutcome, ToolInputEdit } from '../contracts/outcome.js';
import type { AskUserQuestionInput, AskUserRequestInput } from '../contracts/tool-input.js';
import { sha256Base64Url } from '../rules/call-digest.js';
import { decidedBy } from '../rules/quorum.js';
import { inputDigest } from '../rules/tool-approval.js';
import type { AskOptions, InteractionService } from './service-contract.js';

/** The title of the option that approves a tool call (as proposed, or as edited). */
export const TOOL_APPROVE = 'Approve';
/** The title of the option that rejects a tool call; a comment with it is the reason. */
export const TOOL_REJECT = 'Reject';

/** The tool call a person is asked to approve. */
export interface ToolApprovalCall {
  toolName: string;
  toolCallId: string;
  /** The framework's approval id, when it has one; part of the binding. */
  approvalId?: string;
  /** The proposed arguments (JSON). */
  input: unknown;
  /** The tool's input JSON Schema; edits are allowed only with one, and checked against it. */
  inputSchema?: object;
  /** Offer approve-with-edits; default `true` when `inputSchema` is given. */
  allowEdits?: boolean;
  /** Extra text shown with the question (escaped like all text). */
  context?: string;
}

/**
 * What the person decided. Only an explicit approval is `approved: true`: `input` is what may
 * run (the proposed input, or the edited one with `edited` saying what changed) and `binding`
 * binds the approval to exactly that call. Anything else (a rejection, a timeout, a
 * cancellation, no one to ask, an abort, a deferral still open) is `approved: false` with the
 * reason the model should read.
 */
export type ToolApprovalDecision =
  | {
      approved: true;
      input: unknown;
      edited?: ToolInputEdit;
      /** `toolApprovalBinding` of the call with the input that may run. */
      binding: string;
      answeredBy?: AnsweredBy;
      outcome: AskOutcome;
    }
  | { approved: false; reason: string; answeredBy?: AnsweredBy; outcome: AskOutcome };

/**
 * Asks the person to approve one tool call and resolves what they decided. The ask carries the
 * tool's input schema and the proposed input, so every surface (terminal, web page and
 * recipient links, MCP, the generic form) can offer the edit; an edit is checked against the
 * schema before it can settle anything. A rejection's comment is its reason. With a quorum,
 * a Reject from anyone rejects at once (`veto` defaults to `['Reject']`).
 *
 * Throws what `service.ask` throws for a request it refuses (`BAD_INTENT` for an input schema it
 * cannot check, `INVALID_REQUEST` for a key reused with another call, `NO_PROVIDER`).
 *
 * @example
 * const decision = await askToolApproval(service, { toolName: 'rm', toolCallId: 'c1', input: { path: '/tmp/x' }, inputSchema });
 * if (decision.approved) await run(decision.input); else tellModel(decision.reason);
 */
export async function askToolApproval(
  service: InteractionService,
  call: ToolApprovalCall,
  options: AskOptions = {},
): Promise<ToolApprovalDecision> {
  const askOptions: AskOptions = { toolCallId: call.toolCallId, ...options };
  if (options.quorum !== undefined) askOptions.quorum = { veto: [TOOL_REJECT], ...options.quorum };
  const outcome = await service.ask(toolApprovalRequest(call), askOptions);
  return decideToolApproval(call, outcome);
}

/**
 * The ask for one tool call: a question whose intent carries the call, the proposed input and
 * the tool's input schema, with Approve / Reject and a comment. Its context shows the input as
 * JSON too, for a surface that shows only text.
 */
export function toolApprovalRequest(call: ToolApprovalCall): AskUserRequestInput {
  const shown = `Input of ${JSON.stringify(call.toolName)}:\n${JSON.stringify(call.input, null, 2) ?? 'undefined'}`;
  const question: AskUserQuestionInput = {
    header: 'Approve tool',
    // JSON-quoted: a tool name cannot pose as the question's own words.
    question: `Allow the tool ${JSON.stringify(call.toolName)} to run with this input?`,
    context: call.context === undefined ? shown : `${call.context}\n\n${shown}`,
    options: [
      {
        title: TOOL_APPROVE,
        description: 'Run it with this input, or with the input as you edit it.',
      },
      {
        title: TOOL_REJECT,
        description: 'Do not run it; your comment is the reason the model reads.',
      },
    ],
    allowComment: true,
    intent: {
      kind: 'tool-approval',
      approve: TOOL_APPROVE,
      reject: TOOL_REJECT,
      toolName: call.toolName,
      toolCallId: call.toolCallId,
      input: call.input,
      ...(call.approvalId === undefined ? {} : { approvalId: call.approvalId }),
      ...(call.inputSchema === undefined ? {} : { inputSchema: call.inputSchema }),
      ...(call.allowEdits === undefined ? {} : { allowEdits: call.allowEdits }),
    },
  };
  return { questions: [question] };
}

/**
 * The binding of an approval: SHA-256 over the approval id, the tool-call id and the input
 * digest (tool name and canonical JSON of the input), as `sha256:<base64url>`. Recompute it over
 * the call about to run and compare: only the approved call, with the approved input, matches.
 *
 * @example
 * if (toolApprovalBinding({ ...call, input: decision.input }) !== decision.binding) throw new Error('not the approved call');
 */
export function toolApprovalBinding(call: {
  approvalId?: string;
  toolCallId: string;
  toolName: string;
  input: unknown;
}): string {
  const digest = inputDigest(call.toolName, call.input);
  return `sha256:${sha256Base64Url(JSON.stringify([call.approvalId ?? null, call.toolCallId, digest]))}`;
}

/** The decision an outcome of a tool-approval ask stands for (see `ToolApprovalDecision`). */
export function decideToolApproval(
  call: ToolApprovalCall,
  outcome: AskOutcome,
): ToolApprovalDecision {
  const reject = (reason: string, answeredBy?: AnsweredBy): ToolApprovalDecision =>
    answeredBy === undefined
      ? { approved: false, reason, outcome }
      : { approved: false, reason, answeredBy, outcome };
  switch (outcome.status) {
    case 'answered': {
      const response = outcome.answers[0]?.response;
      const by = deciders(outcome);
      if (response?.kind === 'selection' && response.selections.length === 1) {
        const [choice] = response.selections;
        const comment = response.comment === undefined ? '' : ` Comment: ${response.comment}`;
        if (choice === TOOL_REJECT)
          return reject(`Rejected by ${by}.${comment}`, outcome.answeredBy);
        if (choice === TOOL_APPROVE) {
          const input = response.input === undefined ? call.input : response.input;
          const decision: ToolApprovalDecision = {
            approved: true,
            input,
            binding: toolApprovalBinding({ ...call, input }),
            outcome,
          };
          if (outcome.edited !== undefined) decision.edited = outcome.edited;
          if (outcome.answeredBy !== undefined) decision.answeredBy = outcome.answeredBy;
          return decision;
        }
      }
      return reject('Not approved: the user gave no explicit approval.', outcome.answeredBy);
    }
    default:
      return reject(notAnsweredReason(outcome));
  }
}

/**
 * Why an outcome that is not an answer approves nothing, in the words the model reads: a
 * cancellation (with its reason), a timeout, an abort, or a deferral without an answer yet.
 */
export function notAnsweredReason(outcome: Exclude<AskOutcome, { status: 'answered' }>): string {
  switch (outcome.status) {
    case 'cancelled':
      return `Not approved: the question was cancelled (${outcome.reason}).${outcome.message === undefined ? '' : ` ${outcome.message}`}`;
    case 'timedOut':
      return 'Not approved: the user did not answer before the deadline.';
    case 'aborted':
      return `Not approved: the question was withdrawn (${outcome.message}).`;
    case 'deferred':
      return `Not approved: the question was handed elsewhere (interaction id ${outcome.interactionId}) and has no answer yet.`;
  }
}

/** Who decided: the user, the approvers of a quorum, or whoever vetoed. */
export function deciders(outcome: AskOutcome): string {
  const decided = decidedBy(outcome);
  if (decided?.kind === 'veto') return `${decided.names[0]} (a veto)`;
  return decided?.kind === 'quorum' ? decided.names.join(', ') : 'the user';
}
