/**
 * A real v2 client pinned to 2026-07-28 that declares the Tasks extension, connected over an
 * in-memory link to the `ask_user` server (`createAskUserMcpServer`, served by the SDK's own
 * `serveStdio` entry on that transport). The client drives the task by hand through its raw
 * request API (`client.request` with a result schema): the SDK 2.4.0 client has no Tasks
 * runtime, and its `callTool` refuses a `resultType: 'task'` result (UNSUPPORTED_RESULT_TYPE),
 * so `callAskUser` reads the `tools/call` result off the wire.
 */
import {
  Client,
  type ClientCapabilities,
  type JSONRPCMessage,
  type RequestId,
  SdkError,
  type StandardSchemaV1,
  type Transport,
} from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import type { AskUserMcpServer } from 'ask-engine/mcp';

export const TASKS = 'io.modelcontextprotocol/tasks';

/** A client that shows forms and takes tasks. */
export const TASKS_AND_FORMS: ClientCapabilities = {
  elicitation: { form: {} },
  extensions: { [TASKS]: {} },
};

/** Anything the server sends back, untouched. */
const ANY: StandardSchemaV1<unknown, Record<string, unknown>> = {
  '~standard': {
    version: 1,
    vendor: 'test',
    validate: (value) => ({ value: value as Record<string, unknown> }),
  },
};

export type TaskPeers = Awaited<ReturnType<typeof taskClient>>;

export interface TaskClientOptions {
  capabilities?: ClientCapabilities;
  clientName?: string;
}

/** A client of `server` over an in-memory link; several may share one server (and its service). */
export async function connectTaskClient(server: AskUserMcpServer, options: TaskClientOptions = {}) {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const served = server.connect(serverTransport);
  return taskClient(clientTransport, options, () => served.close());
}

/** A client over `transport` (in memory, Streamable HTTP); `release` runs after it closes. */
export async function taskClient(
  transport: Transport,
  options: TaskClientOptions = {},
  release: () => Promise<void> = async () => undefined,
) {
  const clientTransport = transport;
  const client = new Client(
    { name: options.clientName ?? 'person', version: '0.0.0' },
    {
      capabilities: options.capabilities ?? TASKS_AND_FORMS,
      versionNegotiation: { mode: { pin: '2026-07-28' } },
    },
  );
  await client.connect(clientTransport);
  const results = recordResults(clientTransport);

  const send = (method: string, params: Record<string, unknown>) =>
    client.request({ method, params }, ANY);

  return {
    client,
    /**
     * `tools/call` of ask_user as the wire carries its result: a task (which the SDK client
     * refuses, so it is read from the wire) or a plain tool result.
     */
    async callAskUser(args: Record<string, unknown>): Promise<Record<string, unknown>> {
      const id = results.next();
      try {
        return (await client.callTool({ name: 'ask_user', arguments: args })) as never;
      } catch (error) {
        if (!(error instanceof SdkError && error.code === 'UNSUPPORTED_RESULT_TYPE')) throw error;
        return results.of(await id);
      }
    },
    get: (taskId: string) => send('tasks/get', { taskId }),
    update: (taskId: string, inputResponses: Record<string, unknown>) =>
      send('tasks/update', { taskId, inputResponses }),
    cancel: (taskId: string) => send('tasks/cancel', { taskId }),
    async close() {
      await client.close();
      await release();
    },
  };
}

/** Records the id of each `tools/call` the client sends and every result it receives. */
function recordResults(transport: Transport) {
  const results = new Map<RequestId, Record<string, unknown>>();
  const ids: ((id: RequestId) => void)[] = [];
  const send = transport.send.bind(transport);
  transport.send = (message: JSONRPCMessage, sendOptions) => {
    if ('method' in message && message.method === 'tools/call' && 'id' in message) {
      ids.shift()?.(message.id);
    }
    return send(message, sendOptions);
  };
  const receive = transport.onmessage!;
  transport.onmessage = (message, extra) => {
    if ('result' in message) results.set(message.id, message.result as Record<string, unknown>);
    receive(message, extra);
  };
  return {
    /** The id of the next `tools/call` sent. */
    next: () => new Promise<RequestId>((resolve) => ids.push(resolve)),
    of(id: RequestId): Record<string, unknown> {
      const result = results.get(id);
      if (result === undefined) throw new Error(`No result for request ${String(id)}.`);
      return result;
    },
  };
}
