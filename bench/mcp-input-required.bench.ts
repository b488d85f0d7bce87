/**
 * One `ask_user` call answered through one multi round-trip (2026-07-28: `input_required` with
 * the form and a sealed `requestState`, the client's elicitation handler, the retry that
 * answers the deferred ask through the service), as a ratio against the same tool call on the
 * same kind of link answered without input (the tool asking a service whose provider answers
 * at once). Both through the v2 `Client` pinned to 2026-07-28 over the in-memory transport.
 * Goal: at most 3x.
 */
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport, McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { createAskUserTool, createInteractionService } from '../src/index.js';
import { createAskUserMcpServer } from '../src/mcp/index.js';
import { timeRatio } from './ratio.js';

const args = { question: 'Deploy the release now?', header: 'Deploy', options: ['Yes', 'No'] };
const expected = 'Selected: "No"';

async function connect(serve: (transport: InMemoryTransport) => { close(): Promise<void> }) {
  const client = new Client(
    { name: 'bench', version: '0.0.0' },
    {
      capabilities: { elicitation: { form: {} } },
      versionNegotiation: { mode: { pin: '2026-07-28' } },
    },
  );
  client.setRequestHandler('elicitation/create', () => ({
    action: 'accept',
    content: { 'q1.selection': 'option2' },
  }));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const connection = serve(serverSide);
  await client.connect(clientSide);
  const call = async () => {
    const result = await client.callTool({ name: 'ask_user', arguments: args });
    const [first] = result.content as Array<{ text: string }>;
    if (!first?.text.includes(expected))
      throw new Error(`unexpected result ${JSON.stringify(result)}`);
  };
  await call();
  return {
    call,
    async close() {
      await client.close();
      await connection.close();
    },
  };
}

// The subject: the ask_user server, one input_required round trip per call.
const mrtr = createAskUserMcpServer();
const subject = await connect((transport) => mrtr.connect(transport));

// The floor: the same tool and arguments over the same link, its ask answered by the provider.
const direct = createInteractionService();
direct.registerProvider({
  ask: () =>
    Promise.resolve({
      status: 'answered',
      answers: [{ questionId: 'q1', response: { kind: 'selection', selections: ['No'] } }],
    }),
});
const tool = createAskUserTool(direct);
const floor = await connect((transport) =>
  serveStdio(
    () => {
      const mcp = new McpServer(
        { name: 'floor', version: '0.0.0' },
        { capabilities: { tools: {} } },
      );
      mcp.server.setRequestHandler('tools/list', () => ({ tools: [] }));
      mcp.server.setRequestHandler('tools/call', async (request, ctx) => {
        const result = await tool.execute(String(ctx.mcpReq.id), request.params.arguments ?? {});
        return { content: result.content };
      });
      return mcp;
    },
    { transport },
  ),
);

await timeRatio(
  'ask_user answered through one MRTR round trip (input_required + retry) vs the same call answered without input, v2 client in memory',
  3,
  floor.call,
  subject.call,
);
await subject.close();
await floor.close();
await mrtr.service.close();
await direct.close();
