/**
 * Real v2 MCP clients linked in memory to an `ask_user` server: one that fulfils
 * `input_required` by itself (the person answers in its elicitation handler), and one driven by
 * hand through `allowInputRequired` (the test sends each retry itself).
 */
import {
  Client,
  type ClientCapabilities,
  type ElicitRequest,
  type ElicitResult,
} from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import type { AskAuditEvent, InteractionService } from 'ask-engine';
import type { AskUserMcpServer } from 'ask-engine/mcp';

export type Negotiation = 'legacy' | 'auto' | { pin: '2026-07-28' };

/** The `input_required` result of a first call, as a manual client receives it. */
export interface InputRequired {
  resultType: 'input_required';
  inputRequests: Record<string, { method: string; params: ElicitRequest['params'] }>;
  requestState: string;
}

export interface CallResult {
  content: Array<{ type: string; text: string }>;
  isError?: boolean;
}

/** Connects a client of `mode` to `server`; `person` answers each elicitation it is shown. */
export async function connectClient(
  server: AskUserMcpServer,
  options: {
    mode: Negotiation;
    capabilities?: ClientCapabilities;
    person?: (params: ElicitRequest['params'], seen: number) => ElicitResult;
    /** Manual multi round-trip: `input_required` comes back to the caller. */
    manual?: boolean;
    name?: string;
  },
) {
  const client = new Client(
    { name: options.name ?? 'ide', version: '1.0.0' },
    {
      capabilities: options.capabilities ?? { elicitation: { form: {} } },
      versionNegotiation: { mode: options.mode },
      ...(options.manual === true ? { inputRequired: { autoFulfill: false } } : {}),
    },
  );
  const shown: ElicitRequest['params'][] = [];
  const { person } = options;
  if (person !== undefined) {
    client.setRequestHandler('elicitation/create', (request) => {
      shown.push(request.params);
      return person(request.params, shown.length);
    });
  }
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const connection = server.connect(serverSide);
  await client.connect(clientSide);
  return {
    client,
    /** Every elicitation the person was shown, in order. */
    shown,
    async call(args: unknown): Promise<CallResult> {
      return (await client.callTool({
        name: 'ask_user',
        arguments: args as Record<string, unknown>,
      })) as CallResult;
    },
    /** A manual client's first call: the `input_required` result. */
    async ask(args: unknown): Promise<InputRequired> {
      return (await client.callTool(
        { name: 'ask_user', arguments: args as Record<string, unknown> },
        { allowInputRequired: true },
      )) as unknown as InputRequired;
    },
    /** A manual client's retry with the person's reply and the echoed state. */
    async retry(args: unknown, reply: ElicitResult, requestState: string): Promise<CallResult> {
      return (await client.callTool(
        {
          name: 'ask_user',
          arguments: args as Record<string, unknown>,
          inputResponses: { ask_user: reply },
          requestState,
        } as Parameters<Client['callTool']>[0],
        { allowInputRequired: true },
      )) as unknown as CallResult;
    },
    async close() {
      await client.close();
      await connection.close();
    },
  };
}

/** The one ask of the service's store (the tests start one per server). */
export async function onlyAsk(service: InteractionService) {
  const { items } = await service.list();
  if (items.length !== 1) throw new Error(`expected one ask, found ${items.length}`);
  return items[0]!;
}

/** The ask's stored audit events, by type. */
export async function historyOf(
  service: InteractionService,
  askId: string,
): Promise<AskAuditEvent[]> {
  const events: AskAuditEvent[] = [];
  for await (const event of service.history(askId)) events.push(event);
  return events;
}

export function textOf(result: CallResult): string {
  return result.content[0]!.text;
}
