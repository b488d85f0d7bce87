/**
 * PLACEHOLDER until the engine's `askToolApproval` (issue 39 §1, branch `edits`) lands in main:
 * the shape the brief gives, asking Allow / Deny without edits. Deleted on merge.
 */
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
  const input = JSON.stringify(call.input, null, 2);
  const outcome = await service.ask(
    {
      questions: [
        {
          header: 'Approve',
          question: `Allow the tool ${JSON.stringify(call.toolName)} to run with this input?`,
          context: `${input}\n\nTool call ${JSON.stringify(call.toolCallId)}${call.context === undefined ? '' : `\n\n${call.context}`}`,
          options: ['Allow', 'Deny'],
          allowComment: true,
        },
      ],
    },
    { ...options, toolCallId: call.toolCallId },
  );
  if (outcome.status === 'answered') {
    const response = outcome.answers[0]?.response;
    const by = outcome.answeredBy === undefined ? {} : { answeredBy: outcome.answeredBy };
    if (response?.kind === 'selection' && response.selections[0] === 'Allow') {
      return { approved: true, input: call.input, binding: call.toolCallId, outcome, ...by };
    }
    const comment = response?.kind === 'selection' ? response.comment : undefined;
    return {
      approved: false,
      reason: `Denied by the user.${comment === undefined ? '' : ` Comment: ${comment}`}`,
      outcome,
      ...by,
    };
  }
  return { approved: false, reason: `Not approved: the ask ended ${outcome.status}.`, outcome };
}
