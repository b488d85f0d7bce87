/**
 * The engine's own SHA-256 (synchronous, browser-safe) against Node's, over lengths that cross
 * every padding boundary and over random bytes; and the call digest the AI SDK signs the same way.
 */
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { toolApprovalBinding } from '../../src/index.js';
import { callDigest, canonicalJson } from '../../src/rules/call-digest.js';
import { sha256 } from '../../src/rules/sha256.js';

describe('sha256', () => {
  it('matches node:crypto for every length from 0 to 300 bytes and for random inputs', () => {
    const lengths = [...Array.from({ length: 301 }, (_, n) => n), 1_000, 65_537];
    for (const length of lengths) {
      const bytes = randomBytes(length);
      const expected = createHash('sha256').update(bytes).digest('hex');
      expect(Buffer.from(sha256(bytes)).toString('hex'), `length ${length}`).toBe(expected);
    }
  });
});

describe('callDigest', () => {
  it('is SHA-256 over the quoted tool name and the canonical JSON, in base64url', () => {
    const input = { b: [1, { d: null, c: 'é' }], a: true };
    expect(canonicalJson(input)).toBe('{"a":true,"b":[1,{"c":"é","d":null}]}');
    const expected = createHash('sha256')
      .update(`"rm"\n${canonicalJson(input)}`)
      .digest('base64url');
    expect(callDigest('rm', input)).toBe(expected);
  });

  it('binds an approval to the approval id, the call id and the input', () => {
    const call = { approvalId: 'a1', toolCallId: 'c1', toolName: 'rm', input: { path: '/x' } };
    const binding = toolApprovalBinding(call);
    expect(toolApprovalBinding({ ...call, input: { path: '/x' } })).toBe(binding);
    expect(toolApprovalBinding({ ...call, input: { path: '/y' } })).not.toBe(binding);
    expect(toolApprovalBinding({ ...call, toolCallId: 'c2' })).not.toBe(binding);
    expect(toolApprovalBinding({ ...call, approvalId: 'a2' })).not.toBe(binding);
    expect(binding).toMatch(/^sha256:[A-Za-z0-9_-]{43}$/);
  });
});
