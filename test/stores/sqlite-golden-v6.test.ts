/**
 * A file as SQLite schema version 6 left it (test/fixtures/golden/sqlite-v6.sql, rows with the
 * start event's data and the snapshot's status and value written out) is migrated by this build
 * and read back as that build read it; the asks go on, and what this build writes is leaner.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInteractionService } from 'ask-engine';
import { createSqliteAskStore } from 'ask-engine/sqlite';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SQLITE_SCHEMA_VERSION } from '../../src/stores/sqlite/schema.js';
import { collect } from './ask-rows.js';

const golden = (name: string) =>
  readFileSync(new URL(`../fixtures/golden/${name}`, import.meta.url), 'utf8');
const expected = JSON.parse(golden('expected-sqlite-v6.json')) as Record<
  string,
  { ask: unknown; history: unknown[] }
>;
const ANSWERS = [
  { questionId: 'q1', response: { kind: 'selection' as const, selections: ['No'] } },
  { questionId: 'q2', response: { kind: 'freeform' as const, text: 'later' } },
];

describe('a SQLite file of schema version 6', () => {
  let dir = '';
  let path = '';
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ask-engine-golden-v6-'));
    path = join(dir, 'asks.db');
    const db = new Database(path);
    db.exec(golden('sqlite-v6.sql'));
    db.close();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is migrated once and read as version 6 read it', async () => {
    const store = createSqliteAskStore({ path });
    try {
      expect(Object.keys(expected)).toHaveLength(4);
      for (const [askId, { ask, history }] of Object.entries(expected)) {
        expect(await store.get(askId), askId).toEqual(ask);
        expect(await collect(store.history(askId)), askId).toEqual(history);
      }
      expect(await store.findByKey('golden-v6-key')).toEqual(
        Object.values(expected).find((each) => (each.ask as { key?: string }).key)?.ask,
      );
    } finally {
      await store.close();
    }
    const db = new Database(path, { readonly: true });
    const versions = db.prepare('SELECT version FROM ask_schema_version').pluck().all();
    db.close();
    expect(versions).toEqual(Array.from({ length: SQLITE_SCHEMA_VERSION }, (_, i) => i + 1));
  });

  it('lets its asks go on, and writes new asks leaner than version 6 did', async () => {
    const store = createSqliteAskStore({ path });
    const service = createInteractionService({ store, sweepIntervalMs: Number.POSITIVE_INFINITY });
    service.registerProvider({ ask: () => new Promise(() => undefined) });
    try {
      expect(await service.resume('thread-golden-1', ANSWERS)).toMatchObject({
        status: 'answered',
      });
      expect(await service.answer('golden-2', ANSWERS)).toMatchObject({ status: 'answered' });
      const types = (await collect(service.history('golden-2'))).map((event) => event.type);
      expect(types).toEqual(['start', 'answer']);
      const handle = service.start(
        { questions: [{ question: 'Ship it?', options: ['Yes', 'No'] }] },
        { timeoutMs: 60_000, toolCallId: 'call-9', sessionId: 'session-9', key: 'new-key' },
      );
      await service.answer(handle.id, [
        { questionId: 'q1', response: { kind: 'selection', selections: ['Yes'] } },
      ]);
      const history = await collect(store.history(handle.id));
      expect(history[0]).toMatchObject({
        type: 'start',
        data: {
          questions: 1,
          deadlineAt: expect.any(Number),
          toolCallId: 'call-9',
          sessionId: 'session-9',
          key: 'new-key',
        },
      });
      const db = new Database(path, { readonly: true });
      const row = db.prepare('SELECT snapshot, packed FROM asks WHERE id = ?').get(handle.id) as {
        snapshot: string;
        packed: number;
      };
      const events = db
        .prepare(
          'SELECT type, data FROM ask_events WHERE ask = (SELECT seq FROM asks WHERE id = ?) ORDER BY id',
        )
        .all(handle.id);
      db.close();
      // Neither the status, the state value nor the empty progress; the row stands for the whole
      // start event (no row of its own, version 10), and for the answer's data.
      expect(JSON.parse(row.snapshot)).toEqual({
        context: { toolCallId: 'call-9', sessionId: 'session-9' },
      });
      expect(events).toEqual([{ type: 'answer', data: null }]);
      expect((await store.get(handle.id))?.snapshot).toMatchObject({
        status: 'done',
        value: 'answered',
        context: { progress: [] },
      });
    } finally {
      await service.close();
      await store.close();
    }
  });

  it('keeps event ids going up past ones a purge before version 8 deleted', async () => {
    // Versions before 8 kept the largest id given in AUTOINCREMENT's sequence: as if a purge
    // had deleted events 8 to 50, whose ids a new event must not take.
    const before = new Database(path);
    expect(
      before.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'ask_events'").pluck().get(),
    ).toBe(7);
    before.prepare("UPDATE sqlite_sequence SET seq = 50 WHERE name = 'ask_events'").run();
    before.close();
    const store = createSqliteAskStore({ path });
    const service = createInteractionService({ store, sweepIntervalMs: Number.POSITIVE_INFINITY });
    service.registerProvider({ ask: () => new Promise(() => undefined) });
    try {
      await service.answer('golden-2', ANSWERS);
      const db = new Database(path, { readonly: true });
      const ids = db.prepare('SELECT id FROM ask_events ORDER BY id').pluck().all();
      const autoincrement = db
        .prepare("SELECT count(*) FROM sqlite_master WHERE sql LIKE '%AUTOINCREMENT%'")
        .pluck()
        .get();
      db.close();
      // The seven events kept, the sequence's value held by a placeholder, the answer after it.
      expect(ids).toEqual([1, 2, 3, 4, 5, 6, 7, 50, 51]);
      expect(autoincrement).toBe(0);
      for (const [askId, { history }] of Object.entries(expected)) {
        if (askId !== 'golden-2')
          expect(await collect(store.history(askId)), askId).toEqual(history);
      }
      expect(await collect(store.history('golden-2'))).toEqual([
        ...expected['golden-2']!.history,
        expect.objectContaining({ type: 'answer' }),
      ]);
    } finally {
      await service.close();
      await store.close();
    }
  });
});
