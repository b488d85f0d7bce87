/** `ask-engine mcp`: an MCP stdio server whose `ask_user` tool asks the connected client's user. */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
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
import { createElicitationProvider } from '../mcp/elicitation-provider.js';
import { createElicitationSchemaValidator } from '../mcp/schema-validator.js';
import { createAskUserTool } from '../tool/tool.js';
import { parseDuration } from './duration.js';
import { EXIT } from './exit-codes.js';
import { packageVersion } from './package-version.js';
import { parseFlags } from './parse-flags.js';
import { UsageError } from './usage-error.js';

export const MCP_HELP = `Usage: ask-engine mcp [options]

Runs an MCP server on stdin/stdout with one tool, ask_user (the same input as ask-engine ask).
Each call asks the connected client's user with an elicitation form; the result tells the
agent what was chosen, typed or skipped, or that the user declined ("declined") or dismissed
("dismissed") the form: neither is ever an answer. A client without the elicitation capability
gets an "unavailable" result. The server runs until the client closes stdin (exit code 0) or
SIGINT/SIGTERM (130/143); asks still waiting then end "aborted".

Options:
  --timeout DURATION  give up on an ask after 1500 (ms), 30s, 2m or 1h (at least 1s) when the
                      model sets no timeout of its own (default: wait until the client replies)
  -h, --help          this help

MCP client configuration (the command and its arguments):
  { "mcpServers": { "ask-user": { "command": "npx", "args": ["ask-engine", "mcp", "--timeout", "10m"] } } }
`;

/**
 * Serves until the client disconnects (exit code 0) or SIGINT/SIGTERM (130/143), then aborts
 * the asks still waiting.
 *
 * @example
 * process.exitCode = await runMcpCommand(['--timeout', '10m']);
 */
export async function runMcpCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags('mcp', argv, {
    timeout: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    process.stdout.write(MCP_HELP);
    return EXIT.answered;
  }
  if (positionals.length > 0) {
    throw new UsageError(`mcp takes no arguments, got ${JSON.stringify(positionals[0])}.`);
  }
  const timeoutMs = values.timeout === undefined ? undefined : parseDuration(values.timeout);

  const { mcp, service } = createAskUserMcpServer(timeoutMs === undefined ? {} : { timeoutMs });
  const stopped = new Promise<{ reason: string; code: number }>((resolve) => {
    const end = (reason: string, code: number) => () => resolve({ reason, code });
    mcp.server.onclose = end('The MCP client disconnected.', EXIT.answered);
    process.stdin.once('end', end('The MCP client closed stdin.', EXIT.answered));
    process.once('SIGINT', end('Interrupted (SIGINT).', EXIT.interrupted));
    process.once('SIGTERM', end('Terminated (SIGTERM).', EXIT.terminated));
  });
  await mcp.connect(new StdioServerTransport());
  const { reason, code } = await stopped;
  await service.drain(new Error(reason));
  await service.close();
  await mcp.close();
  return code;
}

/**
 * The MCP server `ask-engine mcp` runs, before it is connected: one tool, `ask_user`, asking
 * the connected client's user through the elicitation provider. Each elicitation is related to
 * the `tools/call` that asked, so it travels with that call on any transport.
 */
export function createAskUserMcpServer(options: { timeoutMs?: number } = {}): {
  mcp: McpServer;
  service: InteractionService;
} {
  const mcp = new McpServer(
    { name: 'ask-engine', version: packageVersion() },
    { capabilities: { tools: {} }, jsonSchemaValidator: createElicitationSchemaValidator() },
  );
  // The ask's tool call id to the MCP request id of its `tools/call`, while it runs.
  const calls = new Map<string, RequestId>();
  const service = createInteractionService();
  service.registerProvider(
    createElicitationProvider(mcp.server, {
      relatedRequestId: (ctx) =>
        ctx.toolCallId === undefined ? undefined : calls.get(ctx.toolCallId),
    }),
  );
  const tool = createAskUserTool(service, options);
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
