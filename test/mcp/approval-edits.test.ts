/**
 * Approving a tool call with edits through MCP elicitation: the form carries the approval's
 * edit fields, prefilled with the proposed input, and a real v2 SDK client that edits one of
 * them approves the edited call (both digests recorded, the binding over the edited input); an
 * untouched or rejected form changes nothing, and an edit outside the tool's schema is refused.
 */
import { askToolApproval, createInteractionService, toolApprovalBinding } from 'ask-engine';
import { afterEach, describe, expect, it } from 'vitest';
import { FORM_ONLY, linkPeers, type Peers, schemaOf } from './mcp-peers.js';

let peers: Peers | undefined;
afterEach(async () => {
  await peers?.close();
  peers = undefined;
});

const call = {
  toolName: 'deploy',
  toolCallId: 'call-7',
  input: { service: 'api', replicas: 3, region: 'eu' },
  inputSchema: {
    type: 'object',
    properties: {
      service: { type: 'string', description: 'What to deploy' },
      replicas: { type: 'integer', minimum: 1, maximum: 5 },
      region: { type: 'string', enum: ['eu', 'us'] },
    },
    required: ['service', 'replicas'],
    additionalProperties: false,
  },
};

async function approveThroughMcp(
  content: (schema: Record<string, unknown>) => Record<string, string>,
) {
  const service = createInteractionService();
  let requested: Record<string, unknown> = {};
  peers = await linkPeers({
    capabilities: FORM_ONLY,
    service,
    person: (request) => {
      requested = schemaOf(request) as Record<string, unknown>;
      return { action: 'accept' as const, content: content(requested) };
    },
  });
  const decision = await askToolApproval(service, call, { timeoutMs: 30_000 });
  return {
    decision,
    requested: requested as { properties: Record<string, Record<string, unknown>> },
  };
}

describe('approve with edits over MCP elicitation', () => {
  it('offers the edit fields prefilled and approves the edited call', async () => {
    const { decision, requested } = await approveThroughMcp((schema) => {
      const properties = (schema as { properties: Record<string, { title: string }> }).properties;
      const replicas = Object.keys(properties).find((id) =>
        properties[id]!.title.endsWith('replicas'),
      );
      return { 'q1.selection': 'option1', [replicas!]: '4' };
    });
    const edits = Object.entries(requested.properties).filter(([id]) => /^q1\.edit\d$/.test(id));
    expect(edits.map(([, property]) => property.default)).toEqual(['api', '3', 'value1']);
    expect(
      edits.every(([id]) => !(requested as { required?: string[] }).required?.includes(id)),
    ).toBe(true);
    expect(decision).toMatchObject({
      approved: true,
      input: { service: 'api', replicas: 4, region: 'eu' },
      edited: { fields: ['replicas'] },
    });
    if (!decision.approved) throw new Error('not approved');
    expect(decision.edited?.from).not.toBe(decision.edited?.to);
    expect(decision.binding).toBe(toolApprovalBinding({ ...call, input: decision.input }));
  });

  it('approves the proposed call when the fields come back as they were', async () => {
    const { decision } = await approveThroughMcp(() => ({
      'q1.selection': 'option1',
      'q1.edit1': 'api',
      'q1.edit2': '3',
    }));
    expect(decision).toMatchObject({ approved: true, input: call.input });
    expect(decision.approved && decision.edited).toBeUndefined();
  });

  it('rejects with the fields ignored, and refuses an edit outside the schema', async () => {
    const rejected = await approveThroughMcp(() => ({
      'q1.selection': 'option2',
      'q1.edit2': '9',
    }));
    expect(rejected.decision.approved).toBe(false);
    await peers?.close();
    peers = undefined;
    const outside = await approveThroughMcp(() => ({ 'q1.selection': 'option1', 'q1.edit2': '9' }));
    expect(outside.decision).toMatchObject({ approved: false });
    expect(outside.decision.approved ? '' : outside.decision.reason).toMatch(/replicas|maximum|5/);
  });
});
