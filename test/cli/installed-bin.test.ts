/**
 * The `ask-engine` command as a user gets it: `npm pack`, installed into a fresh project, run
 * through `node_modules/.bin` (a symlink) and `npx`.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasTmux, killServer, TmuxCli } from './tmux-session.js';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'ask-engine-installed-'));
const project = join(dir, 'project');
const bin = join(project, 'node_modules', '.bin', 'ask-engine');

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
    // The package exactly as `npm pack` makes it, built into a staging copy so the build never
    // races another test's build of dist/. `--noCheck`: the same output, without checking the
    // types again (npm run typecheck does that).
    const stage = join(dir, 'stage');
    await run(
      process.execPath,
      [
        join(ROOT, 'node_modules/typescript/bin/tsc'),
        '-p',
        join(ROOT, 'tsconfig.build.json'),
        '--noCheck',
        '--outDir',
        join(stage, 'dist'),
      ],
      { cwd: ROOT },
    );
    for (const file of ['package.json', 'README.md', 'LICENSE']) {
      copyFileSync(join(ROOT, file), join(stage, file));
    }
    const packed = await run(
      'npm',
      ['pack', '--ignore-scripts', '--json', '--pack-destination', dir],
      {
        cwd: stage,
      },
    );
    const tarball = join(dir, JSON.parse(packed.stdout)[0].filename);
    // A fresh project. Offline: the package's runtime dependencies are taken from this
    // checkout's node_modules (as file: overrides), so the test needs no registry.
    const { dependencies } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    mkdirSync(project);
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({
        name: 'fresh-project',
        version: '1.0.0',
        private: true,
        dependencies: { 'ask-engine': `file:${tarball}` },
        overrides: Object.fromEntries(
          Object.keys(dependencies).map((name) => [
            name,
            `file:${join(ROOT, 'node_modules', name)}`,
          ]),
        ),
      }),
    );
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], {
      cwd: project,
    });
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
});
