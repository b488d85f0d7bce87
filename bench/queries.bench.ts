/**
 * (a) `service.list` of 50 asks in a SQLite store holding 1,000,000 asks
 * (ASK_ENGINE_BENCH_LIST_ASKS to change the count): the newest 50, and the newest 50 pending,
 * each against the same indexed SQL run directly with better-sqlite3 on the same file, with the
 * JSON columns an item carries (questions, outcome) parsed, as a program reading the rows
 * itself would. Goal <= 1.5x. For scale, the same against the bare SQL (rows as the driver
 * returns them, JSON as text).
 *
 * (b) A purge of 100,000 final asks (each with its history) while a second service answers
 * asks on the same SQLite file, one after another: the longest an answer took, and the longest
 * the event loop stalled, during the purge. Goal: neither over 50 ms.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { createInteractionService } from '../src/index.js';
import { createSqliteAskStore } from '../src/sqlite.js';
import { yesAnswer, yesNoRequest } from './fixtures.js';
import { timeRatio } from './ratio.js';
import { record } from './record.js';

const dir = mkdtempSync(join(tmpdir(), 'ask-engine-bench-queries-'));

try {
  await listAtScale(Number(process.env.ASK_ENGINE_BENCH_LIST_ASKS ?? 1_000_000));
  await purgeUnderLoad(100_000);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(process.exitCode ?? 0);

/**
 * A file of `count` asks copied from two the store wrote (one pending, one answered), as a
 * store holds them after a while: most answered, one in 50 pending, created a second apart.
 */
async function fileOfAsks(path: string, count: number, final: 'mixed' | 'all'): Promise<void> {
  const store = createSqliteAskStore({ path });
  const service = createInteractionService({ store });
  service.registerProvider({ ask: () => new Promise(() => undefined) });
  const open = service.start(yesNoRequest);
  const handle = service.start(yesNoRequest);
  await Promise.all([open.stored, handle.stored]);
  await service.answer(handle.id, yesAnswer);
  await service.close();
  await store.close();
  const db = new Database(path);
  const state =
    final === 'all' ? "'answered'" : "CASE WHEN i % 50 = 0 THEN 'pending' ELSE 'answered' END";
  db.exec(`
    CREATE TEMP TABLE n AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${count}) SELECT i FROM n;
    CREATE TEMP TABLE template AS SELECT * FROM asks;
    BEGIN;
    INSERT INTO asks (id, state, version, snapshot, packed, questions, outcome, interaction_id,
        "key", deadline_at, owner, final, created_at, updated_at, session_id, agent)
      SELECT 'ask-' || i, a.state, a.version, a.snapshot, a.packed, a.questions, a.outcome, NULL,
        NULL, NULL, a.owner, a.final, 1700000000000 + i * 1000, 1700000000000 + i * 1000 + 500,
        'session-' || (i % 1000), 'agent'
      FROM n JOIN template a ON a.state = ${state};
    INSERT INTO ask_events (ask, at, type, from_state, to_state, data)
      SELECT seq, created_at, 'start', NULL, 'pending', '{"questions":1}' FROM asks;
    INSERT INTO ask_events (ask, at, type, from_state, to_state, data)
      SELECT seq, updated_at, 'answer', 'pending', 'answered', NULL FROM asks WHERE final = 1;
    COMMIT;
    ANALYZE;
  `);
  db.close();
}

