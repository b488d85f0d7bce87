/**
 * The pi extension inside the real `pi` command, offline: print mode (`-p`) and JSON mode, with
 * an extension that gives pi a scripted model. pi loads the extension as built JavaScript, the
 * way `pi install npm:ask-engine` loads the package's dist.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const piCli = join(root, 'node_modules/@mariozechner/pi-coding-agent/dist/cli.js');

let built: string;
let agentDir: string;

beforeAll(async () => {
  // Inside the project, so the bundle's imports resolve this project's node_modules.
  built = mkdtempSync(join(root, 'test/adapters/.pi-built-'));
  agentDir = mkdtempSync(join(tmpdir(), 'ask-engine-pi-agent-'));
  await build({
    entryPoints: [join(root, 'src/pi/index.ts')],
    outfile: join(built, 'ask-engine-pi.mjs'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    conditions: ['ask-engine:source'],
    logLevel: 'warning',
  });
});

afterAll(() => {
  rmSync(built, { recursive: true, force: true });
  rmSync(agentDir, { recursive: true, force: true });
});

// pi reads piped stdin as part of the prompt: give it an empty one.
function pi(...args: string[]) {
  const running = run(
    process.execPath,
    [
      piCli,
      '--no-session',
      '--provider',
      'offline',
      '--model',
      'scripted',
      '-e',
      join(root, 'test/adapters/fixtures/pi-offline-model.ts'),
      '-e',
      join(built, 'ask-engine-pi.mjs'),
      ...args,
    ],
    { cwd: agentDir, env: { ...process.env, PI_CODING_AGENT_DIR: agentDir } },
  );
  running.child.stdin?.end();
  return running;
}

describe('pi itself, without a UI', () => {
  it('print mode: ask_user answers unavailable and the model reads that nobody could be asked', async () => {
    const { stdout } = await pi('-p', 'Set up the database.');
    expect(stdout).toContain('ask_user said: Nobody could be asked');
    expect(stdout).toContain('without an interactive UI (print or JSON mode)');
    expect(stdout).toContain('Nothing was chosen');
  }, 60_000);

  it('JSON mode: the tool execution ends as an error result, never as an answer', async () => {
    const { stdout } = await pi('--mode', 'json', 'Set up the database.');
    const events = stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map(
        (line) =>
          JSON.parse(line) as {
            type: string;
            toolName?: string;
            isError?: boolean;
            result?: { content: { text: string }[] };
          },
      );
    const end = events.find(
      (event) => event.type === 'tool_execution_end' && event.toolName === 'ask_user',
    );
    expect(end?.isError).toBe(true);
    expect(end?.result?.content[0]?.text).toMatch(/^Nobody could be asked/);
  }, 60_000);
});
