/** A real MCP client playing the person, linked in memory to a real MCP server asking through the service. */
import {
  Client,
  type ClientCapabilities,
  type ElicitRequest,
  type ElicitResult,
  type RequestId,
  type Transport,
} from '@modelcontextprotocol/client';
import { InMemoryTransport, McpServer } from '@modelcontextprotocol/server';
import { createInteractionService, type InteractionService } from 'ask-engine';
import { createElicitationProvider, type ElicitationProviderOptions } from 'ask-engine/mcp';

export type ElicitParams = ElicitRequest['params'];

/** What the person sees of one request, and whether the server took it back. */
export interface Elicitation {
  params: ElicitParams;
  /** Aborted when the server cancels the request (`notifications/cancelled`), with its reason. */
  signal: AbortSignal;
}

/** Plays the person: gets each elicitation, returns the reply (or never does). */
export type Person = (
  elicitation: Elicitation,
  seen: number,
) => ElicitResult | Promise<ElicitResult>;

export interface Peers {
  client: Client;
  mcp: McpServer;
  service: InteractionService;
  /** Every elicitation the client received, in order. */
  elicitations: Elicitation[];
  /** `elicitationId`s of `notifications/elicitation/complete` the client received. */
  completed: string[];
  /** Every message the server sent, with the request it was related to (`relatedRequestId`). */
  sent: SentMessage[];
  /** Resolves with the n-th elicitation (1-based) once the client has it. */
  nth(n: number): Promise<Elicitation>;
  close(): Promise<void>;
}

export interface SentMessage {
  method: string | undefined;
  relatedRequestId: RequestId | undefined;
}

/** Records what goes through `transport.send`, with the send options' `relatedRequestId`. */
export function recordSends(transport: Transport): SentMessage[] {
  const sent: SentMessage[] = [];
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    sent.push({
      method: 'method' in message ? message.method : undefined,
      relatedRequestId: options?.relatedRequestId,
    });
    return send(message, options);
  };
  return sent;
}

export const FORM_ONLY: ClientCapabilities = { elicitation: { form: {} } };
export const FORM_AND_URL: ClientCapabilities = { elicitation: { form: {}, url: {} } };
export const URL_ONLY: ClientCapabilities = { elicitation: { url: {} } };

export async function linkPeers(options: {
  capabilities: ClientCapabilities;
  person?: Person;
  provider?: ElicitationProviderOptions;
  service?: InteractionService;
  /** The client's `clientInfo.name`; default 'person'. */
  clientName?: string;
}): Promise<Peers> {
  const mcp = new McpServer({ name: 'ask-engine-test', version: '0.0.0' });
  const client = new Client(
    { name: options.clientName ?? 'person', version: '0.0.0' },
    { capabilities: options.capabilities },
  );
  const elicitations: Elicitation[] = [];
  const waiters: Array<{ n: number; resolve(e: Elicitation): void }> = [];
  const completed: string[] = [];
  const { person } = options;
  if (person !== undefined) {
    client.setRequestHandler('elicitation/create', (request, ctx) => {
      const elicitation = { params: request.params, signal: ctx.mcpReq.signal };
      elicitations.push(elicitation);
      for (const waiter of waiters.filter((w) => w.n === elicitations.length)) {
        waiter.resolve(elicitation);
      }
      return person(elicitation, elicitations.length);
    });
  }
  if (options.capabilities.elicitation?.url !== undefined) {
    client.setNotificationHandler('notifications/elicitation/complete', (notification) => {
      completed.push(notification.params.elicitationId);
    });
  }
  const service = options.service ?? createInteractionService();
  service.registerProvider(createElicitationProvider(mcp.server, options.provider));
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const sent = recordSends(serverTransport);
  await Promise.all([mcp.connect(serverTransport), client.connect(clientTransport)]);
  // The SDK's client ignores `notifications/cancelled` for request id 0 (typescript-sdk issue
  // #2283), and a fresh server numbers its first request 0: spend it on a ping, as
  // `ask-engine mcp` does, so a cancelled elicitation reaches the person.
  await mcp.server.ping();
  return {
    client,
    mcp,
    service,
    elicitations,
    completed,
    sent,
    nth(n) {
      const seen = elicitations[n - 1];
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve) => waiters.push({ n, resolve }));
    },
    async close() {
      await client.close();
      await mcp.close();
      await service.close();
    },
  };
}

/** A person who never answers: the request stays open until the server cancels it. */
export function neverAnswers(elicitation: Elicitation): Promise<ElicitResult> {
  return new Promise((_, reject) => {
    elicitation.signal.addEventListener('abort', () => reject(elicitation.signal.reason), {
      once: true,
    });
  });
}

/** The requested schema of a form-mode elicitation. */
export function schemaOf(elicitation: Elicitation) {
  if (elicitation.params.mode === 'url') throw new Error('expected a form-mode elicitation');
  return elicitation.params.requestedSchema;
}
