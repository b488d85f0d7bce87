/**
 * Approval of a tool call with edits, through the public API: approve as is, approve with an
 * edited input (checked against the tool's input schema before it counts), reject with a reason,
 * a timeout; the outcome and the audit record both input digests, and redaction hides the values
 * but not the digests.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import {
  type AskAuditEvent,
  askToolApproval,
  createAskUserTool,
  createInteractionService,
  createMemoryAskStore,
  decideToolApproval,
  isUserInteractionError,
  type ToolApprovalCall,
  toolApprovalBinding,
  toolApprovalRequest,
} from '../../src/index.js';
import { manualProvider, tick } from './helpers.js';

const inputSchema = {
  type: 'object',
  properties: {
    path: { type: 'string', minLength: 1 },
    recursive: { type: 'boolean' },
    options: {
      type: 'object',
      properties: { depth: { type: 'integer', minimum: 0 } },
      additionalProperties: false,
    },
  },
  required: ['path'],
  additionalProperties: false,
};

const call: ToolApprovalCall = {
  toolName: 'delete_files',
  toolCallId: 'call-1',
  approvalId: 'approval-1',
  input: { recursive: true, path: '/tmp/build' },
  inputSchema,
};

/** What the digest is, written out with Node's own SHA-256: the tool name and canonical JSON. */
function digest(toolName: string, canonical: string): string {
  const hash = createHash('sha256').update(`${JSON.stringify(toolName)}\n${canonical}`);
  return `sha256:${hash.digest('base64url')}`;
}

function setup(options: { redact?: boolean; clock?: SimulatedClock } = {}) {
  const store = createMemoryAskStore();
  const service = createInteractionService({
    store,
    ...options,
    ...(options.clock === undefined ? {} : { sweepIntervalMs: Number.POSITIVE_INFINITY }),
  });
  const provider = manualProvider();
  service.registerProvider(provider);
  const history = async (askId: string) => {
    const events: AskAuditEvent[] = [];
    for await (const event of service.history(askId)) events.push(event);
    return events;
  };
  /** The ask the provider was handed, once it was. */
  const asked = async () => {
    for (let i = 0; i < 50 && provider.calls.length === 0; i++) await tick();
    return provider.calls[0]!;
  };
  return { service, provider, history, asked };
}

const approve = (extra: Record<string, unknown> = {}) => [
  { questionId: 'q1', response: { kind: 'selection' as const, selections: ['Approve'], ...extra } },
];

