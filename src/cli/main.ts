#!/usr/bin/env node
/** The `ask-engine` command line: one entry per command in `COMMANDS`. */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SettingsFileError } from '../terminal/settings-file.js';
import { runAskCommand } from './ask-command.js';
import { runDemoCommand } from './demo-command.js';
import { EXIT } from './exit-codes.js';
import { MAIN_HELP } from './help.js';
import { importOptionalPackage, MissingPackage } from './optional-package.js';
import { packageVersion } from './package-version.js';
import { runResumeCommand } from './resume-command.js';
import { sentence, toStderrText } from './stderr-text.js';
import { StoreProblem } from './store-problem.js';
import { UsageError } from './usage-error.js';

/** Every command: its name on the command line and the function that runs it. */
const COMMANDS: Record<string, (argv: string[]) => Promise<number>> = {
  ask: runAskCommand,
  resume: runResumeCommand,
  demo: runDemoCommand,
  // Loaded on demand: only this command needs SQLite and the web server.
  serve: async (argv) => (await import('./serve-command.js')).runServeCommand(argv),
  // An operator's commands over a store, loaded on demand.
  list: async (argv) => (await import('./inspect-commands.js')).runListCommand(argv),
  show: async (argv) => (await import('./inspect-commands.js')).runShowCommand(argv),
  export: async (argv) => (await import('./inspect-commands.js')).runExportCommand(argv),
  answer: async (argv) => (await import('./settle-commands.js')).runAnswerCommand(argv),
  cancel: async (argv) => (await import('./settle-commands.js')).runCancelCommand(argv),
  // Loaded on demand: a Claude Code PreToolUse command hook over a store.
  'claude-hook': async (argv) =>
    (await import('./claude-hook-command.js')).runClaudeHookCommand(argv),
  // Loaded on demand: only this command needs the MCP SDK, an optional peer.
  mcp: async (argv) =>
    (
      await importOptionalPackage(
        '@modelcontextprotocol/server',
        'ask-engine mcp',
        () => import('./mcp-command.js'),
      )
    ).runMcpCommand(argv),
};

/**
 * Runs one command and returns its exit code. Usage mistakes (unknown flags, bad JSON, a bad
 * preference or settings file) are one line on stderr, pointing at the command's help, with
 * exit code 2; a store that cannot be opened or used is one line on stderr with exit code 5,
 * and so is an optional package a command needs and cannot load, with exit code 6. Help asked
 * for goes to stdout (exit 0); no command at all prints the help on stderr as a usage mistake
 * (exit 2).
 *
 * @example
 * process.exitCode = await main(['ask', '{"question":"Deploy now?","options":["Yes","No"]}']);
 */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined) {
      process.stderr.write(MAIN_HELP);
      return EXIT.invalidInput;
    }
    if (command === 'help' || command === '-h' || command === '--help') {
      process.stdout.write(MAIN_HELP);
      return EXIT.answered;
    }
    if (command === '--version' || command === '-V') {
      process.stdout.write(`${packageVersion()}\n`);
      return EXIT.answered;
    }
    const run = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
    if (run === undefined && command.startsWith('-')) {
      throw new UsageError(
        `unknown option ${command}; give a command first (${Object.keys(COMMANDS).join(', ')}), or --help or --version.`,
      );
    }
    if (run === undefined) {
      throw new UsageError(
        `Unknown command ${JSON.stringify(command)}; use one of: ${Object.keys(COMMANDS).join(', ')}.`,
      );
    }
    return await run(rest);
  } catch (error) {
    if (error instanceof StoreProblem) {
      process.stderr.write(toStderrText(`ask-engine: ${sentence(error.message)}\n`));
      return EXIT.store;
    }
    if (error instanceof MissingPackage) {
      process.stderr.write(toStderrText(`ask-engine: ${sentence(error.message)}\n`));
      return EXIT.missingPackage;
    }
    if (!isUsageProblem(error)) throw error;
    // One line, one pointer: the help of the command that was run, else the main help.
    const help = Object.hasOwn(COMMANDS, command ?? '')
      ? `ask-engine ${command} --help`
      : 'ask-engine --help';
    process.stderr.write(toStderrText(`ask-engine: ${sentence(error.message)} See ${help}.\n`));
    return EXIT.invalidInput;
  }
}

/** A mistake the person can fix, told by its type: never by reading the message. */
function isUsageProblem(error: unknown): error is Error {
  if (error instanceof UsageError || error instanceof SettingsFileError) return true;
  // node:util parseArgs marks its errors with a code (ERR_PARSE_ARGS_UNKNOWN_OPTION, ...).
  const code = (error as { code?: unknown } | null)?.code;
  return (
    error instanceof TypeError && typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')
  );
}

/**
 * Whether this module is the program node was started with. An installed bin is a symlink
 * (`node_modules/.bin/ask-engine`), so both paths are compared after resolving links.
 */
function isProgramEntry(moduleUrl: string): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(moduleUrl));
  } catch {
    return false;
  }
}

// Run only as the program, not when a test imports `main`.
if (isProgramEntry(import.meta.url)) {
  const code = await main(process.argv.slice(2));
  // Exit once stdout is flushed: a controlling-terminal stream must not keep the process alive.
  process.stdout.write('', () => process.exit(code));
}
