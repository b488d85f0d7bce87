/**
 * The shared SQL rules (`ask-rules-sql.ts`) are dialect-neutral: written in SQLite's spelling
 * (booleans 0 and 1) they select the same rows as the rules the memory store keeps as code
 * (`leaseRuns`, `claimable`). PostgreSQL runs them through its store's contract tests.
 */
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  claimableEntry,
  claimableWork,
  droppedAtSettle,
  dueAsk,
  heldBy,
  leasedForTry,
  noLiveOwner,
  purgeable,
  type RuleDialect,
  textPiece,
  waitsForSettle,
} from '../../src/stores/ask-rules-sql.js';
import { leaseRuns } from '../../src/stores/owner-lease.js';
import { claimable } from '../../src/stores/work-claims.js';

/** SQLite's spelling: a boolean column holds 0 or 1; values are named parameters. */
const sqlite: RuleDialect<string> = {
  sql: textPiece,
  raw: (text) => text,
  is: (column, value) => `${column} = ${value ? 1 : 0}`,
};

const NOW = 1_000;
let db: Database.Database;

beforeEach(() => {
  db = new Database(':memory:');
  db.exec(`
    CREATE TABLE asks (id TEXT PRIMARY KEY, final INTEGER NOT NULL, deadline_at REAL,
      updated_at REAL NOT NULL, owner TEXT);
    CREATE TABLE ask_leases (owner TEXT PRIMARY KEY, lease_until REAL NOT NULL);
    CREATE TABLE ask_outbox (delivery_id TEXT PRIMARY KEY, ask_id TEXT NOT NULL, due_at REAL,
      done_at REAL, claimed_until REAL NOT NULL DEFAULT 0, while_open INTEGER NOT NULL,
      attempts INTEGER NOT NULL DEFAULT 0);
    CREATE TABLE ask_claims ("key" TEXT PRIMARY KEY, holder TEXT NOT NULL,
      lease_until REAL NOT NULL, done_at REAL);
    INSERT INTO ask_leases VALUES ('live', ${NOW + 1}), ('ended', ${NOW}), ('gone', ${NOW - 1});
  `);
});

afterEach(() => db.close());

function ids(sql: string, params: Record<string, unknown> = {}): string[] {
  return (db.prepare(sql).all({ now: NOW, ...params }) as { id: string }[]).map((row) => row.id);
}

const LEASES = { leases: 'ask_leases' };
const OUTBOX = { outbox: 'ask_outbox' };

