/**
 * Tool-call approval from inside a LangGraph node, in LangGraph's own human-in-the-loop terms:
 * the interrupt is a `HumanInterrupt` (the action and its args, what the person may do), and a
 * `HumanResponse` resumes it: `accept`, `edit` with the edited args, `response` (a rejection
 * whose text is the reason) or `ignore`. LangChain's HITL decisions (`approve`, `edit` with an
 * `editedAction`, `reject` with a `message`) resume it too. An edit is checked against the tool's
 * input schema before it counts; the decision is the engine's (`decideToolApproval`).
 */
import type { AskUserQuestionAnswer } from '../contracts/answer.js';
import type { AskUserQuestion } from '../contracts/question.js';
import type { InteractionService } from '../engine/service-contract.js';
import {
  decideToolApproval,
  TOOL_APPROVE,
  TOOL_REJECT,
  type ToolApprovalCall,
  type ToolApprovalDecision,
  toolApprovalRequest,
} from '../engine/tool-approval.js';
import { describe } from '../rules/describe.js';
import { UserInteractionError } from '../rules/errors.js';
import { validateAskUserAnswers } from '../rules/validate-answers.js';
import { type AskInterrupt, askWithInterrupts, type NodeAskOptions } from './ask-in-node.js';

/**
 * What the graph stops with for a tool approval: LangGraph's `HumanInterrupt` (prebuilt), plus
 * the ask's id and questions (as `askOrInterrupt`'s), and why the last resume value was refused.
 */
export interface ToolApprovalInterrupt extends AskInterrupt {
  action_request: { action: string; args: Record<string, unknown> };
  config: {
    allow_ignore: boolean;
    allow_respond: boolean;
    allow_edit: boolean;
    allow_accept: boolean;
  };
  description: string;
}

/**
 * Asks the person to approve one tool call from inside a node, keyed like `askInNode` (a re-run
 * of the node attaches to the same ask). When the ask is deferred, the graph stops with a
 * `ToolApprovalInterrupt`; resume it with a `HumanResponse` (or `{ askId }` once it was answered
 * elsewhere). Only an explicit approval approves: `decision.input` is what may run.
 *
 * @example
 * const decision = await approveToolCallInNode(service, { toolName: 'rm', toolCallId: call.id, input: call.args, inputSchema });
 * if (decision.approved) await rm(decision.input);
 */
export async function approveToolCallInNode(
  service: InteractionService,
  call: ToolApprovalCall,
  options: NodeAskOptions = {},
): Promise<ToolApprovalDecision> {
  const request = toolApprovalRequest(call);
  const outcome = await askWithInterrupts(service, request, options, {
    pause: (pause): ToolApprovalInterrupt => {
      const intent = pause.questions[0]?.intent;
      const allowEdit = intent?.kind === 'tool-approval' && intent.allowEdits;
      return {
        action_request: { action: call.toolName, args: argsOf(call.input) },
        config: {
          allow_accept: true,
          allow_edit: allowEdit,
          allow_respond: true,
          allow_ignore: true,
        },
        description: pause.questions[0]?.question ?? '',
        ...pause,
      };
    },
    answers: (resume, questions) => approvalAnswers(resume, questions, call),
  });
  return decideToolApproval(call, outcome);
}

/**
 * The answers a human response stands for. Never quotes the args or text: the interrupt value
 * that carries a refusal is written to the checkpointer.
 */
function approvalAnswers(
  resume: unknown,
  questions: readonly AskUserQuestion[],
  { toolName, input }: ToolApprovalCall,
): AskUserQuestionAnswer[] {
  // A list of responses (LangGraph's Agent Inbox sends one per interrupt) or LangChain's
  // `{ decisions: [...] }`: one approval, one response.
  const response = Array.isArray(resume)
    ? onlyOne(resume)
    : isRecord(resume) && Array.isArray(resume.decisions)
      ? onlyOne(resume.decisions)
      : resume;
  if (!isRecord(response) || typeof response.type !== 'string') {
    throw refused(
      `Expected a human response { type: "accept" | "edit" | "response" | "ignore", args }, got ${describe(response)}.`,
    );
  }
  const questionId = questions[0]!.id;
  const pick = (selection: string, extra: Record<string, unknown> = {}) => [
    { questionId, response: { kind: 'selection', selections: [selection], ...extra } },
  ];
  let answers: unknown;
  switch (response.type) {
    case 'accept':
    case 'approve':
      answers = pick(TOOL_APPROVE);
      break;
    case 'edit': {
      const action = isRecord(response.editedAction) ? response.editedAction : response.args;
      if (!isRecord(action) || !isRecord(action.args)) {
        throw refused(
          'An "edit" response needs the edited action { action, args } (or editedAction { name, args }).',
        );
      }
      const name = action.action ?? action.name;
      if (name !== toolName) {
        throw refused(
          `An "edit" response names the action ${describe(name)}; the call to approve is ${JSON.stringify(toolName)}: an approval cannot move to another tool.`,
        );
      }
      // The interrupt showed an input that is not an object as `{ input }` (see argsOf).
      answers = pick(TOOL_APPROVE, {
        input: argsOf(input) === input ? action.args : action.args.input,
      });
      break;
    }
    case 'response':
    case 'reject': {
      const text = response.type === 'reject' ? response.message : response.args;
      answers =
        typeof text === 'string' && text.trim() !== ''
          ? pick(TOOL_REJECT, { comment: text })
          : pick(TOOL_REJECT);
      break;
    }
    case 'ignore':
      answers = pick(TOOL_REJECT, { comment: 'Ignored.' });
      break;
    default:
      throw refused(
        `Expected a human response of type "accept", "edit", "response" or "ignore", got ${describe(response.type)}.`,
      );
  }
  return validateAskUserAnswers(questions, answers, { quoteInput: false });
}

/** The args of a `HumanInterrupt`'s action: the input when it is an object, else `{ input }`. */
function argsOf(input: unknown): Record<string, unknown> {
  return isRecord(input) && !Array.isArray(input) ? input : { input };
}

function onlyOne(list: unknown[]): unknown {
  if (list.length !== 1) {
    throw refused(`Expected one response for this one tool call, got ${list.length}.`);
  }
  return list[0];
}

function refused(message: string): UserInteractionError {
  return new UserInteractionError('INVALID_ANSWER', message);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
