/**
 * One answered ask through the MCP elicitation provider (service + form building + one
 * `elicitation/create` round trip + the SDK's schema check + reading the reply), over an
 * in-memory link to a real SDK client, as a ratio against a bare MCP `ping` round trip over the
 * same link, in the same run. Shown with the SDK's default validator and with
 * `createElicitationSchemaValidator`.
 */
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport, McpServer } from '@modelcontextprotocol/server';
import { createInteractionService } from '../src/index.js';
import { createElicitationProvider, createElicitationSchemaValidator } from '../src/mcp/index.js';
import { timeRatio } from './ratio.js';

const request = {
  questions: [
    {
      question: 'Which checks should run before the release?',
      header: 'Checks',
      options: Array.from({ length: 8 }, (_, i) => ({
        title: `Check ${i + 1}`,
        description: `runs suite ${i + 1}`,
      })),
      allowMultiple: true,
      allowComment: true,
    },
  ],
};

async function link(options: ConstructorParameters<typeof McpServer>[1]) {
  const mcp = new McpServer({ name: 'bench', version: '0.0.0' }, options);
  const client = new Client(
    { name: 'person', version: '0.0.0' },
    { capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler('elicitation/create', () => ({
    action: 'accept',
    content: { 'q1.selection': ['option2', 'option5'], 'q1.comment': 'both, in this order' },
  }));
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await Promise.all([mcp.connect(serverTransport), client.connect(clientTransport)]);
  const service = createInteractionService();
  service.registerProvider(createElicitationProvider(mcp.server));
  const check = await service.ask(request);
  if (check.status !== 'answered')
    throw new Error(`expected an answer, got ${JSON.stringify(check)}`);
  return { mcp, client, service };
}

const own = await link({ jsonSchemaValidator: createElicitationSchemaValidator() });
await timeRatio(
  'answered ask through MCP elicitation (createElicitationSchemaValidator) vs a bare MCP ping round trip',
  undefined,
  () => own.mcp.server.ping(),
  () => own.service.ask(request),
);
await own.client.close();

const sdkDefault = await link(undefined);
await timeRatio(
  'answered ask through MCP elicitation (SDK default validator) vs a bare MCP ping round trip',
  undefined,
  () => sdkDefault.mcp.server.ping(),
  () => sdkDefault.service.ask(request),
);
await sdkDefault.client.close();
