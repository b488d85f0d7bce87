#!/usr/bin/env node
/** The `ask-engine` command line: `ask` and `demo`. */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runAskCommand } from './ask-command.js';
import { runDemoCommand } from './demo-command.js';
import { EXIT } from './exit-codes.js';
import { MAIN_HELP } from './help.js';
import { runResumeCommand } from './resume-command.js';
import { UsageError } from './usage-error.js';

/**
 * Runs one command and returns its exit code. Usage mistakes (unknown flags, bad JSON, a bad
 * preference or settings file) are printed on stderr with exit code 2.
 *
 * @example
 * process.exitCode = await main(['ask', '{"question":"Deploy now?","options":["Yes","No"]}']);
 */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'ask':
        return await runAskCommand(rest);
      case 'demo':
        return await runDemoCommand(rest);
      case 'serve': // loaded on demand: only this command needs SQLite and the web server
        return await (await import('./serve-command.js')).runServeCommand(rest);
      case 'mcp': // loaded on demand: only this command needs the MCP SDK
        return await (await import('./mcp-command.js')).runMcpCommand(rest);
      case 'resume':
        return await runResumeCommand(rest);
      case undefined:
      case 'help':
      case '-h':
      case '--help':
        process.stdout.write(MAIN_HELP);
        return command === undefined ? EXIT.invalidInput : EXIT.answered;
      default:
        throw new UsageError(
          `Unknown command ${JSON.stringify(command)}; use "ask", "resume" or "demo".`,
        );
    }
  } catch (error) {
    if (!isUsageProblem(error)) throw error;
    process.stderr.write(`ask-engine: ${(error as Error).message}\nSee ask-engine --help.\n`);
    return EXIT.invalidInput;
  }
}

function isUsageProblem(error: unknown): boolean {
  if (error instanceof UsageError || error instanceof TypeError) return true;
  const code = (error as { code?: unknown } | null)?.code;
  // parseArgs errors, and the settings file's errors (which name the file and the key).
  return (
    (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) ||
    (error instanceof Error && error.message.includes('settings file'))
  );
}

// Run only as the program, not when a test imports `main`.
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const code = await main(process.argv.slice(2));
  // Exit once stdout is flushed: a controlling-terminal stream must not keep the process alive.
  process.stdout.write('', () => process.exit(code));
}
