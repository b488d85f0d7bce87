/** `npm run setup`: installs what the tests drive when missing, says so, and otherwise does nothing. */
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const SCRIPT = resolve(import.meta.dirname, '../../scripts/setup.sh');

/** The folders `fakeTools` made, removed after each test. */
const made: string[] = [];

/** A PATH whose apt-get, sudo and id only record how they were called. */
function fakeTools(): { dir: string; log: string } {
  const dir = mkdtempSync(join(tmpdir(), 'ask-engine-setup-'));
  made.push(dir);
  const log = join(dir, 'calls.log');
  for (const tool of ['apt-get', 'sudo']) {
    const file = join(dir, tool);
    writeFileSync(
      file,
      tool === 'sudo'
        ? `#!/bin/sh\necho "sudo $*" >> '${log}'\nexec "$@"\n`
        : `#!/bin/sh\necho "$DEBIAN_FRONTEND apt-get $*" >> '${log}'\n`,
    );
    chmodSync(file, 0o755);
  }
  return { dir, log };
}

function setup(env: Record<string, string>, tools: { dir: string }) {
  return run('bash', [SCRIPT], {
    env: { ...process.env, PATH: `${tools.dir}:${process.env.PATH}`, ...env },
  });
}

describe('scripts/setup.sh', () => {
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('installs only what is missing, with one update first, and says what', async () => {
    const tools = fakeTools();
    const { stdout } = await setup(
      {
        ASK_ENGINE_SETUP_CHROMIUM: join(tools.dir, 'no-chromium'),
        ASK_ENGINE_SETUP_POSTGRES: join(tools.dir, 'no-postgres'),
        ASK_ENGINE_SETUP_TMUX: 'sh',
      },
      tools,
    );
    expect(stdout).toContain('the tests need chromium postgresql-15; installing with apt-get');
    expect(stdout).toContain('installed chromium postgresql-15');
    const calls = readFileSync(tools.log, 'utf8')
      .split('\n')
      .filter((line) => line.includes('apt-get'));
    expect(calls).toEqual([
      expect.stringMatching(/apt-get update -qq$/),
      'noninteractive apt-get install -y -qq --no-install-recommends chromium postgresql-15',
    ]);
  });

  it('does nothing when everything is present', async () => {
    const tools = fakeTools();
    const present = join(tools.dir, 'apt-get'); // any executable file will do
    const { stdout } = await setup(
      {
        ASK_ENGINE_SETUP_CHROMIUM: present,
        ASK_ENGINE_SETUP_POSTGRES: present,
        ASK_ENGINE_SETUP_TMUX: 'sh',
      },
      tools,
    );
    expect(stdout).toBe('setup: chromium, tmux and postgresql-15 are installed; nothing to do.\n');
    expect(existsSync(tools.log)).toBe(false);
  });
});