describe('ask rules in SQL', () => {
  it('leaves an ask to its owner only while the owner lease runs past now (leaseRuns)', () => {
    const owners = [undefined, 'live', 'ended', 'gone', 'unknown'];
    const insert = db.prepare('INSERT INTO asks VALUES (?, 0, 0, 0, ?)');
    for (const owner of owners) insert.run(`ask-${owner ?? 'none'}`, owner ?? null);
    const leases = new Map([
      ['live', NOW + 1],
      ['ended', NOW],
      ['gone', NOW - 1],
    ]);
    const free = owners
      .filter((owner) => owner === undefined || !leaseRuns(leases.get(owner), NOW))
      .map((owner) => `ask-${owner ?? 'none'}`);
    expect(free).toEqual(['ask-none', 'ask-ended', 'ask-gone', 'ask-unknown']);
    expect(
      ids(`SELECT id FROM asks a WHERE ${noLiveOwner(sqlite, LEASES, 'a', '@now')} ORDER BY rowid`),
    ).toEqual(free);
  });

  it('finds due asks: open, deadline passed, no live owner', () => {
    db.exec(`INSERT INTO asks VALUES
      ('due', 0, ${NOW}, 0, NULL), ('later', 0, ${NOW + 1}, 0, NULL),
      ('final', 1, ${NOW - 5}, 0, NULL), ('no-deadline', 0, NULL, 0, NULL),
      ('owned', 0, ${NOW - 5}, 0, 'live'), ('owner-ended', 0, ${NOW - 5}, 0, 'ended')`);
    expect(
      ids(`SELECT id FROM asks a WHERE ${dueAsk(sqlite, LEASES, 'a', '@now')} ORDER BY id`),
    ).toEqual(['due', 'owner-ended']);
  });

  it('purges final asks settled before the cut whose live owner does not hold them', () => {
    db.exec(`INSERT INTO asks VALUES
      ('old', 1, NULL, 10, NULL), ('at-cut', 1, NULL, 20, NULL), ('open', 0, NULL, 10, NULL),
      ('unheard', 1, NULL, 10, 'live'), ('heard-late', 1, NULL, 10, 'gone')`);
    expect(
      ids(
        `SELECT id FROM asks a WHERE ${purgeable(sqlite, LEASES, 'a', '@before', '@now')} ORDER BY id`,
        { before: 20 },
      ),
    ).toEqual(['heard-late', 'old']);
  });

  it('claims outbox entries that are due, not done, not leased, and not held back', () => {
    db.exec(`INSERT INTO ask_outbox (delivery_id, ask_id, due_at, done_at, claimed_until, while_open) VALUES
      ('due', 'a1', ${NOW}, NULL, 0, 0), ('later', 'a1', ${NOW + 1}, NULL, 0, 0),
      ('waiting', 'a1', NULL, NULL, 0, 0), ('done', 'a1', 1, 5, 0, 0),
      ('leased', 'a1', 1, NULL, ${NOW + 1}, 0), ('lease-ran-out', 'a1', 1, NULL, ${NOW}, 0),
      ('sending', 'a2', 1, NULL, ${NOW + 1}, 1), ('settled-held', 'a2', 1, NULL, 0, 0),
      ('open-too', 'a2', 1, NULL, 0, 1)`);
    const claimable = claimableEntry(sqlite, OUTBOX, 'o', '@now');
    expect(
      db
        .prepare(`SELECT delivery_id FROM ask_outbox o WHERE ${claimable} ORDER BY delivery_id`)
        .pluck()
        .all({ now: NOW }),
    ).toEqual(['due', 'lease-ran-out', 'open-too']);
  });

  it('settles an ask: waiting entries become due, unleased ones about the open ask go', () => {
    db.exec(`INSERT INTO ask_outbox (delivery_id, ask_id, due_at, done_at, claimed_until, while_open) VALUES
      ('waiting', 'a', NULL, NULL, 0, 0), ('timed', 'a', 5, NULL, 0, 0),
      ('done', 'a', NULL, 3, 0, 0), ('open', 'a', 1, NULL, 0, 1),
      ('open-sending', 'a', 1, NULL, ${NOW + 1}, 1), ('open-done', 'a', 1, 2, 0, 1),
      ('other-ask', 'b', NULL, NULL, 0, 0)`);
    db.prepare(
      `DELETE FROM ask_outbox AS o WHERE o.ask_id = 'a' AND ${droppedAtSettle(sqlite, 'o', '@now')}`,
    ).run({ now: NOW });
    db.prepare(
      `UPDATE ask_outbox AS o SET due_at = @now WHERE o.ask_id = 'a' AND ${waitsForSettle(sqlite, 'o')}`,
    ).run({ now: NOW });
    expect(
      db.prepare('SELECT delivery_id, due_at FROM ask_outbox ORDER BY delivery_id').raw().all(),
    ).toEqual([
      ['done', null],
      ['open-done', 1],
      ['open-sending', 1],
      ['other-ask', null],
      ['timed', 5],
      ['waiting', NOW],
    ]);
  });

  it('takes a work claim when claimable says so', () => {
    const rows = [
      { key: 'free', holder: 'other', leaseUntil: NOW, doneAt: undefined },
      { key: 'held', holder: 'other', leaseUntil: NOW + 1, doneAt: undefined },
      { key: 'own', holder: 'me', leaseUntil: NOW + 1, doneAt: undefined },
      { key: 'done', holder: 'me', leaseUntil: NOW - 1, doneAt: 5 },
    ];
    const insert = db.prepare('INSERT INTO ask_claims VALUES (?, ?, ?, ?)');
    for (const row of rows) insert.run(row.key, row.holder, row.leaseUntil, row.doneAt ?? null);
    const expected = rows.filter((row) => claimable(row, 'me', NOW)).map((row) => row.key);
    expect(expected).toEqual(['free', 'own']);
    expect(
      db
        .prepare(
          `SELECT "key" FROM ask_claims c WHERE ${claimableWork(sqlite, 'c', '@holder', '@now')} ORDER BY rowid`,
        )
        .pluck()
        .all({ now: NOW, holder: 'me' }),
    ).toEqual(expected);
  });

  it('renews an outbox lease only for the try that holds it', () => {
    db.exec(`INSERT INTO ask_outbox (delivery_id, ask_id, due_at, done_at, claimed_until,
        while_open, attempts) VALUES
      ('this-try', 'a', 1, NULL, ${NOW + 1}, 0, 2), ('claimed-again', 'a', 1, NULL, ${NOW + 1}, 0, 3),
      ('done', 'a', 1, 5, 0, 0, 2), ('released', 'a', 1, NULL, 0, 0, 2),
      ('lease-ran-out', 'a', 1, NULL, ${NOW - 1}, 0, 2)`);
    expect(
      db
        .prepare(
          `SELECT delivery_id FROM ask_outbox o WHERE ${leasedForTry(sqlite, 'o', '@attempts')} ORDER BY rowid`,
        )
        .pluck()
        .all({ attempts: 2 }),
    ).toEqual(['this-try', 'lease-ran-out']);
  });

  it("renews, finishes or releases a work claim only while it is the holder's and not done", () => {
    db.exec(`INSERT INTO ask_claims VALUES
      ('mine', 'me', ${NOW + 1}, NULL), ('ran-out', 'me', ${NOW - 1}, NULL),
      ('theirs', 'other', ${NOW + 1}, NULL), ('finished', 'me', ${NOW + 1}, 5)`);
    expect(
      db
        .prepare(
          `SELECT "key" FROM ask_claims c WHERE ${heldBy(sqlite, 'c', '@holder')} ORDER BY rowid`,
        )
        .pluck()
        .all({ holder: 'me' }),
    ).toEqual(['mine', 'ran-out']);
  });
});
