/** `ask-engine serve --store FILE`: a separate process answers asks deferred into a SQLite file. */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInteractionService, createScriptedProvider } from 'ask-engine';
import { createSqliteAskStore } from 'ask-engine/sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { cliProgram } from '../cli/cli-program.js';
import { runCli } from '../cli/run-cli.js';

const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'ask-engine-serve-'));
const children: ChildProcessWithoutNullStreams[] = [];
const [node, main] = await cliProgram();

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** Starts `serve` and resolves each stdout line as it comes. */
function serve(args: string[]) {
  const child = spawn(node, [main, 'serve', ...args], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(child);
  let buffer = '';
  let stderr = '';
  const lines: string[] = [];
  const waiters: { test: (line: string) => boolean; resolve: (line: string) => void }[] = [];
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  child.stdout.on('data', (chunk) => {
    buffer += chunk;
    let end = buffer.indexOf('\n');
    while (end >= 0) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 1);
      lines.push(line);
      for (const waiter of waiters.filter((candidate) => candidate.test(line))) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
      end = buffer.indexOf('\n');
    }
  });
  const exited = new Promise<number | null>((done) => child.on('close', done));
  return {
    child,
    exited,
    stderr: () => stderr,
    line(test: (line: string) => boolean): Promise<string> {
      const seen = lines.find(test);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((done) => waiters.push({ test, resolve: done }));
    },
  };
}

describe('ask-engine serve', () => {
  it('prints a link for an ask deferred by another process and records the answer in the store', async () => {
    const path = join(dir, 'asks.db');
    const secretFile = join(dir, 'web.secret');
    writeFileSync(secretFile, `${'s'.repeat(48)}\n`);
    // serve never creates a store: the asking program's store is there first.
    const store = createSqliteAskStore({ path });
    await store.get('');
    const server = serve(['--store', path, '--secret-file', secretFile]);
    const serving = await server.line((line) => line.startsWith('serving '));
    expect(serving).toMatch(/^serving http:\/\/127\.0\.0\.1:\d+$/);
    expect(await server.line((line) => line.startsWith('live asks '))).toMatch(/\/asks\?token=/);

    const service = createInteractionService({ store });
    service.registerProvider(
      createScriptedProvider([{ defer: 'chat-thread-7' }, { defer: 'chat-thread-8' }]),
    );
    try {
      const deferred = await service.start({ question: 'Deploy now?', options: ['Yes', 'No'] });
      const outcome = await deferred.outcome;
      expect(outcome).toMatchObject({ status: 'deferred', interactionId: 'chat-thread-7' });
      const line = await server.line((text) => text.startsWith(`link ${deferred.id} `));
      const link = line.split(' ')[2]!;
      expect(link.startsWith(`${serving.slice('serving '.length)}/a/`)).toBe(true);

      const response = await fetch(link.split('?')[0]!, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams([
          ['token', new URL(link).searchParams.get('t')!],
          ['action', 'submit'],
          ['q1.selection', 'option2'],
        ]).toString(),
      });
      expect(response.status).toBe(200);
      expect(await service.get(deferred.id)).toMatchObject({
        state: 'answered',
        outcome: {
          status: 'answered',
          answers: [{ questionId: 'q1', response: { selections: ['No'] } }],
        },
      });
      expect(await server.line((text) => text.startsWith(`answered ${deferred.id}`))).toBe(
        `answered ${deferred.id}`,
      );
      // Answered by another program, which says who answered: serve's line names them.
      const second = service.start({ question: 'Roll back?', options: ['Yes', 'No'] });
      await second.outcome;
      await service.answer(
        second.id,
        [{ questionId: 'q1', response: { kind: 'selection', selections: ['Yes'] } }],
        { by: { recipient: 'alice@example.com', channel: 'email' } },
      );
      expect(await server.line((text) => text.startsWith(`answered ${second.id}`))).toBe(
        `answered ${second.id} by alice@example.com (email)`,
      );
    } finally {
      await service.close();
      await store.close();
    }
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(server.stderr()).toBe('');
  });

  it('refuses to start without a store or with a short secret, saying what to fix', async () => {
    const missing = await runCli(['serve']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/serve needs --store FILE/);
    const short = join(dir, 'short.secret');
    writeFileSync(short, 'too short\n');
    const weak = await runCli(['serve', '--store', join(dir, 'x.db'), '--secret-file', short]);
    expect(weak.code).toBe(2);
    expect(weak.stderr).toMatch(/holds 9 bytes; it needs at least 32/);
  });
});
