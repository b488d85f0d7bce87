/**
 * `ask-engine/mcp`: ask an MCP client's user through elicitation. Needs
 * `@modelcontextprotocol/sdk`, an optional peer, imported only from this entry and the
 * `ask-engine mcp` command.
 *
 * @module ask-engine/mcp
 */
export {
  type AskUserMcpServerOptions,
  createAskUserMcpServer,
} from './ask-user-server.js';
export {
  createElicitationProvider,
  DECLINED,
  DISMISSED,
  type ElicitationProviderOptions,
  type ElicitationServer,
} from './elicitation-provider.js';
export { createElicitationSchemaValidator } from './schema-validator.js';
export {
  type AskTask,
  type AskTaskInputRequest,
  type AskTaskStatus,
  TASK_CANCELLED,
} from './task-state.js';
export {
  type AskTaskCreated,
  type AskUserTasks,
  type AskUserTasksOptions,
  createAskUserTasks,
} from './tasks.js';
