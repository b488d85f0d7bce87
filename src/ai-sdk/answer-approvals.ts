/** Human approval for AI SDK tools with `needsApproval`: one Allow / Deny ask per request. */
import type { ToolApprovalResponse, ToolModelMessage } from 'ai';
import type { AskOutcome } from '../contracts/outcome.js';
import type { InteractionService } from '../engine/service-contract.js';
import { deciders, notAnsweredReason } from '../engine/tool-approval.js';
import { isUserInteractionError } from '../rules/errors.js';
import type { QuorumOption } from '../rules/quorum.js';
import { isTimeoutMs, MIN_TIMEOUT_MS } from '../rules/timeout.js';
import { approvalBindingLine, approvalKey } from './approval-binding.js';
import { verifyApprovalSignature } from './approval-signature.js';

/** The title of the option that approves a tool call; only picking it approves. */
export const ALLOW = 'Allow';
/** The title of the option that denies a tool call; a comment with it becomes the reason. */
export const DENY = 'Deny';

/** Options of `answerApprovals`. */
export interface AnswerApprovalsOptions {
  /** The same secret given to `generateText`/`streamText` as `experimental_toolApprovalSecret`:
   * a request without a valid signature is denied without asking anyone. */
  secret?: string | Uint8Array;
  /** Milliseconds each ask waits (at least `MIN_TIMEOUT_MS`); without it an ask waits for ever. */
  timeoutMs?: number;
  /** Aborting it ends the open asks: their requests are denied. */
  signal?: AbortSignal;
  /** The asking agent's name, handed to the provider. */
  agent?: string;
  /**
   * Tools that need several approvers: each approval is a quorum ask (`service.start`'s
   * `quorum`), so `required` people must pick Allow (through `service.respond`, a recipient's
   * link, or a provider that names who answered). A Deny from anyone denies at once (`veto`
   * defaults to `['Deny']`). Checked like the service checks it.
   */
  quorum?: QuorumOption;
}

/** What `answerApprovals` reads: a result (`generateText`, or `streamText`'s promise-like
 * `content`), or content parts. */
export type ApprovalSource =
  | { content: readonly unknown[] | PromiseLike<readonly unknown[]> }
  | readonly unknown[];

interface ApprovalRequest {
  approvalId: string;
  toolCallId: string;
  toolName: string;
  input: unknown;
  signature?: string;
  providerExecuted?: boolean;
}

/**
 * Asks the person one Allow / Deny question per `tool-approval-request` in the result (naming
 * the tool and showing its input) and resolves the `tool` message of `tool-approval-response`
 * parts to append before the next step. Only an explicit Allow approves; a Deny (its comment
 * is the reason), a timeout, a cancellation, an unavailable UI, an abort or a forged request
 * is a denial whose reason says which. An approval is bound to exactly one call: its ask is
 * keyed by the approval id and its question names the tool-call id and a digest of the tool
 * name and canonical input, so answering the same result twice asks once, while the same
 * approval id sent for another call (a replay, or an approval moved to another call) or with
 * other input is refused without asking, signed or not. The message is empty when there was
 * nothing to approve.
 *
 * @example
 * const step = await generateText({ model, tools, messages });
 * messages.push(...step.response.messages, await answerApprovals(service, step));
 */
export async function answerApprovals(
  service: InteractionService,
  source: ApprovalSource,
  options: AnswerApprovalsOptions = {},
): Promise<ToolModelMessage> {
  checkOptions(options);
  const parts = Array.isArray(source)
    ? (source as readonly unknown[])
    : await (source as { content: ApprovalSource }).content;
  if (!Array.isArray(parts)) {
    throw new TypeError(
      'Expected a generateText/streamText result or an array of content parts, got something without `content`.',
    );
  }
  const requests = readApprovalRequests(parts);
  // The crypto work first, all at once; then the asks start in the order of the requests, so
  // the person sees them in the order the model made the calls.
  const checked = await Promise.all(requests.map((request) => checkRequest(request, options)));
  const content = await Promise.all(
    checked.map((check) =>
      'refusal' in check ? check.refusal : answerOne(service, check, options),
    ),
  );
  return { role: 'tool', content };
}

type Respond = (approved: boolean, reason: string) => ToolApprovalResponse;

/** A request ready to ask: its binding line computed; or the refusal of a forged one. */
type CheckedRequest =
  | { refusal: ToolApprovalResponse }
  | { request: ApprovalRequest; bindingLine: string; respond: Respond };

async function checkRequest(
  request: ApprovalRequest,
  options: AnswerApprovalsOptions,
): Promise<CheckedRequest> {
  const respond: Respond = (approved, reason) => ({
    type: 'tool-approval-response',
    approvalId: request.approvalId,
    approved,
    reason,
    ...(request.providerExecuted === true ? { providerExecuted: true } : {}),
  });
  if (options.secret !== undefined) {
    const valid =
      request.signature !== undefined &&
      (await verifyApprovalSignature(options.secret, { ...request, signature: request.signature }));
    if (!valid) {
      return {
        refusal: respond(
          false,
          `Denied without asking: the approval request ${request.signature === undefined ? 'is not signed' : 'has an invalid signature'}.`,
        ),
      };
    }
  }
  return { request, bindingLine: approvalBindingLine(request), respond };
}

