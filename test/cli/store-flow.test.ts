/**
 * The CLI's store path as a new user meets it: store problems, ask --defer, resume and serve,
 * all through the real command (no program written).
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliProgram } from './cli-program.js';
import { runCli } from './run-cli.js';

const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'ask-engine-cli-flow-'));
const children: ChildProcessWithoutNullStreams[] = [];
const [node, main] = await cliProgram();
const deploy = '{"question":"Deploy now?","options":["Yes","No"]}';
const pick = (title: string) =>
  JSON.stringify([{ questionId: 'q1', response: { kind: 'selection', selections: [title] } }]);

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** `serve` in the background, its stdout lines as they come. */
function serve(args: string[]) {
  const child = spawn(node, [main, 'serve', ...args], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((done) => child.on('close', done));
  return {
    child,
    exited,
    lines: () => stdout.split('\n').filter((line) => line !== ''),
    stderr: () => stderr,
    async line(test: (line: string) => boolean): Promise<string> {
      await expect.poll(() => stdout.split('\n').some(test), { timeout: 20_000 }).toBe(true);
      return stdout.split('\n').find(test)!;
    },
  };
}

async function deferAsk(store: string, extra: string[] = []) {
  const result = await runCli(['ask', deploy, '--store', store, '--defer', ...extra]);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(4);
  return JSON.parse(result.stdout) as { askId: string; status: string; interactionId: string };
}

describe.concurrent('store problems: one line, exit code 5', () => {
  it('names a missing directory and how to create it', async () => {
    const missing = join(dir, 'no', 'such', 'dir');
    const result = await runCli(['ask', deploy, '--store', join(missing, 'asks.db')]);
    expect(result.code).toBe(5);
    expect(result.stderr).toBe(
      `ask-engine: --store "${join(missing, 'asks.db')}": the directory ${missing} does not exist; create it (mkdir -p ${missing}) or give another path.\n`,
    );
    expect(result.stdout).toBe('');
  });

  it('names a file that is not a database, for ask, resume and serve', async () => {
    const text = join(dir, 'notes.txt');
    writeFileSync(text, 'just some notes, not a database\n'.repeat(100));
    for (const args of [
      ['ask', deploy, '--store', text],
      ['resume', 'thread-1', '[]', '--store', text],
      ['serve', '--store', text],
    ]) {
      const result = await runCli(args);
      expect(result.code).toBe(5);
      expect(result.stderr).toMatch(
        /^ask-engine: --store ".*notes\.txt" is not a SQLite database;.*\n$/,
      );
      expect(result.stderr.split('\n')).toHaveLength(2);
      expect(result.stdout).toBe('');
    }
    expect(readFileSync(text, 'utf8')).toContain('just some notes');
  });

  it('never creates a store for resume or serve: a mistyped path is reported, and serve does not claim to serve', async () => {
    const typo = join(dir, 'typo.db');
    const resumed = await runCli(['resume', 'thread-1', pick('Yes'), '--store', typo]);
    expect(resumed.code).toBe(5);
    expect(resumed.stderr).toMatch(
      /^ask-engine: --store ".*typo\.db": no such store; check the path/,
    );
    const served = await runCli(['serve', '--store', typo]);
    expect(served.code).toBe(5);
    expect(served.stdout).toBe('');
    expect(served.stderr).toMatch(/no such store/);
    expect(existsSync(typo)).toBe(false);
  });

  it('refuses a SQLite database that is not an ask store instead of adding tables to it', async () => {
    const other = join(dir, 'other.db');
    const Database = (await import('better-sqlite3')).default;
    const db = new Database(other);
    db.exec('CREATE TABLE notes (text TEXT)');
    db.close();
    const result = await runCli(['resume', 'thread-1', '[]', '--store', other]);
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(/is a SQLite database but not an ask-engine store/);
    const after = new Database(other, { readonly: true });
    const tables = after.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all();
    after.close();
    expect(tables).toEqual([{ name: 'notes' }]);
  });
});

describe('ask --defer, then resume or serve', () => {
  it('defers an ask into the store (exit 4, the ask id in the outcome) and resume answers it', async () => {
    const store = join(dir, 'defer.db');
    const deferred = await deferAsk(store);
    expect(deferred).toEqual({
      askId: expect.any(String),
      status: 'deferred',
      interactionId: deferred.askId,
    });
    const named = await deferAsk(store, ['--interaction-id', 'thread-42']);
    expect(named.interactionId).toBe('thread-42');
    const answered = await runCli(['resume', deferred.askId, pick('yes'), '--store', store]);
    expect(answered.code).toBe(0);
    expect(JSON.parse(answered.stdout)).toMatchObject({
      status: 'answered',
      answers: [{ response: { selections: ['Yes'] } }],
    });
    const byThread = await runCli(['resume', 'thread-42', pick('No'), '--store', store]);
    expect(byThread.code).toBe(0);
  });

  it('refuses --defer without --store, saying why', async () => {
    const result = await runCli(['ask', deploy, '--defer']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('ask --defer needs --store FILE');
  });

  it('serve links asks deferred before it started, logs how each ends, and says timed out (not a useless link)', async () => {
    const store = join(dir, 'serve.db');
    const waiting = await deferAsk(store);
    const declining = await deferAsk(store);
    const expiring = await deferAsk(store, ['--timeout', '1s']);
    // Past its deadline before the server starts.
    await expect
      .poll(() => Date.now(), { timeout: 3_000, interval: 100 })
      .toBeGreaterThan(Date.now() + 1_100);
    const server = serve(['--store', store]);
    const link = await server.line((line) => line.startsWith(`link ${waiting.askId} `));
    const declineLink = await server.line((line) => line.startsWith(`link ${declining.askId} `));
    expect(await server.line((line) => line.startsWith('timed out'))).toBe(
      `timed out ${expiring.askId}`,
    );
    expect(server.lines().some((line) => line.startsWith(`link ${expiring.askId}`))).toBe(false);

    const post = (line: string, fields: string[][]) => {
      const url = line.split(' ')[2]!;
      const token = new URL(url).searchParams.get('t')!;
      return fetch(url.split('?')[0]!, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams([['token', token], ...fields]).toString(),
      });
    };
    const answered = await post(link, [
      ['action', 'submit'],
      ['q1.selection', 'option1'],
    ]);
    expect(answered.status).toBe(200);
    expect(await server.line((line) => line.startsWith('answered'))).toBe(
      `answered ${waiting.askId}`,
    );
    expect((await post(declineLink, [['action', 'cancel']])).status).toBe(200);
    expect(await server.line((line) => line.startsWith('declined'))).toBe(
      `declined ${declining.askId}`,
    );
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(server.stderr()).toBe('');
    expect(server.stderr()).not.toContain('useless');
  }, 60_000);
});

describe.concurrent('the command line itself', () => {
  it('bare ask-engine is a usage mistake: help on stderr, exit 2; --help is help on stdout, exit 0', async () => {
    const bare = await runCli([]);
    expect(bare.code).toBe(2);
    expect(bare.stdout).toBe('');
    expect(bare.stderr).toContain('Usage:');
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage:');
    expect(help.stdout).toContain('5 the store cannot be opened or used');
  });

  it('prints the version', async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      version: string;
    };
    const result = await runCli(['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${version}\n`);
  });

  it('names an unknown flag in its own words', async () => {
    const result = await runCli(['ask', deploy, '--nope']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'ask-engine: ask: unknown option --nope. See ask-engine ask --help.\n',
    );
    const top = await runCli(['--nope']);
    expect(top.code).toBe(2);
    expect(top.stderr).toMatch(/^ask-engine: unknown option --nope;/);
    const missing = await runCli(['serve', '--store']);
    expect(missing.stderr).toContain('serve: --store needs a value');
  });

  it('asks for the input when stdin is empty, instead of calling it invalid JSON', async () => {
    const result = await runCli(['ask'], { stdin: '' });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/ask needs the ask_user input: a JSON argument like/);
    expect(result.stderr).toContain('stdin was empty');
    expect(result.stderr).not.toContain('not valid JSON');
  });

  it('accepts every duration the mcp help shows', async () => {
    const help = (await runCli(['mcp', '--help'])).stdout;
    const line = help.split('\n').find((text) => text.includes('--timeout DURATION'))!;
    const examples = [...line.matchAll(/\b(\d+(?:ms|s|m|h)?)\b/g)].map((match) => match[1]!);
    expect(examples.length).toBeGreaterThanOrEqual(3);
    const results = await Promise.all(
      examples.map(async (example) => {
        const result = await runCli(['mcp', '--timeout', example], { stdin: '' });
        return { example, code: result.code, stderr: result.stderr };
      }),
    );
    expect(results).toEqual(examples.map((example) => ({ example, code: 0, stderr: '' })));
  }, 60_000);

  it('shows commands in its examples, never a repository script', async () => {
    for (const args of [['--help'], ['ask', '--help'], ['demo', '--help'], ['serve', '--help']]) {
      const result = await runCli(args);
      expect(result.stdout).not.toMatch(/npm run|tsx |src\//);
    }
  });
});
