/**
 * One Streamable HTTP endpoint for clients of both MCP eras: 2026-07-28 requests served one
 * instance per request (the SDK's `createMcpHandler`), 2025-era clients on a session of their
 * own, where the server can send `elicitation/create` and hear the reply.
 */
import { randomUUID } from 'node:crypto';
import {
  createMcpHandler,
  isLegacyRequest,
  type McpServerFactory,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';

/** A web-standard HTTP handler (`fetch`), and `close` to end its sessions. */
export interface AskUserHttpEndpoint {
  /** Serves one HTTP request to the endpoint (mount it at the MCP path). */
  fetch(request: Request): Promise<Response>;
  /** Ends the 2025-era sessions and the 2026-07-28 exchanges in flight. */
  close(): Promise<void>;
}

/** Creates the endpoint for `createServer` (the `ask_user` server's factory). */
export function createAskUserHttpEndpoint(
  createServer: McpServerFactory,
  onerror?: (error: Error) => void,
): AskUserHttpEndpoint {
  const modern = createMcpHandler(createServer, {
    legacy: 'reject',
    ...(onerror === undefined ? {} : { onerror }),
  });
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();

  async function legacy(request: Request): Promise<Response> {
    const sessionId = request.headers.get('mcp-session-id');
    if (sessionId !== null) {
      const session = sessions.get(sessionId);
      if (session !== undefined) return session.handleRequest(request);
      return Response.json(
        {
          jsonrpc: '2.0',
          error: {
            code: -32001,
            message: 'Session not found: it ended, or another server holds it; initialize again.',
          },
          id: null,
        },
        { status: 404 },
      );
    }
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => void sessions.set(id, transport),
      onsessionclosed: (id) => void sessions.delete(id),
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    if (onerror !== undefined) transport.onerror = onerror;
    const server = await createServer({ era: 'legacy', requestInfo: request });
    await server.connect(transport);
    const response = await transport.handleRequest(request);
    // Anything but an `initialize` opens no session: nothing else will reach this instance.
    if (transport.sessionId === undefined) await server.close();
    return response;
  }

  return {
    async fetch(request) {
      return (await isLegacyRequest(request)) ? legacy(request) : modern.fetch(request);
    },
    async close() {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.all([modern.close(), ...open.map((transport) => transport.close())]);
    },
  };
}
