/** The `ask_user` tool served over MCP: the server `ask-engine mcp` runs, for any transport. */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type RequestId,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { createInteractionService } from '../engine/service.js';
import type { InteractionService } from '../engine/service-contract.js';
import { createAskUserTool } from '../tool/tool.js';
import { createElicitationProvider } from './elicitation-provider.js';
import { createElicitationSchemaValidator } from './schema-validator.js';

export interface AskUserMcpServerOptions {
  /** The service that asks; a new one when left out. Its provider becomes the elicitation one. */
  service?: InteractionService;
  /** The server's name and version in the MCP handshake (default `ask-engine`, `0.0.0`). */
  name?: string;
  version?: string;
  /** Milliseconds an ask waits when the model sets no timeout (at least `MIN_TIMEOUT_MS`). */
  timeoutMs?: number;
}

/**
 * An MCP server, before it is connected, with one tool, `ask_user`, asking the connected
 * client's user through the elicitation provider: what `ask-engine mcp` serves on stdio.
 * Each elicitation is related to the `tools/call` that asked, so it travels with that call on
 * any transport. Connect it to any transport (`await mcp.connect(transport)`).
 *
 * @example
 * const { mcp, service } = createAskUserMcpServer({ name: 'my-agent', version: '1.0.0' });
 * await mcp.connect(new StdioServerTransport());
 */
export function createAskUserMcpServer(options: AskUserMcpServerOptions = {}): {
  mcp: McpServer;
  service: InteractionService;
} {
  const mcp = new McpServer(
    { name: options.name ?? 'ask-engine', version: options.version ?? '0.0.0' },
    { capabilities: { tools: {} }, jsonSchemaValidator: createElicitationSchemaValidator() },
  );
  // The ask's tool call id to the MCP request id of its `tools/call`, while it runs.
  const calls = new Map<string, RequestId>();
  const service = options.service ?? createInteractionService();
  service.registerProvider(
    createElicitationProvider(mcp.server, {
      relatedRequestId: (ctx) =>
        ctx.toolCallId === undefined ? undefined : calls.get(ctx.toolCallId),
    }),
  );
  const tool = createAskUserTool(
    service,
    options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs },
  );
  // The tool's TypeBox schema is JSON Schema already; the copy drops TypeBox's symbol keys.
  const listed: Tool = {
    name: tool.name,
    title: tool.label,
    description: tool.description,
    inputSchema: JSON.parse(JSON.stringify(tool.parameters)) as Tool['inputSchema'],
  };
  mcp.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [listed] }));
  mcp.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    if (request.params.name !== tool.name) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Unknown tool ${JSON.stringify(request.params.name)}; this server has "${tool.name}".`,
      );
    }
    const toolCallId = `mcp-${String(extra.requestId)}`;
    calls.set(toolCallId, extra.requestId);
    try {
      // `extra.signal` aborts when the client cancels the call: the ask ends `aborted`.
      const result = await tool.execute(toolCallId, request.params.arguments ?? {}, extra.signal);
      return {
        content: result.content,
        ...(result.isError === true ? { isError: true } : {}),
      } satisfies CallToolResult;
    } finally {
      calls.delete(toolCallId);
    }
  });
  // The SDK's own client ignores a cancellation of request id 0 (typescript-sdk issue #2283),
  // and the server's first request gets id 0: spend it on a ping, so that an elicitation the
  // ask withdraws is always withdrawn on such clients too.
  mcp.server.oninitialized = () => {
    mcp.server.ping().catch((error: unknown) => mcp.server.onerror?.(error as Error));
  };
  return { mcp, service };
}
