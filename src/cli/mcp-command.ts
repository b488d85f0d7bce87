/** `ask-engine mcp`: an MCP stdio server whose `ask_user` tool asks the connected client's user. */
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { createAskUserMcpServer } from '../mcp/ask-user-server.js';
import { parseDuration } from './duration.js';
import { EXIT } from './exit-codes.js';
import { packageVersion } from './package-version.js';
import { parseFlags } from './parse-flags.js';
import { UsageError } from './usage-error.js';

export const MCP_HELP = `Usage: ask-engine mcp [options]

Runs an MCP server on stdin/stdout with one tool, ask_user (the same input as ask-engine ask),
for clients of the 2025 protocol (elicitation/create) and of 2026-07-28 (input_required).
Each call asks the connected client's user with an elicitation form; the result tells the
agent what was chosen, typed or skipped, or that the user declined ("declined") or dismissed
("dismissed") the form: neither is ever an answer. A client without the elicitation capability
gets an "unavailable" result. The server runs until the client closes stdin (exit code 0) or
SIGINT/SIGTERM (130/143); asks still waiting then end "aborted".

Options:
  --timeout DURATION  give up on an ask after 1500 (ms), 30s, 2m or 1h (1s to 876000h) when the
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
  const timeoutMs =
    values.timeout === undefined ? undefined : parseDuration('--timeout', values.timeout);

  const { connect, service } = createAskUserMcpServer({
    version: packageVersion(),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });
  const transport = new StdioServerTransport();
  const stopped = new Promise<{ reason: string; code: number }>((resolve) => {
    const end = (reason: string, code: number) => () => resolve({ reason, code });
    process.stdin.once('end', end('The MCP client closed stdin.', EXIT.answered));
    process.stdin.once('close', end('The MCP client disconnected.', EXIT.answered));
    process.once('SIGINT', end('Interrupted (SIGINT).', EXIT.interrupted));
    process.once('SIGTERM', end('Terminated (SIGTERM).', EXIT.terminated));
  });
  const connection = connect(transport);
  const { reason, code } = await stopped;
  await service.drain(new Error(reason));
  await service.close();
  await connection.close();
  return code;
}
