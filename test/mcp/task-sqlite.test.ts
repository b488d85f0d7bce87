/**
 * A deferred ask is a task a client polls later from another process: a child process on a
 * SQLite file creates the task and exits; a second service on the same file, in this process,
 * answers `tasks/get` and `tasks/update` for it, and a third sees the same task. A task whose
 * row fails its check is `failed`.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createInteractionService } from 'ask-engine';
import { createAskUserMcpServer } from 'ask-engine/mcp';
import { createSqliteAskStore } from 'ask-engine/sqlite';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleProgram } from '../support/program-bundle.js';
import { connectTaskClient } from './task-peers.js';

const run = promisify(execFile);

describe('a task whose ask was deferred by a process that has exited', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ask-engine-tasks-'));
  const path = join(dir, 'asks.db');
  let created: { taskId: string; status: string };

  beforeAll(async () => {
    const creator = await bundleProgram('test/mcp/fixtures/task-creator.ts');
    const { stdout } = await run(process.execPath, [creator, path], { timeout: 60_000 });
    created = JSON.parse(stdout) as typeof created;
  }, 120_000);

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('is polled and answered through another service on the same SQLite file', async () => {
    expect(created.status).toBe('input_required');
    const later = (clientName: string) => {
      const store = createSqliteAskStore({ path });
      const service = createInteractionService({ store });
      return { store, service, clientName };
    };
    const second = later('second');
    const third = later('third');
    const peers = await Promise.all(
      [second, third].map(({ service, clientName }) =>
        connectTaskClient(createAskUserMcpServer({ service }), { clientName }),
      ),
    );
    try {
      const [two, three] = peers as [(typeof peers)[0], (typeof peers)[0]];
      const waiting = await two.get(created.taskId);
      expect(waiting.status).toBe('input_required');
      expect(JSON.stringify(waiting.inputRequests)).toContain('Rotate the signing key tonight?');
      const { items } = await second.service.list();
      expect(items.map((ask) => ask.state)).toEqual(['deferred']);

      await two.update(created.taskId, {
        ask_user: { action: 'accept', content: { 'q1.selection': 'option2' } },
      });
      const done = await three.get(created.taskId);
      expect(done.status).toBe('completed');
      expect(done.result).toEqual({
        content: [{ type: 'text', text: expect.stringContaining('Selected: "Wait"') }],
      });
      expect(await third.service.get(items[0]!.askId)).toMatchObject({
        state: 'answered',
        outcome: {
          status: 'answered',
          answers: [{ questionId: 'q1', response: { kind: 'selection', selections: ['Wait'] } }],
          answeredBy: { recipient: 'second', channel: 'mcp' },
        },
      });
    } finally {
      for (const each of peers) await each.close();
      for (const { service, store } of [second, third]) {
        await service.close();
        await store.close();
      }
    }
  });

  it('is failed, naming the ask, when its row in the file fails its check', async () => {
    const store = createSqliteAskStore({ path });
    const service = createInteractionService({ store });
    const peers = await connectTaskClient(createAskUserMcpServer({ service }));
    try {
      const { taskId } = (await peers.callAskUser({ question: 'Which region?' })) as {
        taskId: string;
      };
      const { items } = await service.list({ state: ['deferred'] });
      const askId = items.find((ask) => ask.questions[0]?.question === 'Which region?')!.askId;
      const db = new Database(path);
      db.prepare("UPDATE asks SET questions = '{}' WHERE id = ?").run(askId);
      db.close();
      const failed = await peers.get(taskId);
      expect(failed).toMatchObject({ taskId, status: 'failed', error: { code: -32603 } });
      expect((failed.error as { message: string }).message).toContain(askId);
    } finally {
      await peers.close();
      await service.close();
      await store.close();
    }
  });
});
