/**
 * What binds a person's approval to exactly one tool call: the approval id, the tool-call id and
 * a digest of the tool name and the input's canonical JSON. One approval id answers one call;
 * the same id sent with another call id, another tool or other input is another request.
 * The digest and canonical JSON are the engine's own (rules/call-digest.ts), shared with
 * `askToolApproval`.
 */
import { callDigest } from '../rules/call-digest.js';

/** The call an approval request is about, as the request names it. */
export interface ApprovedCall {
  approvalId: string;
  toolCallId: string;
  toolName: string;
  input: unknown;
}

/** The idempotency key of the ask for an approval id: one approval id, one ask, one call. */
export function approvalKey(call: ApprovedCall): string {
  return `ai-sdk-approval:${call.approvalId}`;
}

/**
 * The line the approval question carries to name its call: the tool-call id and the digest of
 * the tool name and canonical input. The question is part of what the ask's key names, so an
 * approval id already asked about for one call is refused for any other (the engine refuses a
 * key reused with other questions), whether or not the requests are signed.
 *
 * @example
 * approvalBindingLine({ approvalId: 'a1', toolCallId: 'call-1', toolName: 'rm', input: { path: '/' } })
 * // => 'Tool call "call-1", tool and input digest sha256:…'
 */
export function approvalBindingLine(call: ApprovedCall): string {
  return `Tool call ${JSON.stringify(call.toolCallId)}, tool and input digest sha256:${callDigest(call.toolName, call.input)}`;
}
