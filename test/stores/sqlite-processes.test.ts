/** Several processes on one SQLite file: compare-and-set holds across connections and processes. */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createSqliteAskStore } from 'ask-engine/sqlite';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SQLITE_SCHEMA_VERSION } from '../../src/stores/sqlite/schema.js';
import { bundleProgram } from '../support/program-bundle.js';
import { collect } from './ask-rows.js';

const run = promisify(execFile);
const worker = await bundleProgram('test/fixtures/sqlite-cas-worker.ts');
const root = fileURLToPath(new URL('../..', import.meta.url));

describe('four processes opening a new SQLite file and racing compare-and-set writes on it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ask-engine-sqlite-procs-'));
  const path = join(dir, 'asks.db');
  const asks = 25;
  const target = 40;
  let wins: { worker: string; askId: string; version: number }[] = [];

  beforeAll(async () => {
    const workers = ['w1', 'w2', 'w3', 'w4'];
    const outputs = await Promise.all(
      workers.map((name) =>
        run(
          process.execPath,
          [worker, path, name, String(target), String(asks), String(workers.length)],
          { cwd: root },
        ),
      ),
    );
    wins = outputs.flatMap(({ stdout }, index) =>
      (JSON.parse(stdout) as { askId: string; version: number }[]).map((win) => ({
        worker: workers[index] as string,
        ...win,
      })),
    );
  }, 60_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('gives every version of every ask to exactly one process', () => {
    const byVersion = new Map<string, string[]>();
    for (const win of wins) {
      const key = `${win.askId}@${win.version}`;
      byVersion.set(key, [...(byVersion.get(key) ?? []), win.worker]);
    }
    expect(byVersion.size).toBe(asks * (target - 1));
    expect([...byVersion.values()].filter((winners) => winners.length !== 1)).toEqual([]);
  });

  it('lets more than one process win (the race was real)', () => {
    expect(new Set(wins.map((win) => win.worker)).size).toBeGreaterThan(1);
  });

  it('migrated the new file once and created each ask once', async () => {
    const db = new Database(path, { readonly: true });
    try {
      // Every step of the schema once, as many as the store's migrations have.
      expect(db.prepare('SELECT version FROM ask_schema_version').all()).toEqual(
        Array.from({ length: SQLITE_SCHEMA_VERSION }, (_, i) => ({ version: i + 1 })),
      );
      const starts = db.prepare("SELECT count(*) FROM ask_events WHERE type = 'start'").pluck();
      expect(starts.get()).toBe(asks);
    } finally {
      db.close();
    }
  });

  it('keeps one history event per won version, in version order, by its winner', async () => {
    const store = createSqliteAskStore({ path });
    try {
      for (let n = 0; n < asks; n++) {
        const askId = `ask-${n}`;
        const history = await collect(store.history(askId));
        expect(history).toHaveLength(target);
        expect(history[0]?.type).toBe('start');
        const winners = wins
          .filter((win) => win.askId === askId)
          .sort((a, b) => a.version - b.version)
          .map((win) => `from ${win.worker}`);
        const writers = history.slice(1).map((event) => {
          const data = event.data as { answers: { response: { text: string } }[] };
          return data.answers[0]?.response.text;
        });
        expect(writers).toEqual(winners);
        expect((await store.get(askId))?.version).toBe(target);
      }
    } finally {
      await store.close();
    }
  });
});
