/**
 * The `ask-engine` command as a user gets it: `npm pack`, installed into a fresh project
 * (test/support/packed-package.ts), run through `node_modules/.bin` (a symlink) and `npx`.
 */
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packedPackage, TERMINAL_UI } from '../support/packed-package.js';
import { hasTmux, killServer, TmuxCli } from './tmux-session.js';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'ask-engine-installed-'));
/** A fresh project with the packed package installed (shared with test/package.test.ts). */
let project: string;
let bin: string;
/** The same package installed alone, without the optional peers. */
let engineOnly: string;

/** Runs the installed command with no terminal at all (a new session, piped stdio). */
async function installed(
  file: string,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(file, args, {
      cwd: project,
      env: { ...process.env, ASK_ENGINE_SETTINGS: join(dir, 'no-settings.json') },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('the installed ask-engine command', () => {
  beforeAll(async () => {
    ({ project, engineOnly } = await packedPackage());
    bin = join(project, 'node_modules', '.bin', 'ask-engine');
  }, 180_000);

  afterAll(() => {
    killServer();
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints its help through node_modules/.bin, a symlink', async () => {
    const result = await installed(bin, ['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('ask-engine ask [JSON | -]');
  });

  it('prints its help through npx', async () => {
    const result = await installed('npx', ['--no-install', 'ask-engine', 'ask', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: ask-engine ask');
  });

  it('never exits 0 when nobody answered: no terminal means cancelled / unavailable, exit 1', async () => {
    const result = await installed('setsid', [
      '--wait',
      bin,
      'ask',
      '{"question":"Deploy?","options":["Yes","No"]}',
    ]);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'cancelled', reason: 'unavailable' });
  });

  it.skipIf(!hasTmux())('asks a person in a terminal and prints the answer', async () => {
    const cli = new TmuxCli({
      program: [bin],
      cwd: project,
      input: { question: 'Deploy?', options: ['Yes', 'No'] },
    });
    try {
      await cli.waitFor('Deploy?');
      cli.keys('Down', 'Enter');
      const { code, stdout } = await cli.result();
      expect(code).toBe(0);
      expect(JSON.parse(stdout)).toEqual({
        askId: expect.any(String),
        status: 'answered',
        answers: [{ questionId: 'q1', response: { kind: 'selection', selections: ['No'] } }],
        answeredBy: { recipient: userInfo().username, channel: 'terminal' },
      });
    } finally {
      cli.kill();
    }
  });
  it('without the terminal UI installed, names the package to install (exit 6)', async () => {
    const result = await installed(join(engineOnly, 'node_modules', '.bin', 'ask-engine'), [
      'ask',
      '{"question":"Deploy?","options":["Yes","No"]}',
    ]);
    expect(result.code).toBe(6);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^ask-engine: the terminal UI needs the @mariozechner\/pi-tui package, which is not installed; install it next to ask-engine \(npm install @mariozechner\/pi-tui@\^[\d.]+\)\.\n$/,
    );
  });

  it('without the MCP SDK installed, mcp names the package to install (exit 6)', async () => {
    const result = await installed(join(engineOnly, 'node_modules', '.bin', 'ask-engine'), ['mcp']);
    expect(result.code).toBe(6);
    expect(result.stderr).toMatch(
      /needs the @modelcontextprotocol\/server package, which is not installed/,
    );
  });

  it('without a store driver installed, names it with the same exit code 6 as every optional package', async () => {
    const engineBin = join(engineOnly, 'node_modules', '.bin', 'ask-engine');
    const file = join(dir, 'existing.db');
    writeFileSync(file, '');
    const sqlite = await installed(engineBin, ['list', '--store', file]);
    expect(sqlite.stdout).toBe('');
    expect(sqlite.stderr).toMatch(
      /^ask-engine: the SQLite store needs the better-sqlite3 package, which is not installed; install it next to ask-engine \(npm install better-sqlite3@\^[\d.]+\)\.\n$/,
    );
    expect(sqlite.code).toBe(6);
    const postgres = await installed(engineBin, ['list', '--store', 'postgres://127.0.0.1:1/app']);
    expect(postgres.stderr).toMatch(/^ask-engine: the PostgreSQL store needs the postgres package/);
    expect(postgres.code).toBe(6);
  });

  it('installs the engine alone in at most 15 MB of node_modules, without the terminal UI or the MCP SDK', () => {
    const packages = installedClosure(engineOnly, 'ask-engine');
    const names = [...packages.keys()];
    expect(names).toEqual(expect.arrayContaining(['ask-engine', 'xstate', '@sinclair/typebox']));
    for (const heavy of [
      TERMINAL_UI,
      'koffi',
      '@modelcontextprotocol/server',
      '@modelcontextprotocol/sdk',
      'zod',
      'express',
    ]) {
      expect(names).not.toContain(heavy);
    }
    const bytes = [...packages.values()].reduce((sum, folder) => sum + folderBytes(folder), 0);
    // Shown in the test output, so the README's figure can be checked against it.
    console.log(
      `engine-only install: ${(bytes / 1e6).toFixed(1)} MB in ${packages.size} packages (${names.join(', ')})`,
    );
    expect(bytes).toBeLessThanOrEqual(15e6);
  });
});

/**
 * Every package `name` needs at run time in the installed project, found as Node finds it
 * (node_modules folders up from each package's real path), by name → real folder. Peers are a
 * project's own choice; they are not followed.
 */
function installedClosure(projectFolder: string, name: string): Map<string, string> {
  const found = new Map<string, string>();
  const visit = (packageName: string, from: string) => {
    if (found.has(packageName)) return;
    const folder = locatePackage(packageName, from);
    found.set(packageName, folder);
    const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
    };
    for (const dependency of Object.keys(manifest.dependencies ?? {})) visit(dependency, folder);
  };
  visit(name, projectFolder);
  return found;
}

function locatePackage(packageName: string, from: string): string {
  for (let folder = from; ; folder = dirname(folder)) {
    const candidate = join(folder, 'node_modules', packageName);
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
    if (dirname(folder) === folder) {
      throw new Error(`${packageName} is not installed where ${from} can load it.`);
    }
  }
}

/** The bytes of a package's own files: nested node_modules are packages of their own. */
function folderBytes(folder: string): number {
  let bytes = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue;
    const path = join(folder, entry.name);
    if (entry.isDirectory()) bytes += folderBytes(path);
    else if (entry.isFile()) bytes += statSync(path).size;
  }
  return bytes;
}
