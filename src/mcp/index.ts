/**
 * `ask-engine/mcp`: ask an MCP client's user, on both protocol eras (2025: `elicitation/create`;
 * 2026-07-28: `input_required`). Needs `@modelcontextprotocol/server` (the MCP TypeScript SDK
 * v2), an optional peer, imported only from this entry and the `ask-engine mcp` command.
 *
 * @module ask-engine/mcp
 */
export {
  type AskUserMcpServer,
  type AskUserMcpServerOptions,
  createAskUserMcpServer,
} from './ask-user-server.js';
export {
  createElicitationProvider,
  type ElicitationProviderOptions,
  type ElicitationServer,
} from './elicitation-provider.js';
export { DECLINED, DISMISSED } from './elicitation-rules.js';
export type { AskUserHttpEndpoint } from './http-endpoint.js';
export { createElicitationSchemaValidator } from './schema-validator.js';
