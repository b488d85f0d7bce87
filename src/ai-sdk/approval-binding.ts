/**
 * What binds a person's approval to exactly one tool call: the approval id, the tool-call id and
 * a digest of the tool name and the input's canonical JSON. One approval id answers one call;
 * the same id sent with another call id, another tool or other input is another request.
 * Web Crypto only, so it runs wherever the AI SDK does.
 */

const encoder = new TextEncoder();

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
 * await approvalBindingLine({ approvalId: 'a1', toolCallId: 'call-1', toolName: 'rm', input: { path: '/' } })
 * // => 'Tool call "call-1", tool and input digest sha256:…'
 */
export async function approvalBindingLine(call: ApprovedCall): Promise<string> {
  return `Tool call ${JSON.stringify(call.toolCallId)}, tool and input digest sha256:${await callDigest(call.toolName, call.input)}`;
}

/** Unpadded base64url SHA-256 over the JSON-quoted tool name and the input's canonical JSON. */
export async function callDigest(toolName: string, input: unknown): Promise<string> {
  return sha256Base64Url(`${JSON.stringify(toolName)}\n${canonicalJson(input)}`);
}

/** Unpadded base64url SHA-256 of the UTF-8 text. */
export async function sha256Base64Url(text: string): Promise<string> {
  return encodeBase64Url(
    new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(text))),
  );
}

/**
 * JSON with object keys sorted at every level, so the same input has one spelling whatever
 * order its keys came in (the AI SDK signs the same form).
 *
 * @example
 * canonicalJson({ b: 1, a: [true, null] }) // => '{"a":[true,null],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? '';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const record = value as Record<string, unknown>;
  const entries = Object.keys(record)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
  return `{${entries.join(',')}}`;
}

export function encodeBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
