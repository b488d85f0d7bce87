import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { createAskUserMcpServer } from 'ask-engine/mcp';

// The server: one tool, ask_user, that asks the connected client's user (what `ask-engine mcp`
// serves on stdio). `connect` serves one connection to a client of either protocol era.
const { connect, service } = createAskUserMcpServer({ name: 'my-agent', version: '1.0.0' });

for (const mode of ['legacy', 'auto'] as const) {
  // A client whose user accepts the form and picks the second option (an IDE shows the form).
  // `legacy` speaks the 2025 protocol (the server sends elicitation/create); `auto` negotiates
  // 2026-07-28 (the call returns input_required, the client asks and retries by itself).
  const client = new Client(
    { name: 'my-ide', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode } },
  );
  client.setRequestHandler('elicitation/create', (request) => {
    console.log(`the client shows: ${request.params.message}`);
    return { action: 'accept', content: { 'q1.selection': 'option2' } };
  });

  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const connection = connect(serverSide);
  await client.connect(clientSide);
  const result = await client.callTool({
    name: 'ask_user',
    arguments: { question: 'Deploy now?', options: ['Yes', 'No'] },
  });
  console.log(client.getNegotiatedProtocolVersion(), result.content); // Selected: "No"
  await client.close();
  await connection.close();
}
await service.close();