async function answerOne(
  service: InteractionService,
  { request, bindingLine, respond }: Extract<CheckedRequest, { request: ApprovalRequest }>,
  options: AnswerApprovalsOptions,
): Promise<ToolApprovalResponse> {
  let outcome: AskOutcome;
  try {
    outcome = await askApproval(service, request, bindingLine, options);
  } catch (error) {
    // The engine refuses a key reused with other questions: this approval id was asked about
    // for another call, tool or input. An Allow never carries over.
    if (isUserInteractionError(error, 'INVALID_REQUEST') && typeof error.data.askId === 'string') {
      return respond(
        false,
        `Refused without asking: the approval id ${JSON.stringify(request.approvalId)} already belongs to another tool call or input (ask ${error.data.askId}); an approval answers one call only.`,
      );
    }
    // Any other request the engine refuses (no provider, an input past the limits).
    return respond(
      false,
      `Not approved: the approval could not be asked (${error instanceof Error ? error.message : String(error)}).`,
    );
  }
  return decide(outcome, respond);
}

function askApproval(
  service: InteractionService,
  request: ApprovalRequest,
  bindingLine: string,
  options: AnswerApprovalsOptions,
): Promise<AskOutcome> {
  const input = JSON.stringify(request.input, null, 2) ?? 'undefined';
  return service.ask(
    {
      questions: [
        {
          header: 'Approve',
          // JSON-quoted: a tool name cannot pose as the question's own words.
          question: `Allow the tool ${JSON.stringify(request.toolName)} to run with this input?`,
          // The last line binds the ask to this call (see approval-binding.ts).
          context: `${input}\n\n${bindingLine}`,
          options: [
            { title: ALLOW, description: 'Run it with exactly this input.' },
            { title: DENY, description: 'Do not run it; the model is told it was denied.' },
          ],
          allowComment: true,
        },
      ],
      ...(options.agent === undefined ? {} : { agent: options.agent }),
    },
    {
      key: approvalKey(request),
      toolCallId: request.toolCallId,
      ...(options.quorum === undefined ? {} : { quorum: { veto: [DENY], ...options.quorum } }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    },
  );
}

function decide(outcome: AskOutcome, response: Respond): ToolApprovalResponse {
  switch (outcome.status) {
    case 'answered': {
      const answer = outcome.answers[0]?.response;
      if (answer?.kind === 'selection' && answer.selections.length === 1) {
        const [choice] = answer.selections;
        const comment = answer.comment === undefined ? '' : ` Comment: ${answer.comment}`;
        const by = deciders(outcome);
        if (choice === ALLOW) return response(true, `Allowed by ${by}.${comment}`);
        if (choice === DENY) return response(false, `Denied by ${by}.${comment}`);
      }
      return response(false, 'Not approved: the user gave no explicit Allow.');
    }
    default:
      return response(false, notAnsweredReason(outcome));
  }
}

function readApprovalRequests(parts: readonly unknown[]): ApprovalRequest[] {
  const calls = new Map<string, { toolName: string; input: unknown; providerExecuted?: boolean }>();
  for (const part of parts) {
    if (isPart(part, 'tool-call') && typeof part.toolCallId === 'string') {
      calls.set(part.toolCallId, {
        toolName: String(part.toolName),
        input: part.input,
        ...(part.providerExecuted === true ? { providerExecuted: true } : {}),
      });
    }
  }
  const requests: ApprovalRequest[] = [];
  for (const [index, part] of parts.entries()) {
    if (!isPart(part, 'tool-approval-request')) continue;
    if (typeof part.approvalId !== 'string' || part.approvalId === '') {
      throw new TypeError(`Expected part ${index} to have a non-empty \`approvalId\`.`);
    }
    // A result's content part carries its tool call; a message part only the call's id.
    const toolCall = isRecord(part.toolCall) ? part.toolCall : part;
    const toolCallId = toolCall.toolCallId;
    const call =
      'toolName' in toolCall
        ? {
            toolName: String(toolCall.toolName),
            input: toolCall.input,
            providerExecuted: toolCall.providerExecuted === true,
          }
        : typeof toolCallId === 'string'
          ? calls.get(toolCallId)
          : undefined;
    if (typeof toolCallId !== 'string' || call === undefined) {
      throw new TypeError(
        `The approval request ${part.approvalId} names the tool call ${JSON.stringify(toolCallId)}, which is not among the parts; pass the whole content (tool calls and approval requests together).`,
      );
    }
    requests.push({
      approvalId: part.approvalId,
      toolCallId,
      toolName: call.toolName,
      input: call.input,
      ...(typeof part.signature === 'string' ? { signature: part.signature } : {}),
      ...(call.providerExecuted === true ? { providerExecuted: true } : {}),
    });
  }
  return requests;
}

function checkOptions(options: AnswerApprovalsOptions): void {
  const { secret, timeoutMs } = options;
  if (
    secret !== undefined &&
    !(typeof secret === 'string'
      ? secret !== ''
      : secret instanceof Uint8Array && secret.length > 0)
  ) {
    throw new TypeError('Expected `secret` to be a non-empty string or Uint8Array.');
  }
  if (timeoutMs !== undefined && !isTimeoutMs(timeoutMs)) {
    throw new TypeError(
      `Expected \`timeoutMs\` to be a number of milliseconds, at least ${MIN_TIMEOUT_MS}, got ${String(timeoutMs)}.`,
    );
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function isPart(value: unknown, type: string): value is Record<string, unknown> {
  return isRecord(value) && value.type === type;
}
