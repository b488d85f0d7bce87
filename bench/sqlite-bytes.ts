/**
 * Bytes per stored ask in SQLite (issue 20: goal <= 700 B). Writes N asks through a service
 * (ASK_ENGINE_BENCH_ASKS, default 100,000): 90% answered, 10% deferred, each with its two
 * audit events, then checkpoints the WAL and prints the file size per ask and, where SQLite
 * has the dbstat table, the bytes per ask of each table and index.
 *
 * Run: node --import tsx bench/sqlite-bytes.ts (or with tsx directly).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createInteractionService } from '../src/engine/service.js';
import { createSqliteAskStore } from '../src/stores/sqlite-store.js';
import { yesAnswer, yesNoRequest } from './fixtures.js';

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
  console.log(
    `file ${(statSync(path).size / 2 ** 20).toFixed(1)} MB; used pages ${(((pages - free) * pageSize) / asks).toFixed(0)} B per ask`,
  );
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
  const sample = db.prepare('SELECT * FROM asks WHERE state = ? LIMIT 1');
  console.log('  an answered row:', JSON.stringify(sample.get('answered')));
  db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
