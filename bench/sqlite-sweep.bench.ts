/**
 * (g) 100,000 due asks among 1,000,000 stored in one SQLite file, swept by one service with the
 * options a user gets (the store's defaults, a sweep at once and then every 250 ms): the time from the service's
 * creation until every due ask has timed out. Goal <= 5 s. The file holds 800,000 answered asks,
 * 100,000 pending asks not due yet and 100,000 due ones (half pending with a service that went
 * away, half deferred), each with its history. For scale: the same claims done with plain
 * hand-written SQL on a copy of the file, one statement per batch for the rows and one for the
 * events, and the longest event-loop stall while the service sweeps.
 *
 * ASK_ENGINE_BENCH_STORED and ASK_ENGINE_BENCH_DUE change the counts.
 */
import { closeSync, copyFileSync, fsyncSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { SimulatedClock } from 'xstate';
import { createInteractionService } from '../src/index.js';
import { createSqliteAskStore } from '../src/sqlite.js';
import { requireGc, yesAnswer, yesNoRequest } from './fixtures.js';
import { report } from './ratio.js';
import { record } from './record.js';

const STORED = Number(process.env.ASK_ENGINE_BENCH_STORED ?? 1_000_000);
const DUE = Number(process.env.ASK_ENGINE_BENCH_DUE ?? 100_000);
const GOAL_S = 5;
/** Ids as a service names its asks: a UUID, then a number. */
const PREFIX = `${globalThis.crypto.randomUUID()}-`;
const gc = requireGc();
const dir = mkdtempSync(join(tmpdir(), 'ask-engine-bench-sweep-'));

try {
  const path = join(dir, 'asks.db');
  const floorPath = join(dir, 'floor.db');
  const filled = performance.now();
  await fill(path);
  copyFileSync(path, floorPath);
  // The file was filled without syncing: its first checkpoint's fsync would flush all of it
  // inside a sweep round, a stall of the fill's, not of the sweep's.
  for (const file of [path, floorPath]) syncFile(file);
  const fillS = (performance.now() - filled) / 1000;
  const floorMs = plainSqlSweep(floorPath);
  gc();
  const { sweepMs, stallMs } = await serviceSweep(path);
  record({
    name: `(g) ${DUE.toLocaleString('en')} due asks among ${STORED.toLocaleString('en')} stored in SQLite, swept by one service`,
    value: sweepMs / 1000,
    unit: 's',
    goal: GOAL_S,
    detail: `from the service's creation (its first sweep comes at once); file filled in ${fillS.toFixed(0)} s`,
  });
  report(
    {
      name: '(g) for scale: the same sweep vs plain SQL timing the same asks out (one statement per batch of 256 for rows, one for events)',
      subjectNs: sweepMs,
      floorNs: floorMs,
    },
    'ms',
  );
  record({
    name: '(g) for scale: longest event-loop stall while the service sweeps',
    value: stallMs,
    unit: 'ms',
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(process.exitCode ?? 0);

function syncFile(file: string): void {
  const fd = openSync(file, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes one ask of each kind through a service whose clock is an hour behind, then copies
 * them in SQL to `STORED` asks with their events: ids, keys of nothing, interaction ids and
 * deadlines of their own.
 */
async function fill(path: string): Promise<void> {
  const clock = new SimulatedClock();
  const now = Date.now();
  clock.set(now - 3_600_000);
  const store = createSqliteAskStore({ path }, { synchronous: 'normal' });
  const creator = createInteractionService({
    store,
    clock,
    sweepIntervalMs: Number.POSITIVE_INFINITY,
  });
  let deferring = false;
  creator.registerProvider({
    ask: (_request, ctx) =>
      deferring
        ? Promise.resolve({ status: 'deferred', interactionId: `template-${ctx.askId}` })
        : new Promise(() => undefined),
  });
  const answered = creator.start(yesNoRequest, { timeoutMs: 60_000 });
  await creator.answer(answered.id, yesAnswer);
  const pending = creator.start(yesNoRequest, { timeoutMs: 60_000 });
  await pending.stored;
  deferring = true;
  const deferred = creator.start(yesNoRequest, { timeoutMs: 60_000 });
  if ((await deferred.outcome).status !== 'deferred') throw new Error('the template did not defer');
  await creator.close();
  await store.close();

  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  const answeredCount = STORED - 2 * DUE;
  // Row i copies template `t`: answered asks first, then pending ones due in an hour, then the
  // due ones (pending and deferred alternating), deadlines a millisecond apart, all in the past.
  const copy = db.prepare(`
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < @stored),
    pick(i, t) AS (
      SELECT i, CASE WHEN i <= @answered THEN @answeredId
        WHEN i <= @answered + @due THEN @pendingId
        WHEN i % 2 = 0 THEN @pendingId ELSE @deferredId END FROM n)
    INSERT INTO asks (id, state, version, snapshot, packed, questions, outcome, interaction_id,
      "key", deadline_at, owner, final, created_at, updated_at, session_id, agent, answered_by)
    SELECT @prefix || printf('%x', i), a.state, a.version, a.snapshot, a.packed, a.questions,
      CASE WHEN a.interaction_id IS NOT NULL
        THEN json_set(a.outcome, '$.interactionId', 'thread-' || i) ELSE a.outcome END,
      CASE WHEN a.interaction_id IS NOT NULL THEN 'thread-' || i END, NULL,
      CASE WHEN i <= @answered THEN a.deadline_at
        WHEN i <= @answered + @due THEN @now + 3600000
        ELSE @now - 120000 + (i - @answered - @due) END,
      a.owner, a.final, @now - 3600000 + i, @now - 3600000 + i, a.session_id, a.agent,
      a.answered_by
    FROM pick JOIN asks a ON a.id = pick.t`);
  const events = db.prepare(`
    INSERT INTO ask_events (ask, at, type, from_state, to_state, data, recipient)
    SELECT c.seq, e.at, e.type, e.from_state, e.to_state, e.data, e.recipient
    FROM asks c JOIN asks a ON a.state = c.state AND a.id IN (@answeredId, @pendingId, @deferredId)
      JOIN ask_events e ON e.ask = a.seq
    WHERE c.id LIKE @prefix || '%' ORDER BY c.seq, e.id`);
  const params = {
    prefix: PREFIX,
    stored: STORED,
    answered: answeredCount,
    due: DUE,
    now,
    answeredId: answered.id,
    pendingId: pending.id,
    deferredId: deferred.id,
  };
  db.transaction(() => {
    copy.run(params);
    events.run({
      prefix: PREFIX,
      answeredId: answered.id,
      pendingId: pending.id,
      deferredId: deferred.id,
    });
    const templates = [answered.id, pending.id, deferred.id];
    for (const id of templates) {
      db.prepare('DELETE FROM ask_events WHERE ask = (SELECT seq FROM asks WHERE id = ?)').run(id);
      db.prepare('DELETE FROM asks WHERE id = ?').run(id);
    }
  })();
  db.exec('ANALYZE');
  const due = Number(
    db
      .prepare('SELECT count(*) FROM asks WHERE final = 0 AND deadline_at <= ?')
      .pluck()
      .get(Date.now()),
  );
  if (due !== DUE) throw new Error(`expected ${DUE} due asks, the file has ${due}`);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

/** The service's sweep: from its creation until no ask is due, with the loop's longest stall. */
async function serviceSweep(path: string): Promise<{ sweepMs: number; stallMs: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  const started = performance.now();
  const store = createSqliteAskStore({ path });
  const service = createInteractionService({ store });
  let timedOut = 0;
  let resolveDone!: () => void;
  const done = new Promise<void>((resolve) => {
    resolveDone = resolve;
  });
  const subscription = service.events$.subscribe((event) => {
    if (event.type === 'deadline' && ++timedOut === DUE) resolveDone();
  });
  histogram.enable();
  // The sweeper's timer never keeps a process alive: this one does, until the sweep is done.
  const alive = setInterval(() => undefined, 1_000);
  await done;
  clearInterval(alive);
  const sweepMs = performance.now() - started;
  histogram.disable();
  subscription.unsubscribe();
  await service.close();
  await store.close();
  const db = new Database(path, { readonly: true });
  const check = db
    .prepare(
      `SELECT (SELECT count(*) FROM asks WHERE final = 0 AND deadline_at <= ?) AS open,
        (SELECT count(*) FROM ask_events WHERE type = 'deadline') AS deadlines,
        (SELECT count(DISTINCT ask) FROM ask_events WHERE type = 'deadline') AS asks`,
    )
    .get(Date.now()) as { open: number; deadlines: number; asks: number };
  db.close();
  if (check.open !== 0 || check.deadlines !== DUE || check.asks !== DUE) {
    throw new Error(`expected ${DUE} asks timed out once each, got ${JSON.stringify(check)}`);
  }
  return { sweepMs, stallMs: histogram.max / 1e6 - 10 };
}

/**
 * The floor: the due asks timed out with plain SQL, 256 per write transaction: one UPDATE of
 * the rows (state, version, outcome, final, times) and one INSERT of their events.
 */
function plainSqlSweep(path: string): number {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  const claim = db.prepare(`
    UPDATE asks SET state = 'timedOut', version = version + 1, final = 1, updated_at = @now,
      outcome = json_object('status', 'timedOut', 'deadlineAt', deadline_at)
    WHERE seq IN (SELECT seq FROM asks WHERE final = 0 AND deadline_at <= @now
      ORDER BY deadline_at LIMIT 256)
    RETURNING seq, state`);
  const event = db.prepare(`
    INSERT INTO ask_events (ask, at, type, from_state, to_state, data)
    SELECT value, @now, 'deadline', 'pending', 'timedOut', '{}' FROM json_each(@seqs)`);
  const started = performance.now();
  let total = 0;
  for (;;) {
    const now = Date.now();
    db.exec('BEGIN IMMEDIATE');
    const rows = claim.all({ now }) as { seq: number }[];
    event.run({ now, seqs: JSON.stringify(rows.map((row) => row.seq)) });
    db.exec('COMMIT');
    total += rows.length;
    if (rows.length < 256) break;
  }
  const elapsed = performance.now() - started;
  db.close();
  if (total !== DUE) throw new Error(`the floor timed out ${total} asks, not ${DUE}`);
  return elapsed;
}
