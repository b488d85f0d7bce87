/**
 * Checks the signature the AI SDK puts on a tool approval request when the call was made with
 * `experimental_toolApprovalSecret` (ai 6.0.x): HMAC-SHA256 over the approval id, the tool-call
 * id, the tool name and a SHA-256 digest of the input's canonical JSON (keys sorted), in
 * unpadded base64url. Web Crypto only, so it runs wherever the AI SDK does.
 */

import { canonicalJson, sha256Base64Url } from '../rules/call-digest.js';

const encoder = new TextEncoder();

export interface SignedApprovalRequest {
  approvalId: string;
  toolCallId: string;
  toolName: string;
  input: unknown;
  signature: string;
}

/** Resolves `true` only when `signature` was made with `secret` over exactly this request. */
export async function verifyApprovalSignature(
  secret: string | Uint8Array,
  request: SignedApprovalRequest,
): Promise<boolean> {
  const signature = decodeBase64Url(request.signature);
  if (signature === undefined) return false;
  const key = await crypto.subtle.importKey(
    'raw',
    typeof secret === 'string' ? encoder.encode(secret) : new Uint8Array(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['verify'],
  );
  const payload = [
    request.approvalId,
    request.toolCallId,
    request.toolName,
    sha256Base64Url(canonicalJson(request.input)),
  ];
  // crypto.subtle.verify compares in constant time.
  return crypto.subtle.verify('HMAC', key, signature, encoder.encode(payload.join('\n')));
}

function decodeBase64Url(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  const base64 = text.replace(/-/g, '+').replace(/_/g, '/');
  try {
    const binary = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4));
    return Uint8Array.from(binary, (char) => char.charCodeAt(0));
  } catch {
    return undefined;
  }
}
