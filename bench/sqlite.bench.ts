/**
 * (d) A durable ask in SQLite: start, then `service.answer`, with its rows and history events
 * written through the SQLite store with the default options, against plain hand-written SQL
 * for the same effect, run directly with better-sqlite3 in the same run: the ask's row
 * inserted, its start event appended, the row updated under a version check with its answer
 * event appended, each step one transaction, the questions and the outcome written as JSON.
 * Goal <= 1.8x. First with the store's defaults (WAL, SQLite's `synchronous = FULL`: an fsync
 * per commit), the floor on the same settings; then, labelled, both sides with
 * `synchronous: 'normal'`, where the disk costs less and the engine's own cost shows more.
 *
 * (e) 1,000,000 deferred asks in SQLite (ASK_ENGINE_BENCH_DEFERRED to change the count): the
 * process's RSS after deferring them all, against the same process with an empty service on
 * an empty file. Goal: within 100 MB. Written with `synchronous: 'normal'` (labelled): the
 * memory is the same, and 2,000,000 commits with an fsync each would take an hour here.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { type AskUserQuestion, createInteractionService } from '../src/index.js';
import { createSqliteAskStore } from '../src/sqlite.js';
import { requireGc, yesAnswer, yesNoRequest } from './fixtures.js';
import { timeRatio } from './ratio.js';
import { record } from './record.js';

const gc = requireGc();
const dir = mkdtempSync(join(tmpdir(), 'ask-engine-bench-sqlite-'));

try {
  if (process.argv[2] === 'rss') {
    await deferredRss(Number(process.env.ASK_ENGINE_BENCH_DEFERRED ?? 1_000_000));
  } else {
    await durableAsk(undefined);
    await durableAsk('normal');
    await commitCost();
    // (e) in a process of its own, so its baseline is not the heap (d) left behind.
    const rss = spawnSync(
      process.execPath,
      ['--expose-gc', fileURLToPath(import.meta.url), 'rss'],
      {
        stdio: 'inherit',
      },
    );
    if (rss.status !== 0) process.exitCode = 1;
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(process.exitCode ?? 0);

async function durableAsk(synchronous: 'normal' | undefined): Promise<void> {
  const name = synchronous ?? 'default';
  const store = createSqliteAskStore(
    { path: join(dir, `service-${name}.db`) },
    synchronous === undefined ? {} : { synchronous },
  );
  const service = createInteractionService({ store });
  service.registerProvider({ ask: () => new Promise(() => undefined) });
  // The answer is applied once the ask is stored, as a person's is: `answer` waits for the
  // ask's first write (an ask is known to its service from the moment `start` returns).
  const durable = async () => {
    const handle = service.start(yesNoRequest, { timeoutMs: 60_000 });
    return service.answer(handle.id, yesAnswer);
  };
  for (let n = 0; n < 200; n++) await durable(); // warm up, and let background polls pass
  const handle = service.start(yesNoRequest, { timeoutMs: 60_000 });
  await service.answer(handle.id, yesAnswer);
  const history = [];
  for await (const event of service.history(handle.id)) history.push(event.type);
  if (history.join() !== 'start,answer') throw new Error(`unexpected history ${history}`);
  const questions = (await service.get(handle.id))?.questions;
  if (questions === undefined) throw new Error('the ask was not stored');
  await timeRatio(
    '(d) durable SQLite ask (start -> answer, with history) vs plain SQL for the same writes',
    1.8,
    plainSqlAsk(new Database(join(dir, `floor-${name}.db`)), questions, synchronous ?? 'full'),
    durable,
    synchronous === undefined ? {} : { config: `synchronous: '${synchronous}'` },
  );
  await service.close();
  await store.close();
}

/**
 * The floor of (d): one ask written with hand-written SQL. Two transactions, as a durable ask
 * needs: the row and its start event; then the version-checked update and its answer event.
 */
