import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createAskUserMcpServer } from 'ask-engine/mcp';

// The server: one tool, ask_user, that asks the connected client's user (what `ask-engine mcp`
// serves on stdio). Connect it to any transport: stdio, Streamable HTTP, or in memory as here.
const { mcp, service } = createAskUserMcpServer({ name: 'my-agent', version: '1.0.0' });

// A client whose user accepts the form and picks the second option (an IDE shows the form).
const client = new Client(
  { name: 'my-ide', version: '1.0.0' },
  { capabilities: { elicitation: { form: {} } } },
);
client.setRequestHandler(ElicitRequestSchema, (request) => {
  console.log(`the client shows: ${request.params.message}`);
  return { action: 'accept', content: { 'q1.selection': 'option2' } };
});

const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
await Promise.all([mcp.connect(serverSide), client.connect(clientSide)]);
const result = await client.callTool({
  name: 'ask_user',
  arguments: { question: 'Deploy now?', options: ['Yes', 'No'] },
});
console.log(result.content); // the text the model reads: Selected: "No"
await client.close();
await service.close();
await mcp.close();
