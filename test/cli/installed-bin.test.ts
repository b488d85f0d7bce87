/**
 * The `ask-engine` command as a user gets it: `npm pack`, installed into a fresh project
 * (test/support/packed-package.ts), run through `node_modules/.bin` (a symlink) and `npx`.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packedPackage } from '../support/packed-package.js';
import { hasTmux, killServer, TmuxCli } from './tmux-session.js';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'ask-engine-installed-'));
/** A fresh project with the packed package installed (shared with test/package.test.ts). */
let project: string;
let bin: string;

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
    ({ project } = await packedPackage());
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
      });
    } finally {
      cli.kill();
    }
  });
});
