/** `ask-engine mcp` as a spawned stdio process, driven by the real SDK client playing the person. */
import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import {
  Client,
  type ClientCapabilities,
  type ElicitResult,
  type RequestId,
  type Transport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { AskUserToolInputSchema } from 'ask-engine/data';
import { createAskUserMcpServer } from 'ask-engine/mcp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliProgram } from '../cli/cli-program.js';
import { runCli } from '../cli/run-cli.js';
import { type Elicitation, recordSends } from './mcp-peers.js';

const ROOT = resolve(import.meta.dirname, '../..');
const [node, main] = await cliProgram();

interface Session {
  client: Client;
  elicitations: Elicitation[];
  /** How the person replies to the next elicitations; set per test. */
  person: (elicitation: Elicitation) => ElicitResult | Promise<ElicitResult>;
  stderr: () => string;
}

/** How the client negotiates: the 2025 handshake, or the 2026-07-28 era (auto or pinned). */
type Era = 'legacy' | 'auto' | { pin: '2026-07-28' };

async function spawnServer(
  capabilities: ClientCapabilities,
  era: Era = 'legacy',
): Promise<Session> {
  const transport = new StdioClientTransport({
    command: node,
    args: [main, 'mcp'],
    cwd: ROOT,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const client = new Client(
    { name: 'person', version: '0.0.0' },
    { capabilities, versionNegotiation: { mode: era } },
  );
  const session: Session = {
    client,
    elicitations: [],
    person: () => ({ action: 'cancel' }),
    stderr: () => stderr,
  };
  if (capabilities.elicitation !== undefined) {
    client.setRequestHandler('elicitation/create', (request, ctx) => {
      const elicitation = { params: request.params, signal: ctx.mcpReq.signal };
      session.elicitations.push(elicitation);
      return session.person(elicitation);
    });
  }
  await client.connect(transport);
  return session;
}

function textOf(result: Awaited<ReturnType<Client['callTool']>>): string {
  const [first] = result.content as Array<{ type: string; text: string }>;
  return first!.text;
}

const deploy = {
  question: 'Deploy the release now?',
  header: 'Deploy',
  options: [{ title: 'Yes', description: 'ship it' }, 'No'],
};

describe.each([
  ['2025 (initialize)', 'legacy'],
  ['2026-07-28 (auto negotiation, input_required)', 'auto'],
] as const)('ask-engine mcp with a client that can show forms, %s', (_name, era) => {
  let session: Session;
  beforeAll(async () => {
    session = await spawnServer({ elicitation: { form: {} } }, era);
    expect(session.client.getNegotiatedProtocolVersion()).toBe(
      era === 'legacy' ? '2025-11-25' : '2026-07-28',
    );
  });
  afterAll(async () => {
    await session?.client.close();
  });

  it('lists ask_user with the tool’s description and input schema', async () => {
    const { tools } = await session.client.listTools();

    expect(tools).toHaveLength(1);
    expect(tools[0]).toMatchObject({
      name: 'ask_user',
      description: expect.stringContaining('Ask the user and wait for the answer.'),
      inputSchema: JSON.parse(JSON.stringify(AskUserToolInputSchema)),
    });
  });

  it('asks the client’s user and tells the agent what was picked', async () => {
    session.person = () => ({ action: 'accept', content: { 'q1.selection': 'option1' } });
    const result = await session.client.callTool({ name: 'ask_user', arguments: deploy });

    expect(result.isError).toBeUndefined();
    expect(textOf(result)).toBe(
      'The user answered.\n\nDeploy: Deploy the release now?\nSelected: "Yes"',
    );
    expect(session.elicitations.at(-1)!.params).toMatchObject({
      mode: 'form',
      message: 'Deploy the release now?',
    });
  });

  it('asks a wizard in one form: picks with a comment, a skipped question', async () => {
    session.person = () => ({
      action: 'accept',
      content: { 'q1.selection': ['option2', 'option1'], 'q1.comment': 'lint first' },
    });
    const result = await session.client.callTool({
      name: 'ask_user',
      arguments: {
        questions: [
          {
            question: 'Which checks?',
            header: 'Checks',
            options: ['lint', 'test'],
            allowMultiple: true,
            allowComment: true,
          },
          { question: 'Release notes?', header: 'Notes' },
        ],
      },
    });

    expect(textOf(result)).toBe(
      [
        'The user answered 1 of 2 questions.',
        '',
        'Checks: Which checks?',
        'Selected: "test", "lint"',
        'Comment: "lint first"',
        '',
        'Notes: Release notes?',
        'Skipped: the user gave no answer to this question; nothing was chosen.',
      ].join('\n'),
    );
  });

  it('tells the agent nothing was chosen when the user declines, even a plan review', async () => {
    session.person = () => ({ action: 'decline', content: { 'q1.selection': 'option1' } });
    const result = await session.client.callTool({
      name: 'ask_user',
      arguments: {
        question: 'Approve the plan?',
        context: '1. migrate\n2. deploy',
        options: ['Approve', 'Reject'],
        intent: { kind: 'plan-review', approve: 'Approve' },
      },
    });

    expect(textOf(result)).toBe(
      'The user dismissed the question without answering. Message: "declined". Nothing was chosen; do not assume an answer. Continue without it, or ask differently if the decision still matters.',
    );
    expect(textOf(result)).not.toContain('approved');
  });

  it('tells the agent the user dismissed the form on cancel', async () => {
    session.person = () => ({ action: 'cancel' });
    const result = await session.client.callTool({ name: 'ask_user', arguments: deploy });

    expect(textOf(result)).toContain('Message: "dismissed"');
  });
});

describe('ask-engine mcp, 2025 era: the form is withdrawn while the call is open', () => {
  let session: Session;
  beforeAll(async () => {
    session = await spawnServer({ elicitation: { form: {} } });
  });
  afterAll(async () => {
    await session?.client.close();
  });

  it('withdraws the form at the ask’s timeout', async () => {
    session.person = (elicitation) =>
      new Promise((_, reject) => elicitation.signal.addEventListener('abort', reject));
    const result = await session.client.callTool({
      name: 'ask_user',
      arguments: { ...deploy, timeout: 1_000 },
    });

    expect(textOf(result)).toMatch(/timed out/i);
    await expect.poll(() => session.elicitations.at(-1)!.signal.aborted).toBe(true);
  });

  it('withdraws the form when the client cancels the tool call', async () => {
    const seen = session.elicitations.length;
    let asked!: () => void;
    const shown = new Promise<void>((done) => {
      asked = done;
    });
    session.person = (elicitation) => {
      asked();
      return new Promise((_, reject) => elicitation.signal.addEventListener('abort', reject));
    };
    const call = new AbortController();
    const result = session.client.callTool(
      { name: 'ask_user', arguments: deploy },
      { signal: call.signal },
    );
    await shown;
    call.abort(new Error('the agent run was stopped'));

    await expect(result).rejects.toThrow('the agent run was stopped');
    const elicitation = session.elicitations[seen]!;
    await expect.poll(() => elicitation.signal.aborted).toBe(true);
    expect(String(elicitation.signal.reason)).toContain('the agent run was stopped');
  });
});

describe('ask-engine mcp with a client that cannot elicit', () => {
  it.each([
    [
      'legacy',
      'The MCP client did not declare the elicitation capability, so it cannot ask its user.',
    ],
    [
      { pin: '2026-07-28' },
      'The MCP client did not declare the elicitation capability on this request, so it cannot ask its user.',
    ],
  ] as const)('answers every ask as unavailable, an error result (%j)', async (era, why) => {
    const session = await spawnServer({}, era);
    try {
      const result = await session.client.callTool({ name: 'ask_user', arguments: deploy });

      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe(
        `Nobody could be asked: no way to reach the user is available. Message: "${why}". Nothing was chosen; do not assume an answer.`,
      );
    } finally {
      await session.client.close();
    }
  });
});

describe('the ask-engine mcp server, linked in memory', () => {
  it('relates each elicitation to the tools/call that asked', async () => {
    const { connect, service } = createAskUserMcpServer();
    const client = new Client(
      { name: 'person', version: '0.0.0' },
      { capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler('elicitation/create', () => ({
      action: 'accept',
      content: { 'q1.selection': 'option2' },
    }));
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    const fromClient = recordRequestIds(clientTransport);
    const fromServer = recordSends(serverTransport);
    const connection = connect(serverTransport);
    await client.connect(clientTransport);
    try {
      const result = await client.callTool({ name: 'ask_user', arguments: deploy });

      expect(textOf(result)).toContain('Selected: "No"');
      const callId = fromClient.get('tools/call');
      expect(callId).toBeDefined();
      expect(fromServer.filter((message) => message.method === 'elicitation/create')).toEqual([
        { method: 'elicitation/create', relatedRequestId: callId },
      ]);
    } finally {
      await client.close();
      await connection.close();
      await service.close();
    }
  });
});

/** The id of the last request of each method sent through `transport`. */
function recordRequestIds(transport: Transport): Map<string, RequestId> {
  const ids = new Map<string, RequestId>();
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if ('method' in message && 'id' in message) ids.set(message.method, message.id);
    return send(message, options);
  };
  return ids;
}

describe('ask-engine mcp usage', () => {
  it('exits 0 when the client closes stdin and 143 on SIGTERM', async () => {
    const serve = (stop: (child: ChildProcess) => void) =>
      new Promise<number | null>((done) => {
        const child = spawn(node, [main, 'mcp'], {
          cwd: ROOT,
          stdio: ['pipe', 'pipe', 'inherit'],
        });
        child.on('close', (code) => done(code));
        // Stopped once it has answered initialize, so it is serving.
        child.stdout.once('data', () => stop(child));
        child.stdin.write(
          `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'sh', version: '0' } } })}\n`,
        );
      });

    expect(await serve((child) => child.stdin!.end())).toBe(0);
    expect(await serve((child) => child.kill('SIGTERM'))).toBe(143);
  });

  it('prints its help', async () => {
    const { code, stdout } = await runCli(['mcp', '--help']);

    expect(code).toBe(0);
    expect(stdout).toContain('Usage: ask-engine mcp [options]');
  });

  it('refuses a bad timeout with exit code 2', async () => {
    const { code, stderr } = await runCli(['mcp', '--timeout', 'soon']);

    expect(code).toBe(2);
    expect(stderr).toContain('--timeout "soon" is not a duration from 1s');
  });
});
