/**
 * `ask-engine/mcp`: ask an MCP client's user through elicitation. Needs
 * `@modelcontextprotocol/sdk` (a dependency of this package, imported only from this entry and
 * the `ask-engine mcp` command).
 */

export {
  createElicitationProvider,
  DECLINED,
  DISMISSED,
  type ElicitationProviderOptions,
  type ElicitationServer,
} from './elicitation-provider.js';
export { createElicitationSchemaValidator } from './schema-validator.js';