describe('askToolApproval', () => {
  it('hands the provider the call, its input and its schema, and approves the input as proposed', async () => {
    const { service, asked } = setup();
    const decision = askToolApproval(service, call);
    const pending = await asked();
    const [question] = pending.request.questions;
    expect(question?.intent).toEqual({
      kind: 'tool-approval',
      approve: 'Approve',
      reject: 'Reject',
      toolName: 'delete_files',
      toolCallId: 'call-1',
      approvalId: 'approval-1',
      input: call.input,
      inputSchema,
      allowEdits: true,
    });
    expect(question?.context).toContain('"/tmp/build"');
    pending.resolve({ status: 'answered', answers: approve() });
    const result = await decision;
    expect(result).toMatchObject({ approved: true, input: call.input });
    expect(result.approved && result.edited).toBeUndefined();
    expect(result.approved && result.binding).toBe(toolApprovalBinding(call));
  });

  it('approves an edited input: the outcome and the audit event record both digests and the changed fields', async () => {
    const { service, provider, history, asked } = setup();
    const handle = service.start(toolApprovalRequest(call), { toolCallId: call.toolCallId });
    await asked();
    const edited = { path: '/tmp/build/cache', options: { depth: 1 }, recursive: true };
    const by = { recipient: 'alice@example.com', channel: 'web' };
    const outcome = await service.answer(handle.id, approve({ input: edited }), { by });
    const expected = {
      from: digest('delete_files', '{"path":"/tmp/build","recursive":true}'),
      to: digest(
        'delete_files',
        '{"options":{"depth":1},"path":"/tmp/build/cache","recursive":true}',
      ),
      fields: ['options', 'path'],
    };
    expect(outcome).toMatchObject({ status: 'answered', answeredBy: by, edited: expected });
    // As stored, and read back through the outcome schema.
    expect((await service.get(handle.id))?.outcome).toEqual(outcome);
    const decision = decideToolApproval(call, outcome);
    expect(decision).toMatchObject({
      approved: true,
      input: edited,
      edited: expected,
      answeredBy: by,
    });
    // The binding is over the edited input: the proposed call no longer matches it.
    expect(decision.approved && decision.binding).toBe(
      toolApprovalBinding({ ...call, input: edited }),
    );
    expect(decision.approved && decision.binding).not.toBe(toolApprovalBinding(call));
    const event = (await history(handle.id)).find((entry) => entry.type === 'answer');
    expect(event?.data).toMatchObject({ edited: expected, answeredBy: by });
    expect(provider.calls).toHaveLength(1);
  });

  it.each([
    ['a value the schema refuses', { path: '' }, /at \/path, expected at least 1 characters/],
    [
      'a field the tool does not have',
      { path: '/tmp', force: true },
      /at \/force, is not a field of this tool/,
    ],
    [
      'a nested value of the wrong type',
      { path: '/tmp', options: { depth: 'deep' } },
      /at \/options\/depth, expected integer, got a string/,
    ],
    ['a missing required field', { recursive: false }, /at \/path, is required/],
  ])(
    'refuses an edit with %s, names the field, and leaves the ask open',
    async (_, input, message) => {
      const { service, asked } = setup();
      const decision = askToolApproval(service, call);
      await asked();
      const [askId] = [...(await service.list()).items.map((item) => item.askId)];
      const error = await service.answer(askId!, approve({ input })).catch((caught) => caught);
      expect(isUserInteractionError(error, 'INVALID_ANSWER')).toBe(true);
      expect(error.message).toMatch(message);
      expect(error.data).toMatchObject({ questionId: 'q1', part: 'input' });
      // Still open: a valid answer settles it.
      await service.answer(askId!, approve());
      expect((await decision).approved).toBe(true);
    },
  );

  it('refuses an edit with the Reject pick, and an edit where edits are not allowed', async () => {
    const { service, asked } = setup();
    void askToolApproval(service, { ...call, allowEdits: false });
    await asked();
    const askId = (await service.list()).items[0]!.askId;
    const input = { path: '/tmp' };
    await expect(service.answer(askId, approve({ input }))).rejects.toThrow(/does not allow edits/);
    await expect(
      service.answer(askId, [
        { questionId: 'q1', response: { kind: 'selection', selections: ['Reject'], input } },
      ]),
    ).rejects.toThrow(/does not allow edits/);
  });

  it('rejects with the comment as the reason the model reads', async () => {
    const { service, asked } = setup();
    const decision = askToolApproval(service, call);
    const pending = await asked();
    pending.resolve({
      status: 'answered',
      answers: [
        {
          questionId: 'q1',
          response: { kind: 'selection', selections: ['Reject'], comment: 'Not the build dir' },
        },
      ],
      answeredBy: { recipient: 'bob' },
    });
    expect(await decision).toMatchObject({
      approved: false,
      reason: 'Rejected by the user. Comment: Not the build dir',
      answeredBy: { recipient: 'bob' },
    });
  });

  it('does not approve when the deadline passes without an answer', async () => {
    const clock = new SimulatedClock();
    const { service, asked } = setup({ clock });
    const decision = askToolApproval(service, call, { timeoutMs: 1_000 });
    await asked();
    clock.increment(1_000);
    expect(await decision).toMatchObject({
      approved: false,
      reason: 'Not approved: the user did not answer before the deadline.',
      outcome: { status: 'timedOut' },
    });
  });

  it('under redact, the audit hides the edited input but keeps both digests', async () => {
    const { service, history, asked } = setup({ redact: true });
    const decision = askToolApproval(service, call);
    await asked();
    const askId = (await service.list()).items[0]!.askId;
    await service.answer(askId, approve({ input: { path: '/tmp/other' } }));
    const result = await decision;
    expect(result).toMatchObject({ approved: true, input: { path: '/tmp/other' } });
    const event = (await history(askId)).find((entry) => entry.type === 'answer');
    expect(event?.data).toEqual({
      answers: '[redacted]',
      edited: {
        from: digest('delete_files', '{"path":"/tmp/build","recursive":true}'),
        to: digest('delete_files', '{"path":"/tmp/other"}'),
        fields: ['path', 'recursive'],
      },
    });
    expect(JSON.stringify(await history(askId))).not.toContain('/tmp/other');
  });

  it('refuses an input schema with a keyword it cannot check, naming it', async () => {
    const { service } = setup();
    const error = await askToolApproval(service, {
      ...call,
      inputSchema: { type: 'object', patternProperties: { '^x': { type: 'string' } } },
    }).catch((caught) => caught);
    expect(isUserInteractionError(error, 'BAD_INTENT')).toBe(true);
    expect(error.message).toMatch(/"patternProperties"/);
  });

  it('never lets the model ask a tool approval through the ask_user tool', async () => {
    const { service } = setup();
    const tool = createAskUserTool(service);
    const result = await tool.execute('tc', {
      question: 'Allow?',
      options: [{ title: 'Approve' }, { title: 'Reject' }],
      intent: { kind: 'tool-approval', approve: 'Approve' } as never,
    });
    expect(JSON.stringify(result)).toMatch(/only the host asks/);
  });
  it('needs the same edits from a quorum: different edits do not agree', async () => {
    const { service } = setup();
    const quorum = { required: 2, from: ['ana', 'ben'] };
    const differ = service.start(toolApprovalRequest(call), { quorum });
    const agree = service.start(toolApprovalRequest({ ...call, toolCallId: 'call-2' }), { quorum });
    const respond = (id: string, path: string, recipient: string) =>
      service.respond(id, approve({ input: { path } }), { by: { recipient } });
    await respond(differ.id, '/a', 'ana');
    await respond(differ.id, '/b', 'ben');
    expect(await differ.outcome).toMatchObject({ status: 'cancelled', reason: 'no-quorum' });
    expect(decideToolApproval(call, await differ.outcome).approved).toBe(false);
    await respond(agree.id, '/a', 'ana');
    await respond(agree.id, '/a', 'ben');
    expect(decideToolApproval(call, await agree.outcome)).toMatchObject({
      approved: true,
      input: { path: '/a' },
      edited: { fields: ['path', 'recursive'] },
    });
  });
});
