/**
 * PLACEHOLDER until the engine's `askToolApproval` lands in main (issue 39, §1); deleted on
 * that merge. The same shape, Allow / Deny only (no edits), so the Claude adapter is written
 * against the real API.
 */
import { approvalBindingLine } from '../ai-sdk/approval-binding.js';
import type { AnsweredBy, AskOutcome } from '../contracts/outcome.js';
import type { AskOptions, InteractionService } from '../engine/service-contract.js';

export interface ToolApprovalCall {
  toolName: string;
  toolCallId: string;
  approvalId?: string;
  input: unknown;
  inputSchema?: object;
  allowEdits?: boolean;
  context?: string;
}

export type ToolApprovalDecision =
  | {
      approved: true;
      input: unknown;
      edited?: { from: string; to: string; fields: string[] };
      binding: string;
      answeredBy?: AnsweredBy;
      outcome: AskOutcome;
    }
  | { approved: false; reason: string; answeredBy?: AnsweredBy; outcome: AskOutcome };

export async function askToolApproval(
  service: InteractionService,
  call: ToolApprovalCall,
  options: AskOptions = {},
): Promise<ToolApprovalDecision> {
  const binding = await approvalBindingLine({
    approvalId: call.approvalId ?? call.toolCallId,
    ...call,
  });
  const outcome = await service.ask(
    {
      questions: [
        {
          header: 'Approve',
          question: `Allow the tool ${JSON.stringify(call.toolName)} to run with this input?`,
          context: `${call.context === undefined ? '' : `${call.context}\n\n`}${JSON.stringify(call.input, null, 2)}\n\n${binding}`,
          options: [{ title: 'Allow' }, { title: 'Deny' }],
          allowComment: true,
        },
      ],
    },
    options,
  );
  if (outcome.status === 'answered') {
    const response = outcome.answers[0]?.response;
    const comment =
      response?.kind === 'selection' && response.comment !== undefined
        ? ` ${response.comment}`
        : '';
    if (response?.kind === 'selection' && response.selections[0] === 'Allow') {
      return { approved: true, input: call.input, binding, outcome };
    }
    return { approved: false, reason: `Denied by the user.${comment}`, outcome };
  }
  if (outcome.status === 'deferred') {
    return {
      approved: false,
      reason: `Not approved yet: the question was handed elsewhere (interaction id ${outcome.interactionId}).`,
      outcome,
    };
  }
  if (outcome.status === 'timedOut') {
    return {
      approved: false,
      reason: 'Not approved: the user did not answer before the deadline.',
      outcome,
    };
  }
  if (outcome.status === 'cancelled') {
    return {
      approved: false,
      reason: `Not approved: the question was cancelled (${outcome.reason}).${outcome.message === undefined ? '' : ` ${outcome.message}`}`,
      outcome,
    };
  }
  return {
    approved: false,
    reason: `Not approved: the question was withdrawn (${outcome.message}).`,
    outcome,
  };
}