function plainSqlAsk(
  db: Database.Database,
  questions: AskUserQuestion[],
  synchronous: 'full' | 'normal',
): () => void {
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous.toUpperCase()}`);
  db.exec(`
    CREATE TABLE asks (
      id TEXT PRIMARY KEY, state TEXT NOT NULL, version INTEGER NOT NULL,
      questions TEXT NOT NULL, outcome TEXT, deadline_at INTEGER,
      created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL
    );
    CREATE INDEX asks_due ON asks (deadline_at) WHERE state IN ('pending', 'deferred');
    CREATE TABLE events (
      ask_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, at INTEGER NOT NULL,
      data TEXT, PRIMARY KEY (ask_id, seq)
    ) WITHOUT ROWID;
  `);
  const insertAsk = db.prepare(
    "INSERT INTO asks (id, state, version, questions, deadline_at, created_at, updated_at) VALUES (?, 'pending', 1, ?, ?, ?, ?)",
  );
  const updateAsk = db.prepare(
    'UPDATE asks SET state = ?, version = version + 1, outcome = ?, updated_at = ? WHERE id = ? AND version = ?',
  );
  const appendEvent = db.prepare(
    'INSERT INTO events (ask_id, seq, type, at, data) VALUES (?, ?, ?, ?, ?)',
  );
  const begin = db.prepare('BEGIN IMMEDIATE');
  const commit = db.prepare('COMMIT');
  let n = 0;
  return () => {
    const id = `floor-${n++}`;
    const now = Date.now();
    begin.run();
    insertAsk.run(id, JSON.stringify(questions), now + 60_000, now, now);
    appendEvent.run(id, 1, 'start', now, null);
    commit.run();
    const outcome = JSON.stringify({ status: 'answered', answers: yesAnswer });
    begin.run();
    const { changes } = updateAsk.run('answered', outcome, now, id, 1);
    if (changes !== 1) throw new Error('the floor lost its own version check');
    appendEvent.run(id, 2, 'answer', now, outcome);
    commit.run();
  };
}

/** For scale: what `synchronous = FULL` costs per commit against NORMAL on this disk. */
async function commitCost(): Promise<void> {
  const commitOn = (file: string, synchronous: string) => {
    const db = new Database(join(dir, file));
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${synchronous}`);
    db.exec('CREATE TABLE t (v TEXT)');
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    return () => {
      db.exec('BEGIN IMMEDIATE');
      insert.run('x'.repeat(200));
      db.exec('COMMIT');
    };
  };
  await timeRatio(
    '(d) for scale: one commit with synchronous = FULL vs NORMAL',
    undefined,
    commitOn('normal.db', 'NORMAL'),
    commitOn('full.db', 'FULL'),
  );
}

async function deferredRss(count: number): Promise<void> {
  const store = createSqliteAskStore({ path: join(dir, 'deferred.db') }, { synchronous: 'normal' });
  const service = createInteractionService({ store });
  let next = 0;
  service.registerProvider({
    ask: async () => ({ status: 'deferred', interactionId: `thread-${next++}` }),
  });
  // The empty service has asked once (code loaded, statements prepared) and is idle.
  await service.ask(yesNoRequest, { timeoutMs: 24 * 3_600_000 });
  await new Promise((resolve) => setTimeout(resolve, 100));
  gc();
  const empty = process.memoryUsage().rss;
  const started = Date.now();
  const BATCH = 1_000;
  for (let done = 0; done < count; done += BATCH) {
    const batch = [];
    for (let n = 0; n < BATCH && done + n < count; n++) {
      batch.push(service.ask(yesNoRequest, { timeoutMs: 24 * 3_600_000 }));
    }
    for (const outcome of await Promise.all(batch)) {
      if (outcome.status !== 'deferred') throw new Error(`not deferred: ${outcome.status}`);
    }
    // A turn of the event loop per batch, as a real process has between asks.
    await new Promise((resolve) => setImmediate(resolve));
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
  gc();
  const full = process.memoryUsage().rss;
  const last = await service.resume(`thread-${count - 1}`, yesAnswer);
  if (last.status !== 'answered') throw new Error('the last deferred ask could not be resumed');
  const deltaMb = (full - empty) / 2 ** 20;
  record({
    name: `(e) ${count.toLocaleString('en')} deferred asks in SQLite: RSS over an idle service`,
    value: deltaMb,
    unit: 'MB',
    goal: 100,
    detail: `${(full / 2 ** 20).toFixed(0)} MB vs ${(empty / 2 ** 20).toFixed(0)} MB; deferred in ${((Date.now() - started) / 1000).toFixed(0)} s`,
    config: "written with synchronous: 'normal' (the same memory, written faster)",
  });
  await service.close();
  await store.close();
}
