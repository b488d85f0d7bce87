/** Runs the CLI with no controlling terminal (a new session, piped stdio), as CI or a daemon would. */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { cliProgram } from './cli-program.js';

const ROOT = resolve(import.meta.dirname, '../..');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export async function runCli(
  args: string[],
  options: { stdin?: string; env?: Record<string, string> } = {},
): Promise<CliResult> {
  const [node, main] = await cliProgram();
  const started = Date.now();
  const child = spawn(node, [main, ...args], {
    cwd: ROOT,
    // detached: setsid, so /dev/tty cannot be opened either: truly no terminal.
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: {
      ...process.env,
      // A file that is not there (in a folder never made): the user's own settings stay unread.
      ASK_ENGINE_SETTINGS: join(tmpdir(), `ask-engine-no-settings-${randomUUID()}`, 'none.json'),
      ...options.env,
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  child.stdin.end(options.stdin ?? '');
  return new Promise((done) => {
    child.on('close', (code) => done({ code, stdout, stderr, ms: Date.now() - started }));
  });
}
