/**
 * Checks the signature the AI SDK puts on a tool approval request when the call was made with
 * `experimental_toolApprovalSecret` (ai 6.0.x): HMAC-SHA256 over the approval id, the tool-call
 * id, the tool name and a SHA-256 digest of the input's canonical JSON (keys sorted), in
 * unpadded base64url. Web Crypto only, so it runs wherever the AI SDK does.
 */

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
  const digest = new Uint8Array(
    await crypto.subtle.digest('SHA-256', encoder.encode(canonicalJson(request.input))),
  );
  const payload = [
    request.approvalId,
    request.toolCallId,
    request.toolName,
    encodeBase64Url(digest),
  ];
  // crypto.subtle.verify compares in constant time.
  return crypto.subtle.verify('HMAC', key, signature, encoder.encode(payload.join('\n')));
}

function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? '';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const record = value as Record<string, unknown>;
  const entries = Object.keys(record)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
  return `{${entries.join(',')}}`;
}

function encodeBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
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
