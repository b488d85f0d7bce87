/**
 * (d) A durable ask in SQLite: start, then `service.answer`, with its rows and history events
 * written through the SQLite store, against the same SQL statements run directly with
 * better-sqlite3 in the same run. Goal <= 2x. The floor is not guessed: one ask's statements
 * are recorded through a logging handle, then replayed (prepared once, a fresh ask id spliced
 * into their parameters). Both sides use WAL with `synchronous = NORMAL`, so the figure is the
 * engine's own cost rather than the disk's; a FULL commit (an fsync each) is shown for scale.
 *
 * (e) 1,000,000 deferred asks in SQLite (ASK_ENGINE_BENCH_DEFERRED to change the count): the
 * process's RSS after deferring them all, against the same process with an empty service on
 * an empty file. Goal: within 100 MB.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import type { AskUserQuestionAnswer } from '../src/contracts/answer.js';
import { createInteractionService } from '../src/engine/service.js';
import type { SqliteDatabase, SqliteStatement } from '../src/stores/sqlite-database.js';
import { createSqliteAskStore } from '../src/stores/sqlite-store.js';
import { requireGc, yesAnswer, yesNoRequest } from './fixtures.js';
import { timeRatio } from './ratio.js';

const gc = requireGc();
const dir = mkdtempSync(join(tmpdir(), 'ask-engine-bench-sqlite-'));

try {
  if (process.argv[2] === 'rss') {
    await deferredRss(Number(process.env.ASK_ENGINE_BENCH_DEFERRED ?? 1_000_000));
  } else {
    await durableAsk();
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

async function durableAsk(): Promise<void> {
  const db = new Database(join(dir, 'service.db'));
  const recorder = recordingHandle(db);
  const store = createSqliteAskStore({ database: recorder.handle }, { synchronous: 'normal' });
  const service = createInteractionService({ store });
  service.registerProvider({ ask: () => new Promise(() => undefined) });
  // The answer is applied once the ask is stored, as a person's is: `answer` waits for the
  // ask's first write (an ask is known to its service from the moment `start` returns).
  const durable = async () => {
    const handle = service.start(yesNoRequest, { timeoutMs: 60_000 });
    return service.answer(handle.id, yesAnswer);
  };
  for (let n = 0; n < 200; n++) await durable(); // warm up, and let background polls pass

  recorder.start();
  const handle = service.start(yesNoRequest, { timeoutMs: 60_000 });
  await service.answer(handle.id, yesAnswer as AskUserQuestionAnswer[]);
  const calls = recorder.stop();
  const floor = replayer(new Database(join(dir, 'floor.db')), calls, handle.id);
  const history = [];
  for await (const event of service.history(handle.id)) history.push(event.type);
  if (history.join() !== 'start,answer') throw new Error(`unexpected history ${history}`);
  console.log(
    `    one durable ask runs ${calls.filter((call) => call.method !== 'exec').length} statements and ${calls.filter((call) => call.method === 'exec').length} transaction commands`,
  );

  await timeRatio(
    '(d) durable SQLite ask (start -> answer, with history) vs its SQL run directly',
    2,
    floor,
    durable,
  );
  await service.close();
  await store.close();
  db.close();
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
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
  gc();
  const full = process.memoryUsage().rss;
  const last = await service.resume(`thread-${count - 1}`, yesAnswer);
  if (last.status !== 'answered') throw new Error('the last deferred ask could not be resumed');
  const deltaMb = (full - empty) / 2 ** 20;
  console.log(
    `(e) ${count.toLocaleString('en')} deferred asks in SQLite: RSS ${(full / 2 ** 20).toFixed(0)} MB vs ${(empty / 2 ** 20).toFixed(0)} MB with an empty service = +${deltaMb.toFixed(1)} MB (goal <= +100 MB) ${deltaMb <= 100 ? 'ok' : 'OVER'}; deferred in ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
  await service.close();
  await store.close();
}

interface Call {
  method: 'exec' | 'run' | 'get' | 'all';
  sql: string;
  params: unknown[];
}

/** A better-sqlite3 handle that records the statements run through it while recording. */
function recordingHandle(db: Database.Database) {
  let calls: Call[] | undefined;
  const handle: SqliteDatabase = {
    exec(sql) {
      calls?.push({ method: 'exec', sql, params: [] });
      return db.exec(sql);
    },
    prepare(sql) {
      const statement = db.prepare(sql);
      const recorded =
        (method: Call['method'], run: (...params: unknown[]) => unknown) =>
        (...params: unknown[]) => {
          calls?.push({ method, sql, params });
          return run(...params);
        };
      return {
        run: recorded('run', (...params) => statement.run(...params)),
        get: recorded('get', (...params) => statement.get(...params)),
        all: recorded('all', (...params) => statement.all(...params)),
      } as SqliteStatement;
    },
  };
  return {
    handle,
    start: () => {
      calls = [];
    },
    stop: (): Call[] => {
      const recorded = calls ?? [];
      calls = undefined;
      // A change-feed poll that fell inside the window belongs to the timer, not to the ask.
      let inTransaction = false;
      return recorded.filter((call) => {
        if (call.method === 'exec') {
          inTransaction = call.sql.startsWith('BEGIN');
          return true;
        }
        return inTransaction || !call.sql.includes('data_version');
      });
    },
  };
}

/** The recorded statements as one function on another file: prepared once, a new id per run. */
function replayer(db: Database.Database, calls: Call[], askId: string): () => void {
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  const source = new Database(join(dir, 'service.db'), { readonly: true });
  const schema = source
    .prepare("SELECT sql FROM sqlite_master WHERE sql NOT NULL AND name NOT LIKE 'sqlite_%'")
    .pluck()
    .all();
  for (const sql of schema) {
    db.exec(sql as string);
  }
  source.close();
  const steps = calls.map((call) => {
    if (call.method === 'exec') return () => db.exec(call.sql);
    const statement = db.prepare(call.sql);
    // Parameters holding the ask id are split around it once; each run joins in its own id.
    const params = call.params.map((param) =>
      typeof param === 'string' && param.includes(askId) ? param.split(askId) : param,
    );
    const method = call.method;
    return (id: string) =>
      statement[method](...params.map((param) => (Array.isArray(param) ? param.join(id) : param)));
  });
  let n = 0;
  return () => {
    const id = `floor-${n++}`;
    for (const step of steps) step(id);
  };
}
