/**
 * Rows as an earlier release wrote them (test/fixtures/golden, made by make-golden.ts) are still
 * read by this build: each store upgrades the schema and reads the same asks and histories, and
 * a service carries on with them (a deferred ask is resumed, a pending one answered).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AskStore, createInteractionService } from 'ask-engine';
import { createPostgresAskStore } from 'ask-engine/postgres';
import { createSqliteAskStore } from 'ask-engine/sqlite';
import Database from 'better-sqlite3';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type PostgresCluster,
  postgresMissing,
  startPostgresCluster,
} from '../support/postgres-cluster.js';
import { collect } from './ask-rows.js';

const golden = (name: string) =>
  readFileSync(new URL(`../fixtures/golden/${name}`, import.meta.url), 'utf8');
type Expected = Record<string, { ask: unknown; history: unknown[] }>;
const expected = JSON.parse(golden('expected-v1.json')) as {
  sqlite: Expected;
  postgres: Expected;
};

const ANSWERS = [
  { questionId: 'q1', response: { kind: 'selection' as const, selections: ['No'] } },
  { questionId: 'q2', response: { kind: 'freeform' as const, text: 'none yet' } },
];

/** What every store must still do with the golden asks. */
async function readsTheGoldenAsks(store: AskStore, asks: Expected): Promise<void> {
  expect(Object.keys(asks)).toHaveLength(7);
  for (const [askId, { ask, history }] of Object.entries(asks)) {
    expect(await store.get(askId), askId).toEqual(ask);
    expect(await collect(store.history(askId)), askId).toEqual(history);
  }
  const key = Object.values(asks).find((each) => (each.ask as { key?: string }).key);
  expect(await store.findByKey('golden-key')).toEqual(key?.ask);
  expect(await store.findByInteractionId('thread-golden-2')).toEqual(asks['golden-2']?.ask);
  // The upgraded schema lists them, through the indexes it added.
  const listed = await store.list({}, { limit: 10 });
  expect(listed.items.map((ask) => ask.askId).sort()).toEqual(Object.keys(asks).sort());
  expect(listed.items.map((ask) => ask.createdAt)).toEqual(
    listed.items.map((ask) => ask.createdAt).sort((a, b) => b - a),
  );
  const { snapshot: _snapshot, ...pending } = (asks['golden-3']?.ask ?? {}) as {
    snapshot?: unknown;
  };
  expect((await store.list({ state: 'pending' })).items).toEqual([pending]);

  const service = createInteractionService({ store, sweepIntervalMs: Number.POSITIVE_INFINITY });
  try {
    expect(await service.resume('thread-golden-2', ANSWERS)).toMatchObject({ status: 'answered' });
    expect(await service.answer('golden-3', ANSWERS)).toMatchObject({ status: 'answered' });
    await expect(service.answer('golden-5', ANSWERS)).rejects.toMatchObject({
      code: 'ASK_SETTLED',
    });
    const types = (await collect(service.history('golden-2'))).map((event) => event.type);
    expect(types).toEqual(['start', 'provider.deferred', 'resume']);
  } finally {
    await service.close();
  }
}

describe('golden SQLite rows (schema version 1)', () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'ask-engine-golden-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('are read as they were written, and the asks go on', async () => {
    const path = join(dir, 'v1.db');
    const db = new Database(path);
    db.exec(golden('sqlite-v1.sql'));
    db.close();
    const store = createSqliteAskStore({ path });
    try {
      await readsTheGoldenAsks(store, expected.sqlite);
    } finally {
      await store.close();
    }
  });

  it('lists old asks by the session and agent their snapshots hold', async () => {
    const path = join(dir, 'v1-session.db');
    const db = new Database(path);
    db.exec(golden('sqlite-v1.sql'));
    db.exec(`UPDATE asks SET snapshot = json_set(snapshot, '$.context.sessionId', 'session-7',
      '$.context.agent', 'deployer') WHERE id = 'golden-3'`);
    db.close();
    const store = createSqliteAskStore({ path });
    try {
      const bySession = await store.list({ sessionId: 'session-7' });
      expect(bySession.items.map((ask) => ask.askId)).toEqual(['golden-3']);
      const byAgent = await store.list({ agent: 'deployer', state: 'pending' });
      expect(byAgent.items.map((ask) => ask.askId)).toEqual(['golden-3']);
    } finally {
      await store.close();
    }
  });
});

describe.skipIf(postgresMissing !== undefined)(
  `golden PostgreSQL rows (migration 1)${postgresMissing ? ` (skipped: ${postgresMissing})` : ''}`,
  () => {
    let cluster: PostgresCluster;
    beforeAll(async () => {
      cluster = await startPostgresCluster();
    });
    afterAll(async () => {
      await cluster?.destroy();
    });

    it('are read as they were written, and the asks go on', async () => {
      // The dump sets the session's search_path: a connection of its own.
      const loader = postgres(cluster.url, { max: 1, onnotice: () => {} });
      await loader.unsafe(golden('postgres-v1.sql')).simple();
      await loader.end();
      const store = createPostgresAskStore(
        { connectionString: cluster.url },
        { schema: 'golden', max: 2 },
      );
      try {
        await readsTheGoldenAsks(store, expected.postgres);
      } finally {
        await store.close();
      }
    });
  },
);
