/**
 * (h) Bytes per stored ask in SQLite (issue 20: goal <= 700 B). Writes N asks through a service
 * (ASK_ENGINE_BENCH_ASKS, default 100,000): 90% answered, 10% deferred, each with its two
 * audit events (the start is the row's own, the other one an event row; every history is read
 * back whole), then checkpoints the WAL and records the pages in use per ask; for scale, the
 * bytes per ask of each table and index (SQLite's dbstat table) are printed. The asks are
 * written with `synchronous: 'normal'`, which changes how fast they are written, not what.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createInteractionService } from '../src/engine/service.js';
import { createSqliteAskStore } from '../src/stores/sqlite/store.js';
import { yesAnswer, yesNoRequest } from './fixtures.js';
import { record } from './record.js';

const count = Number(process.env.ASK_ENGINE_BENCH_ASKS ?? 100_000);
const dir = mkdtempSync(join(tmpdir(), 'ask-engine-bench-bytes-'));
const path = join(dir, 'asks.db');
try {
  const store = createSqliteAskStore({ path }, { synchronous: 'normal' });
  const service = createInteractionService({ store });
  let n = 0;
  service.registerProvider({
    ask: (_request, ctx) =>
      n++ % 10 === 9
        ? Promise.resolve({ status: 'deferred', interactionId: `thread-${ctx.askId}` })
        : new Promise(() => undefined),
  });
  const started = Date.now();
  const batch = 500;
  for (let done = 0; done < count; done += batch) {
    const outcomes: Promise<unknown>[] = [];
    for (let i = done; i < Math.min(count, done + batch); i++) {
      const handle = service.start(yesNoRequest, { timeoutMs: 3_600_000 });
      outcomes.push(
        (i % 10 === 9 ? handle.outcome : service.answer(handle.id, yesAnswer)).then(
          () => undefined,
        ),
      );
    }
    await Promise.all(outcomes);
  }
  await service.close();
  await store.close();
  const db = new Database(path);
  db.pragma('wal_checkpoint(TRUNCATE)');
  const asks = Number(db.prepare('SELECT count(*) FROM asks').pluck().get());
  const events = Number(db.prepare('SELECT count(*) FROM ask_events').pluck().get());
  const pageSize = Number(db.pragma('page_size', { simple: true }));
  const pages = Number(db.pragma('page_count', { simple: true }));
  const free = Number(db.pragma('freelist_count', { simple: true }));
  console.log(
    `${asks.toLocaleString('en')} asks, ${events.toLocaleString('en')} events, written in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  // Each ask's start is its row's own (schema version 10): one event row each, two in its history.
  if (asks !== count || events !== count) {
    throw new Error(
      `expected ${count} asks with 1 event row each, the file has ${asks} and ${events}`,
    );
  }
  const reader = createSqliteAskStore({ path });
  for (const askId of db.prepare('SELECT id FROM asks').pluck().all() as string[]) {
    let read = 0;
    for await (const _ of reader.history(askId)) read++;
    if (read !== 2) throw new Error(`expected 2 events in the history of ${askId}, read ${read}`);
  }
  await reader.close();
  record({
    name: `(h) SQLite bytes per stored ask (${count.toLocaleString('en')} asks: 90% answered, 10% deferred, 2 events each)`,
    value: ((pages - free) * pageSize) / asks,
    unit: 'B',
    goal: 700,
    detail: `pages in use after a checkpoint; file ${(statSync(path).size / 2 ** 20).toFixed(1)} MB`,
    config: "written with synchronous: 'normal' (the same bytes, written faster)",
  });
  try {
    const rows = db
      .prepare(
        'SELECT name, sum(pgsize) AS bytes, sum(payload) AS payload FROM dbstat GROUP BY name ORDER BY bytes DESC',
      )
      .all() as { name: string; bytes: number; payload: number }[];
    for (const row of rows) {
      console.log(
        `  ${row.name.padEnd(28)} ${(row.bytes / asks).toFixed(0).padStart(5)} B/ask on pages, ${(row.payload / asks).toFixed(0).padStart(5)} B/ask payload`,
      );
    }
  } catch (error) {
    console.log(`  (no dbstat: ${(error as Error).message})`);
  }
  db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(process.exitCode ?? 0);