async function listAtScale(count: number): Promise<void> {
  const path = join(dir, 'list.db');
  const started = performance.now();
  await fileOfAsks(path, count, 'mixed');
  console.log(
    `built ${count.toLocaleString('en')} asks in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  const store = createSqliteAskStore({ path });
  const service = createInteractionService({ store, sweepIntervalMs: Number.POSITIVE_INFINITY });
  const direct = new Database(path, { readonly: true });
  // The statement the store runs for each of these pages, written out by hand.
  const columns = `seq, id, state, version, snapshot, packed, questions, outcome, interaction_id,
    "key", deadline_at, (SELECT name FROM ask_owners WHERE id = owner) AS owner, final,
    created_at, updated_at, session_id, agent`;
  const newest = direct.prepare(
    `SELECT ${columns} FROM asks WHERE created_at <= ? AND (created_at < ? OR seq < ?)
     ORDER BY created_at DESC, seq DESC LIMIT ?`,
  );
  const pending = direct.prepare(
    `SELECT ${columns} FROM asks WHERE state = ? AND created_at <= ? AND (created_at < ? OR seq < ?)
     ORDER BY created_at DESC, seq DESC LIMIT ?`,
  );
  const top = Number.MAX_VALUE;
  const parsed = (rows: unknown[]) => {
    for (const row of rows as { questions: string; outcome: string | null }[]) {
      row.questions = JSON.parse(row.questions);
      if (row.outcome !== null) row.outcome = JSON.parse(row.outcome);
    }
    return rows;
  };
  const label = count === 1_000_000 ? '1,000,000' : count.toLocaleString('en');
  try {
    const check = await service.list({ state: 'pending' }, { limit: 50 });
    if (check.items.length !== 50 || check.items.some((ask) => ask.state !== 'pending')) {
      throw new Error('the list did not return 50 pending asks');
    }
    await timeRatio(
      `(a) service.list: the newest 50 of ${label} SQLite asks vs the same indexed SQL run directly, JSON parsed`,
      1.5,
      () => parsed(newest.all(top, top, 0, 51)),
      () => service.list({}, { limit: 50 }),
    );
    await timeRatio(
      `(a) service.list: the newest 50 pending of ${label} SQLite asks vs the same indexed SQL run directly, JSON parsed`,
      1.5,
      () => parsed(pending.all('pending', top, top, 0, 51)),
      () => service.list({ state: 'pending' }, { limit: 50 }),
    );
    await timeRatio(
      `(a) service.list: the newest 50 of ${label} SQLite asks vs the bare SQL (JSON as text)`,
      undefined,
      () => newest.all(top, top, 0, 51),
      () => service.list({}, { limit: 50 }),
    );
  } finally {
    direct.close();
    await service.close();
    await store.close();
  }
}

async function purgeUnderLoad(count: number): Promise<void> {
  const path = join(dir, 'purge.db');
  await fileOfAsks(path, count, 'all');
  const purgerStore = createSqliteAskStore({ path });
  const purger = createInteractionService({ store: purgerStore });
  const answererStore = createSqliteAskStore({ path });
  const answerer = createInteractionService({ store: answererStore });
  answerer.registerProvider({ ask: () => new Promise(() => undefined) });
  const answerOne = async () => {
    const handle = answerer.start(yesNoRequest);
    await handle.stored;
    const begin = performance.now();
    await answerer.answer(handle.id, yesAnswer);
    return performance.now() - begin;
  };
  for (let n = 0; n < 50; n++) await answerOne(); // warm up
  // Answers arrive as requests do, each on a turn of the event loop of its own (a loop of
  // promises alone would never let the purge's next batch in).
  const answersDuring = async <T>(work: () => Promise<T>) => {
    const delay = monitorEventLoopDelay({ resolution: 1 });
    let running = true;
    let longest = 0;
    let answers = 0;
    const load = (async () => {
      while (running) {
        await new Promise((resolve) => setImmediate(resolve));
        longest = Math.max(longest, await answerOne());
        answers++;
      }
    })();
    delay.enable();
    const begin = performance.now();
    const result = await work();
    const took = performance.now() - begin;
    running = false;
    await load;
    delay.disable();
    return { result, took, longest, answers, stall: delay.max / 1e6 };
  };
  // The asks copied into the file (the one the store wrote and those answered meanwhile are newer).
  const purge = await answersDuring(() =>
    purger.purge({ finalBefore: 1_700_000_000_000 + (count + 1) * 1000 }),
  );
  if (purge.result !== count) throw new Error(`purged ${purge.result}, expected ${count}`);
  // The same answers with no purge, for as long, on this machine at this load.
  const idle = await answersDuring(
    () => new Promise((resolve) => setTimeout(resolve, Math.min(purge.took, 10_000))),
  );
  record({
    name: '(b) purge of 100,000 final SQLite asks: longest concurrent answer',
    value: purge.longest,
    unit: 'ms',
    goal: 50,
    detail: `${count.toLocaleString('en')} asks purged in ${(purge.took / 1000).toFixed(1)} s, ${purge.answers} answers meanwhile; without a purge: ${idle.longest.toFixed(1)} ms`,
  });
  record({
    name: '(b) purge of 100,000 final SQLite asks: longest event-loop stall',
    value: purge.stall,
    unit: 'ms',
    goal: 50,
    detail: `without a purge: ${idle.stall.toFixed(1)} ms`,
  });
  await purger.close();
  await answerer.close();
  await purgerStore.close();
  await answererStore.close();
}
