/**
 * The one spelling of a tool call's input and its digest: canonical JSON (keys sorted at every
 * level) and SHA-256 over the tool name and that JSON. An approval is bound to it, and an edited
 * input is told from the proposed one by it.
 */
import { sha256 } from './sha256.js';

const encoder = new TextEncoder();

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

/** Unpadded base64url SHA-256 over the JSON-quoted tool name and the input's canonical JSON. */
export function callDigest(toolName: string, input: unknown): string {
  return sha256Base64Url(`${JSON.stringify(toolName)}\n${canonicalJson(input)}`);
}

/** Unpadded base64url SHA-256 of the UTF-8 text. */
export function sha256Base64Url(text: string): string {
  return encodeBase64Url(sha256(encoder.encode(text)));
}

/** Unpadded base64url of the bytes. */
export function encodeBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
