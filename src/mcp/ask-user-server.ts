/** The `ask_user` tool served over MCP, to clients of both protocol eras: what `ask-engine mcp` runs. */
import { randomBytes, randomUUID } from 'node:crypto';
import {
  type CallToolResult,
  type InputRequiredResult,
  type McpRequestContext,
  McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type Server,
  type ServerContext,
  type Tool,
  type Transport,
} from '@modelcontextprotocol/server';
import { type StdioServerHandle, serveStdio } from '@modelcontextprotocol/server/stdio';
import type { Clock } from '../engine/clock.js';
import type { AskProvider } from '../engine/provider.js';
import { createInteractionService } from '../engine/service.js';
import type { InteractionService } from '../engine/service-contract.js';
import { describe } from '../rules/describe.js';
import { type AskUserTool, createAskUserTool } from '../tool/tool.js';
import type { AskUserToolResult } from '../tool/tool-result.js';
import { AppAnswerArgumentsError } from './apps-answer.js';
import { type AskUserApp, createAskUserApp } from './apps-form.js';
import { chooseAskPath, readAskUserCall } from './ask-path.js';
import { type CallProviders, createCallProviders, unavailableProvider } from './call-providers.js';
import { createElicitationProvider } from './elicitation-provider.js';
import { type AskUserHttpEndpoint, createAskUserHttpEndpoint } from './http-endpoint.js';
import {
  answerInputRequired,
  askByInputRequired,
  type InputRequiredServing,
  toolResult,
} from './input-required.js';
import { createRequestStateSeal } from './request-state.js';
import { createElicitationSchemaValidator } from './schema-validator.js';

/** Options of `createAskUserMcpServer`. */
export interface AskUserMcpServerOptions {
  /** The service that asks; a new one when left out. The server registers its provider on it. */
  service?: InteractionService;
  /** The server's name and version in the MCP handshake (default `ask-engine`, `0.0.0`). */
  name?: string;
  version?: string;
  /** Milliseconds an ask waits when the model sets no timeout (at least `MIN_TIMEOUT_MS`). */
  timeoutMs?: number;
  /**
   * The answer page's link for an ask (e.g. the web answer server's `linkFor`), for URL-mode
   * elicitation on either era: used when the client declares URL elicitation and either
   * cannot show forms or the ask has a question a flat form expresses poorly.
   */
  urlFor?(askId: string): string | undefined | Promise<string | undefined>;
  /**
   * The key that seals a 2026-era `requestState` and signs the MCP Apps form's answer tokens
   * (at least 32 bytes). Every process a client's retry or a form's answer may reach needs the
   * same one; left out, a random key of this server's, so they are answered only here.
   */
  secret?: string | Uint8Array;
  /** How many forms one ask gets when replies break a rule (either era); default 3. */
  maxRounds?: number;
  /**
   * How long a 2026-era `requestState` lasts past the ask's deadline, or past the call for an
   * ask without one; default 24 hours. Past the deadline it only reads the outcome.
   */
  requestStateTtlMs?: number;
  /** The service's clock, when it is not the system clock (deadlines and `requestState` expiry). */
  clock?: Pick<Clock, 'now'>;
}

/** The `ask_user` MCP server: its service, a factory of MCP server instances, and `connect`. */
export interface AskUserMcpServer {
  /** The service every instance asks through (given, or created). */
  readonly service: InteractionService;
  /**
   * A new MCP server instance with the `ask_user` tool, for one connection or one HTTP request:
   * the factory the SDK's serving entries take (`serveStdio`, `createMcpHandler`), for both eras.
   */
  createServer(context?: McpRequestContext): McpServer;
  /**
   * Serves one connection over `transport` (stdio, or one end of an in-memory pair), to a
   * client of either era: the client's opening chooses it (`serveStdio` with this factory).
   */
  connect(transport: Transport): StdioServerHandle;
  /**
   * One Streamable HTTP endpoint (`fetch`) for clients of both eras: 2026-07-28 requests one
   * instance each (any process with the same store and `secret` serves the retry), 2025-era
   * clients on a session of this process. `onerror` hears what the SDK reports out of band.
   */
  createHttpEndpoint(onerror?: (error: Error) => void): AskUserHttpEndpoint;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The MCP server `ask-engine mcp` serves: one tool, `ask_user`, asking the connected client's
 * user. A 2025-era client is asked with `elicitation/create` while the call stays open; a
 * 2026-07-28 client gets `input_required` (the form, or a link to the answer page) with a sealed
 * `requestState`, and its retry settles the ask through the service, on any process sharing
 * the store and the `secret`.
 *
 * @example
 * const server = createAskUserMcpServer({ name: 'my-agent', version: '1.0.0' });
 * server.connect(new StdioServerTransport());
 * // Streamable HTTP, both eras: const { fetch } = server.createHttpEndpoint();
 */
export function createAskUserMcpServer(options: AskUserMcpServerOptions = {}): AskUserMcpServer {
  const { urlFor, maxRounds = 3, requestStateTtlMs = DAY_MS, clock } = options;
  if (urlFor !== undefined && typeof urlFor !== 'function') {
    throw new TypeError(
      `Expected \`urlFor\` to be a function (askId) => string | undefined, got ${describe(urlFor)}.`,
    );
  }
  if (!Number.isInteger(maxRounds) || maxRounds < 1) {
    throw new TypeError(
      `Expected \`maxRounds\` to be an integer from 1 and up, got ${describe(maxRounds)}.`,
    );
  }
  if (!Number.isSafeInteger(requestStateTtlMs) || requestStateTtlMs < 1) {
    throw new TypeError(
      `Expected \`requestStateTtlMs\` to be a positive integer of milliseconds, got ${describe(requestStateTtlMs)}.`,
    );
  }
  const service = options.service ?? createInteractionService();
  const secret = options.secret ?? randomBytes(32);
  const app = createAskUserApp(service, { secret, ...(clock === undefined ? {} : { clock }) });
  const providers = createCallProviders();
  service.registerProvider(providers.provider);
  const tool = createAskUserTool(
    service,
    options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs },
  );
  const validator = createElicitationSchemaValidator();
  const serving: InputRequiredServing = {
    service,
    tool,
    providers,
    seal: createRequestStateSeal(secret),
    urlFor,
    maxRounds,
    timeoutMs: options.timeoutMs,
    stateTtlMs: requestStateTtlMs,
    now: clock === undefined ? Date.now : () => clock.now(),
  };
  // The tool's TypeBox schema is JSON Schema already; the copy drops TypeBox's symbol keys.
  const listed: Tool = {
    name: tool.name,
    title: tool.label,
    description: tool.description,
    inputSchema: JSON.parse(JSON.stringify(tool.parameters)) as Tool['inputSchema'],
  };

