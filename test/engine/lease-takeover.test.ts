/**
 * The restart that asked nobody (issue 37): a process that owns a pending keyed ask on a
 * SQLite file is killed with SIGKILL; a new process starts the same key, takes the ask over
 * (its owner's lease has run out: its clock runs a minute ahead, so nothing waits for the
 * lease in real time) and asks its own provider. The audit in the file shows the take-over.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AskAuditEvent } from 'ask-engine';
import { createSqliteAskStore } from 'ask-engine/sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleProgram } from '../support/program-bundle.js';

describe('a process that owned a pending keyed ask, killed with SIGKILL', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ask-engine-lease-'));
  const path = join(dir, 'asks.db');

  /** Workers still running when the test ends (it failed): killed, so none outlives it. */
  const running = new Set<ChildProcess>();

  afterAll(() => {
    for (const child of running) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('leaves the ask to the next process that starts the same key, which asks its own provider', async () => {
    const worker = await bundleProgram('test/fixtures/sqlite-lease-worker.ts');
    const owner = launch(worker, [path, 'deploy-1', '0', '15000'], running);
    const askId = (await owner.line(/^asked (.+)$/))[1]!;
    owner.child.kill('SIGKILL');
    expect(await owner.exited).toBe('SIGKILL');

    const next = launch(worker, [path, 'deploy-1', '60000', '15000', 'answer'], running);
    expect((await next.line(/^asked (.+)$/))[1]).toBe(askId);
    await next.line(/^outcome answered$/);
    expect(await next.exited).toBe(0);

    const store = createSqliteAskStore({ path });
    try {
      const history: AskAuditEvent[] = [];
      for await (const event of store.history(askId)) history.push(event);
      expect(history.map((event) => event.type)).toEqual(['start', 'restore', 'provider.answered']);
      expect(history[1]).toMatchObject({ from: 'pending', to: 'pending' });
      expect((await store.get(askId))?.state).toBe('answered');
    } finally {
      await store.close();
    }
  }, 60_000);
});

describe('a process restarted while the lease of the one killed before it still runs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ask-engine-lease-'));
  const path = join(dir, 'asks.db');
  const running = new Set<ChildProcess>();

  afterAll(() => {
    for (const child of running) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('waits on the ask, then takes it over and asks its own provider once that lease runs out', async () => {
    const worker = await bundleProgram('test/fixtures/sqlite-lease-worker.ts');
    // A 1 s lease: the restart comes at once, within it, and is asked about a second later.
    const owner = launch(worker, [path, 'deploy-2', '0', '1000'], running);
    const askId = (await owner.line(/^asked (.+)$/))[1]!;
    owner.child.kill('SIGKILL');
    await owner.exited;
    const next = launch(worker, [path, 'deploy-2', '0', '1000', 'answer'], running);
    expect((await next.line(/^asked (.+)$/))[1]).toBe(askId);
    await next.line(/^outcome answered$/);
    expect(await next.exited).toBe(0);
    const store = createSqliteAskStore({ path });
    try {
      const types: string[] = [];
      for await (const event of store.history(askId)) types.push(event.type);
      expect(types).toEqual(['start', 'restore', 'provider.answered']);
    } finally {
      await store.close();
    }
  }, 60_000);
});

/** A worker process, its exit, and a wait for the first line of its output that matches. */
function launch(file: string, args: string[], running: Set<ChildProcess>) {
  const child = spawn(process.execPath, [file, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  running.add(child);
  child.on('exit', () => running.delete(child));
  const lines: string[] = [];
  const waiting = new Set<() => void>();
  let buffer = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    const parts = buffer.split('\n');
    buffer = parts.pop() ?? '';
    lines.push(...parts);
    for (const wake of waiting) wake();
  });
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) =>
    child.on('exit', (code, signal) => resolve(signal ?? code)),
  );
  const line = (pattern: RegExp): Promise<RegExpMatchArray> =>
    new Promise((resolve, reject) => {
      const look = () => {
        for (const each of lines) {
          const match = pattern.exec(each);
          if (match !== null) {
            waiting.delete(look);
            resolve(match);
            return;
          }
        }
      };
      waiting.add(look);
      look();
      void exited.then((how) =>
        reject(
          new Error(
            `The worker ended (${how}) before printing ${pattern}; it printed: ${lines.join(' | ')}`,
          ),
        ),
      );
    });
  return { child: child as ChildProcess, exited, line };
}
