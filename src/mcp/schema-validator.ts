/** A JSON Schema validator for an MCP server that asks through elicitation: one compile per form, nothing kept. */
import type { jsonSchemaValidator } from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';

/**
 * The SDK checks every accepted elicitation reply against the form's schema with one shared
 * Ajv instance, which keeps every schema it ever compiled (typescript-sdk issue #2605). Every
 * ask's form is a new schema, so a long-running server grows by one compiled schema per ask.
 * This validator compiles each schema in an Ajv instance of its own that is dropped with it:
 * the same checks, nothing retained.
 *
 * @example
 * const mcp = new McpServer(info, { jsonSchemaValidator: createElicitationSchemaValidator() });
 * service.registerProvider(createElicitationProvider(mcp.server));
 */
export function createElicitationSchemaValidator(): jsonSchemaValidator {
  return {
    getValidator: (schema) => new AjvJsonSchemaValidator().getValidator(schema),
  };
}