  const createServer = (context?: McpRequestContext): McpServer => {
    const mcp = new McpServer(
      { name: options.name ?? 'ask-engine', version: options.version ?? '0.0.0' },
      { capabilities: { tools: {}, resources: {} }, jsonSchemaValidator: validator },
    );
    const { server } = mcp;
    // A host that gets the MCP Apps form sees ask_user point at it, and the form's answer tool.
    server.setRequestHandler('tools/list', (_request, ctx) =>
      chooseAskPath(readAskUserCall(server, ctx), { available: false }).kind === 'app'
        ? { tools: [{ ...listed, _meta: app.toolMeta }, app.answerTool] }
        : { tools: [listed] },
    );
    server.setRequestHandler('resources/list', () => ({ resources: [app.resource] }));
    server.setRequestHandler('resources/read', (request) => {
      if (request.params.uri !== app.resource.uri) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Unknown resource ${JSON.stringify(request.params.uri)}; this server has "${app.resource.uri}".`,
        );
      }
      return app.read();
    });
    server.setRequestHandler('tools/call', (request, ctx) => {
      if (request.params.name === app.answerTool.name) {
        return answerFromForm(app, request.params.arguments);
      }
      if (request.params.name !== tool.name) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Unknown tool ${JSON.stringify(request.params.name)}; this server has "${tool.name}".`,
        );
      }
      return serveAskUser(server, ctx, request.params.arguments ?? {});
    });
    if (context?.era !== 'modern') {
      // The SDK's own client ignores a cancellation of request id 0 (typescript-sdk issue
      // #2283), and a 2025-era server's first request gets id 0: spend it on a ping, so that
      // an elicitation the ask withdraws is always withdrawn on such clients too.
      server.oninitialized = () => {
        server.ping().catch((error: unknown) => server.onerror?.(error as Error));
      };
    }
    return mcp;
  };

  /** One `ask_user` call: the path for this client is chosen here, and only here. */
  function serveAskUser(
    server: Server,
    ctx: ServerContext,
    args: unknown,
  ): Promise<CallToolResult | InputRequiredResult> {
    const call = readAskUserCall(server, ctx);
    const path = chooseAskPath(call, { available: urlFor !== undefined });
    switch (path.kind) {
      case 'app':
        return executeTool(tool, providers, app.provider, args, ctx.mcpReq.signal).then(app.result);
      case 'elicitation':
        return runTool(
          tool,
          providers,
          createElicitationProvider(server, {
            relatedRequestId: () => ctx.mcpReq.id,
            maxAttempts: maxRounds,
            ...(urlFor === undefined ? {} : { urlFor }),
            ...(clock === undefined ? {} : { clock }),
          }),
          args,
          ctx.mcpReq.signal,
        );
      case 'unavailable':
        return runTool(tool, providers, unavailableProvider(path.message), args, ctx.mcpReq.signal);
      case 'input-required': {
        const mrtr = {
          modes: path.modes,
          clientName: call.clientName,
          requestId: ctx.mcpReq.id,
          signal: ctx.mcpReq.signal,
        };
        return path.retry === undefined
          ? askByInputRequired(serving, mrtr, args)
          : answerInputRequired(serving, mrtr, args, path.retry, ctx.mcpReq.inputResponses);
      }
    }
  }

  return {
    service,
    createServer,
    connect: (transport) => serveStdio(createServer, { transport }),
    createHttpEndpoint: (onerror) => createAskUserHttpEndpoint(createServer, onerror),
  };
}

/** Runs the tool with `provider` answering its ask; `signal` (the client cancelling) aborts it. */
async function runTool(
  tool: AskUserTool,
  providers: CallProviders,
  provider: AskProvider,
  args: unknown,
  signal: AbortSignal,
): Promise<CallToolResult> {
  return toolResult(await executeTool(tool, providers, provider, args, signal));
}

/** The tool's own result for one call, with `provider` answering its ask. */
function executeTool(
  tool: AskUserTool,
  providers: CallProviders,
  provider: AskProvider,
  args: unknown,
  signal: AbortSignal,
): Promise<AskUserToolResult> {
  const toolCallId = `mcp-${randomUUID()}`;
  return providers.during(toolCallId, provider, () => tool.execute(toolCallId, args, signal));
}

/** `ask_user_answer`: arguments that are not a form's answer are the caller's error. */
async function answerFromForm(app: AskUserApp, args: unknown): Promise<CallToolResult> {
  try {
    return await app.answer(args);
  } catch (error) {
    if (!(error instanceof AppAnswerArgumentsError)) throw error;
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, error.message);
  }
}
