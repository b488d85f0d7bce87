/** The SQLite store: the shared contract on a file and on a minimal handle, then what is SQLite's own. */

import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AskStore,
  createInteractionService,
  createMemoryAskStore,
  type StoredAsk,
} from 'ask-engine';
import { createSqliteAskStore, type SqliteDatabase } from 'ask-engine/sqlite';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { UPDATED_COLUMNS } from '../../src/stores/sqlite/rows.js';
import { SQLITE_SCHEMA_VERSION } from '../../src/stores/sqlite/schema.js';
import { bundleProgram } from '../support/program-bundle.js';
import {
  answeredByWrite,
  answerWrite,
  collect,
  deferWrite,
  lateAnswerEvent,
  progressWrite,
  rowStartWrite,
  startWrite,
  timeoutWrite,
  waitUntil,
} from './ask-rows.js';
import { describeAskStoreContract } from './store-contract.js';

let dir = '';
const freshDir = () => {
  dir = mkdtempSync(join(tmpdir(), 'ask-engine-sqlite-'));
  return dir;
};
const removeDir = async () => rmSync(dir, { recursive: true, force: true });

describeAskStoreContract('the SQLite store on a file', {
  create: async () =>
    createSqliteAskStore({ path: join(freshDir(), 'asks.db') }, { pollIntervalMs: 5 }),
  connect: async () => createSqliteAskStore({ path: join(dir, 'asks.db') }, { pollIntervalMs: 5 }),
  cleanup: removeDir,
  endsClaimsEarly: true,
});

/**
 * Only `exec` and `prepare`, statements with only `run` (no lastInsertRowid), `get` and `all`:
 * the subset the store documents, as node:sqlite's DatabaseSync or libsql would offer it.
 */
function minimalHandle(db: Database.Database): SqliteDatabase {
  return {
    exec: (sql) => void db.exec(sql),
    prepare: (sql) => {
      const statement = db.prepare(sql);
      return {
        run: (...params) => ({ changes: statement.run(...params).changes }),
        get: (...params) => statement.get(...params),
        all: (...params) => statement.all(...params),
      };
    },
  };
}

const handles: Database.Database[] = [];
describeAskStoreContract('the SQLite store on a minimal { database } handle', {
  create: async () => {
    const db = new Database(join(freshDir(), 'asks.db'));
    handles.push(db);
    return createSqliteAskStore({ database: minimalHandle(db) }, { pollIntervalMs: 5 });
  },
  connect: async () => {
    const db = new Database(join(dir, 'asks.db'));
    handles.push(db);
    return createSqliteAskStore({ database: minimalHandle(db) }, { pollIntervalMs: 5 });
  },
  cleanup: async () => {
    // The store never closes a handle it was given: its owner does.
    for (const db of handles.splice(0)) {
      expect(db.open).toBe(true);
      db.close();
    }
    await removeDir();
  },
  endsClaimsEarly: true,
});

/**
 * After a swept batch: another connection writes the ask `later`; a subscriber hears each swept
 * ask once and the other connection's write once, and nothing more.
 */
async function expectToldOnceThenOther(
  changes: unknown[],
  swept: { ask: StoredAsk }[],
  other: AskStore,
): Promise<void> {
  const later = (await other.get('later')) as StoredAsk;
  await other.update(progressWrite(later, 'other'), 1);
  await waitUntil(() => changes.length > swept.length, 'the other connection’s write');
  await new Promise((resolve) => setTimeout(resolve, 30));
  expect(changes).toHaveLength(swept.length + 1);
  expect(changes).toEqual(
    expect.arrayContaining([
      ...swept.map(({ ask }) => ({ type: 'changed', askId: ask.askId, version: 2 })),
      { type: 'changed', askId: 'later', version: 2 },
    ]),
  );
}

describe('the SQLite store', () => {
  let path: string;
  const stores: AskStore[] = [];
  const open = (options = {}) => {
    const store = createSqliteAskStore({ path }, { pollIntervalMs: 5, ...options });
    stores.push(store);
    return store;
  };
  /** A second, raw connection to the file, for what the store must cope with. */
  const raw = () => {
    const db = new Database(path);
    handles.push(db);
    return db;
  };

  beforeEach(() => {
    path = join(freshDir(), 'asks.db');
  });
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    for (const db of handles.splice(0)) db.close();
    await removeDir();
  });

  describe('schema', () => {
    it('creates its tables in WAL mode and records each migration once', async () => {
      await open().get('ask-1');
      await open().get('ask-1');
      const db = raw();
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      // Each step of the store's migrations once, in order.
      expect(db.prepare('SELECT version FROM ask_schema_version').all()).toEqual(
        Array.from({ length: SQLITE_SCHEMA_VERSION }, (_, i) => ({ version: i + 1 })),
      );
      const tables = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .pluck()
        .all();
      expect(tables).toEqual(
        expect.arrayContaining(['ask_events', 'ask_outbox', 'asks', 'ask_schema_version']),
      );
      const indexes = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")
        .pluck()
        .all();
      expect(indexes).toEqual(
        expect.arrayContaining([
          'asks_key',
          'asks_open_interaction',
          'asks_interaction',
          'asks_due',
          'ask_events_by_ask',
          'ask_outbox_due',
          'asks_answered_by',
          'ask_events_recipient',
        ]),
      );
    });

    it('fills the answered-by and recipient columns of step 5 from rows written before it', async () => {
      const before = open();
      const start = startWrite({ askId: 'answered' });
      await before.create(start);
      await before.update(answeredByWrite(start.ask, { recipient: 'alice' }), 1);
      const waiting = startWrite({ askId: 'waiting' });
      await before.create(waiting);
      const deferred = deferWrite(waiting.ask, 'thread-1');
      await before.update(deferred, 1);
      await before.append({
        askId: 'waiting',
        type: 'notified',
        at: 5,
        from: 'deferred',
        to: 'deferred',
        data: { recipient: 'bob', channel: 'email', deliveryId: 'd-1', kind: 'created' },
      });
      await before.close();
      // The file as a build before the filters' step (version 6) left it (nor had it the
      // attachments of version 13).
      raw().exec(`DROP INDEX asks_answered_by; DROP INDEX ask_events_recipient;
        ALTER TABLE asks DROP COLUMN answered_by; ALTER TABLE ask_events DROP COLUMN recipient;
        ALTER TABLE asks DROP COLUMN attachment;
        DELETE FROM ask_schema_version WHERE version >= 6;`);
      const after = open();
      const ids = async (filter: Parameters<AskStore['list']>[0]) =>
        (await after.list(filter)).items.map((ask) => ask.askId);
      expect(await ids({ answeredBy: 'alice' })).toEqual(['answered']);
      expect(await ids({ notified: 'bob', state: ['pending', 'deferred'] })).toEqual(['waiting']);
      expect(await ids({ notified: 'alice' })).toEqual([]);
    });

    it('refuses a file written by a newer schema, naming both versions', async () => {
      await open().get('ask-1');
      const newer = SQLITE_SCHEMA_VERSION + 2;
      raw()
        .prepare('INSERT INTO ask_schema_version (version, applied_at) VALUES (?, 0)')
        .run(newer);
      await expect(open().get('ask-1')).rejects.toThrow(
        `schema version ${newer}, but this ask-engine knows versions up to ${SQLITE_SCHEMA_VERSION}: upgrade ask-engine`,
      );
    });

    it('says where a file could not be opened', async () => {
      const store = createSqliteAskStore({ path: join(dir, 'missing', 'asks.db') });
      stores.push(store);
      await expect(store.get('ask-1')).rejects.toThrow(
        /Cannot open the SQLite ask store at .*missing\/asks\.db/,
      );
    });
  });

  describe('rows that are not what the store wrote', () => {
    beforeEach(async () => {
      const store = open();
      await store.create(startWrite({ askId: 'ask-1', key: 'step-1', deadlineAt: 10 }));
      await store.create(startWrite({ askId: 'ask-2', deadlineAt: 20 }));
      await store.close();
    });

    it('refuses a snapshot that is not JSON, naming the ask and the column', async () => {
      raw().prepare("UPDATE asks SET snapshot = '{\"status\": ' WHERE id = 'ask-1'").run();
      const store = open();
      await expect(store.get('ask-1')).rejects.toThrow(
        /^Ask ask-1 in the SQLite store has a corrupt "snapshot" column \(not JSON \(/,
      );
      await expect(store.findByKey('step-1')).rejects.toThrow(/ask-1 .* corrupt "snapshot" column/);
    });

    it('lets a sweeper skip a corrupt due ask, report it, and claim the ones after it', async () => {
      raw().prepare("UPDATE asks SET snapshot = 'null' WHERE id = 'ask-1'").run();
      const errors: unknown[] = [];
      const store = open({ onError: (error: unknown) => errors.push(error) });
      const writes = await store.claimDue(100, 1, (ask) => timeoutWrite(ask, 100));
      expect(writes.map((write) => write.ask.askId)).toEqual(['ask-2']);
      expect((await store.get('ask-2'))?.state).toBe('timedOut');
      expect(errors).toHaveLength(1);
      expect(String(errors[0])).toContain(
        'Ask ask-1 in the SQLite store has a corrupt "snapshot" column (not a JSON object, got null)',
      );
      // It stays as it was, for a person to look at.
      expect(raw().prepare("SELECT version FROM asks WHERE id = 'ask-1'").pluck().get()).toBe(1);
    });

    it('refuses questions that are not an array and an outcome that is not an object', async () => {
      const db = raw();
      db.prepare("UPDATE asks SET questions = '{}' WHERE id = 'ask-1'").run();
      db.prepare("UPDATE asks SET outcome = '\"answered\"' WHERE id = 'ask-2'").run();
      const store = open();
      await expect(store.get('ask-1')).rejects.toThrow(
        'Ask ask-1 in the SQLite store has a corrupt "questions" column (not a JSON array, got {})',
      );
      await expect(store.get('ask-2')).rejects.toThrow(
        'Ask ask-2 in the SQLite store has a corrupt "outcome" column (not a JSON object, got "answered")',
      );
    });

    it('leaves a history event that does not parse out of the history, and reports it', async () => {
      const store = open();
      await store.update(answerWrite((await store.get('ask-2'))!), 1);
      const db = raw();
      db.prepare("UPDATE ask_events SET data = 'start' WHERE type = 'start'").run();
      db.prepare("UPDATE ask_events SET at = 'noon' WHERE type = 'answer'").run();
      const errors: unknown[] = [];
      const reporting = open({ onError: (error: unknown) => errors.push(error) });
      expect(await collect(reporting.history('ask-2'))).toEqual([]);
      expect(await collect(reporting.history('ask-1'))).toEqual([]);
      expect(errors.map(String)).toEqual([
        expect.stringMatching(
          /^CorruptAskRowError: Ask ask-2 in the SQLite store has a corrupt "ask_events \(event \d+\)\.data" column \(not JSON/,
        ),
        expect.stringMatching(
          /^CorruptAskRowError: Ask ask-2 in the SQLite store has a corrupt "ask_events \(event \d+\)\.at" column \(not a time, got "noon"\)/,
        ),
        expect.stringMatching(/Ask ask-1 .* "ask_events \(event \d+\)\.data" column/),
      ]);
    });
  });

  describe('histories', () => {
    it('reads each history whole and in order, however the writes of several asks interleave', async () => {
      const store = open();
      const ids = ['a', 'b', 'c'];
      const current = new Map<string, StoredAsk>();
      for (const askId of ids) {
        const write = startWrite({ askId, deadlineAt: 5 });
        await store.create(write);
        current.set(askId, write.ask);
      }
      // In turns: a progress write, an appended event, another progress write, then a
      // swept timeout for every ask (one batch on the store's connection) or an answer.
      for (const step of ['progress', 'late', 'progress'] as const) {
        for (const askId of ids) {
          const ask = current.get(askId)!;
          if (step === 'late') {
            await store.append(lateAnswerEvent(askId, ask.updatedAt));
            continue;
          }
          const write = progressWrite(ask, `writer-${askId}`);
          await store.update(write, ask.version);
          current.set(askId, write.ask);
        }
      }
      await store.update(answerWrite(current.get('b')!), current.get('b')!.version);
      const swept = await store.claimDue(Number.MAX_SAFE_INTEGER, 10, (ask) =>
        timeoutWrite(ask, 10_000),
      );
      expect(swept.map(({ ask }) => ask.askId).sort()).toEqual(['a', 'c']);
      const types = async (askId: string) =>
        (await collect(store.history(askId))).map((event) => event.type);
      const middle = ['start', 'provider.progress', 'late-answer', 'provider.progress'];
      expect(await types('a')).toEqual([...middle, 'deadline']);
      expect(await types('b')).toEqual([...middle, 'answer']);
      expect(await types('c')).toEqual([...middle, 'deadline']);
      expect(await collect(store.history('unknown'))).toEqual([]);
    });
  });

  describe('writes', () => {
    it('refuses to create an ask under an interaction id an open ask holds', async () => {
      const store = open();
      const first = startWrite({ askId: 'ask-1' });
      await store.create(first);
      await store.update(deferWrite(first.ask, 'thread-1'), 1);
      const second = deferWrite(startWrite({ askId: 'ask-2' }).ask, 'thread-1');
      await expect(store.create(second)).rejects.toThrow(
        'Cannot create ask ask-2: interaction id thread-1 belongs to ask ask-1, which is not final.',
      );
      expect(await store.get('ask-2')).toBeUndefined();
      expect(await collect(store.history('ask-2'))).toEqual([]);
    });

    it('stores an answer once: in the outcome, not again in its event', async () => {
      const store = open();
      const start = startWrite({ askId: 'ask-1' });
      await store.create(start);
      const answer = answerWrite(start.ask);
      await store.update(answer, 1);
      const redacted = startWrite({ askId: 'ask-2' });
      await store.create(redacted);
      const hidden = answerWrite(redacted.ask);
      hidden.event = { ...hidden.event, data: { answers: '[redacted]' } } as typeof hidden.event;
      await store.update(hidden, 1);
      const data = raw()
        .prepare("SELECT data FROM ask_events WHERE type = 'answer' ORDER BY id")
        .pluck()
        .all();
      expect(data).toEqual([null, '{"answers":"[redacted]"}']);
      expect(await collect(store.history('ask-1'))).toEqual([start.event, answer.event]);
      expect(await collect(store.history('ask-2'))).toEqual([redacted.event, hidden.event]);
      const snapshot = raw().prepare("SELECT snapshot FROM asks WHERE id = 'ask-1'").pluck().get();
      expect(String(snapshot)).not.toContain('Yes');
    });

    it('stores who answered once with the answers, and apart when the answers are redacted', async () => {
      const store = open();
      const by = { recipient: 'alice@example.com', channel: 'email' };
      const plain = startWrite({ askId: 'ask-1' });
      await store.create(plain);
      const answered = answeredByWrite(plain.ask, by);
      await store.update(answered, 1);
      const redacted = startWrite({ askId: 'ask-2' });
      await store.create(redacted);
      const hidden = answeredByWrite(redacted.ask, by, true);
      await store.update(hidden, 1);
      const data = raw()
        .prepare("SELECT data FROM ask_events WHERE type = 'answer' ORDER BY id")
        .pluck()
        .all();
      expect(data).toEqual([
        null,
        '{"answers":"[redacted]","answeredBy":{"recipient":"alice@example.com","channel":"email"}}',
      ]);
      expect(await collect(store.history('ask-1'))).toEqual([plain.event, answered.event]);
      expect(await collect(store.history('ask-2'))).toEqual([redacted.event, hidden.event]);
    });

    it('keeps a row and its event together when the event cannot be written', async () => {
      const store = open();
      const start = startWrite({ askId: 'ask-1' });
      await store.create(start);
      // A trigger stands in for a failure between the two statements (disk full, I/O error).
      raw().exec(
        "CREATE TRIGGER fail_events BEFORE INSERT ON ask_events BEGIN SELECT RAISE(ABORT, 'disk is full'); END",
      );
      // The write names an owner the file has not seen: its name is rolled back with the row.
      const taken = progressWrite(start.ask, 'new-owner');
      await expect(store.update(taken, 1)).rejects.toThrow(/disk is full/);
      expect(await store.get('ask-1')).toEqual(start.ask);
      raw().exec('DROP TRIGGER fail_events');
      expect(await store.update(taken, 1)).toEqual({ ok: true });
      expect(await store.get('ask-1')).toEqual(taken.ask);
      expect((await store.get('ask-1'))?.owner).toBe('new-owner');
    });

    it('names the store and the setting when another connection holds the lock too long', async () => {
      const store = open({ busyTimeoutMs: 30 });
      const start = startWrite({ askId: 'ask-1' });
      await store.create(start);
      const db = raw();
      db.exec('BEGIN IMMEDIATE');
      try {
        await expect(store.update(answerWrite(start.ask), 1)).rejects.toThrow(
          /^The SQLite ask store at .*asks\.db stayed locked by another connection for longer than busyTimeoutMs \(30 ms\): database is locked/,
        );
      } finally {
        db.exec('ROLLBACK');
      }
      expect(await store.update(answerWrite(start.ask), 1)).toEqual({ ok: true });
    });
  });

  describe('statements per write', () => {
    it('writes a durable ask with statements prepared once: no read, no pragma, no re-prepare', async () => {
      const db = raw();
      const executed: string[] = [];
      let prepared = 0;
      const counting: SqliteDatabase = {
        exec: (sql) => {
          executed.push(sql);
          return db.exec(sql);
        },
        prepare: (sql) => {
          prepared++;
          const statement = db.prepare(sql);
          const text = sql.replace(/\s+/g, ' ').trim();
          return {
            run: (...params) => {
              executed.push(text);
              return statement.run(...params);
            },
            get: (...params) => {
              executed.push(text);
              return statement.get(...params);
            },
            all: (...params) => {
              executed.push(text);
              return statement.all(...params);
            },
          };
        },
      };
      // The poll for other connections' writes waits a minute: whatever runs here, a write ran.
      const store = createSqliteAskStore({ database: counting }, { pollIntervalMs: 60_000 });
      stores.push(store);
      const service = createInteractionService({ store, sweepIntervalMs: 60_000 });
      service.registerProvider({ ask: () => new Promise(() => undefined) });
      const durableAsk = async () => {
        const handle = service.start(
          { question: 'Deploy?', options: [{ title: 'Yes' }, { title: 'No' }] },
          { timeoutMs: 60_000 },
        );
        await service.answer(handle.id, [
          { questionId: 'q1', response: { kind: 'selection', selections: ['Yes'] } },
        ]);
      };
      await durableAsk();
      executed.length = 0;
      prepared = 0;
      for (let n = 0; n < 5; n++) await durableAsk();
      // Counted before the close, whose release of the service's lease is no ask's.
      const perAsk = executed.splice(0);
      await service.close();
      executed.splice(0, executed.length, ...perAsk);
      expect(prepared).toBe(0);
      expect(executed.filter((sql) => /^(SELECT|PRAGMA)\b/i.test(sql))).toEqual([]);
      // Per ask: the row (which stands for its start event), then the answer and its event (and
      // the outbox entries a final write settles), each in one transaction.
      expect(executed.filter((sql) => sql === 'BEGIN IMMEDIATE')).toHaveLength(10);
      expect(executed.filter((sql) => /^INSERT INTO asks\b/.test(sql))).toHaveLength(5);
      expect(executed.filter((sql) => /^UPDATE asks\b/.test(sql))).toHaveLength(5);
      expect(executed.filter((sql) => /^INSERT INTO ask_events\b/.test(sql))).toHaveLength(5);
      expect(executed).toHaveLength(45);
    });
  });

  describe('done marks of the outbox', () => {
    /** The store on a raw connection whose `exec` calls (pragmas, BEGIN, COMMIT) are recorded. */
    const recorded = (options = {}) => {
      const db = raw();
      const executed: string[] = [];
      const handle: SqliteDatabase = {
        exec: (sql) => {
          executed.push(sql);
          return db.exec(sql);
        },
        prepare: (sql) => db.prepare(sql),
      };
      const store = createSqliteAskStore(
        { database: handle },
        { pollIntervalMs: 60_000, ...options },
      );
      stores.push(store);
      return { db, executed, store };
    };
    /** An ask with one entry due at once, claimed: ready to be marked done. */
    const claimedEntry = async (store: AskStore) => {
      const start = startWrite({ askId: 'ask-1' });
      await store.create({
        ...start,
        outbox: [{ deliveryId: 'd-1', askId: 'ask-1', channel: 'email', due: 0, payload: {} }],
      });
      const [claimed] = await store.claimOutbox(Date.now(), 10, 60_000, ['email']);
      expect(claimed?.deliveryId).toBe('d-1');
      return start;
    };
    const level = (db: Database.Database) => db.pragma('synchronous', { simple: true });
    const notifiedEvent = (at: number) => ({
      askId: 'ask-1',
      type: 'notified' as const,
      at,
      from: 'pending' as const,
      to: 'pending' as const,
      data: { recipient: 'alice', channel: 'email', deliveryId: 'd-1', kind: 'created' as const },
    });

    it('commits a done mark without waiting for the disk, and only that write', async () => {
      const { db, executed, store } = recorded();
      const start = await claimedEntry(store);
      // FULL by default, kept after writes (better-sqlite3 alone lowers a WAL connection).
      expect(level(db)).toBe(2);
      // Set once, on opening; the ask's own write waits for the disk: no pragma around it.
      expect(executed.filter((sql) => sql.startsWith('PRAGMA synchronous'))).toEqual([
        'PRAGMA synchronous = FULL',
      ]);
      executed.length = 0;
      const event = notifiedEvent(start.event.at + 1);
      expect(await store.completeOutbox('d-1', Date.now(), event)).toBe(true);
      expect(executed).toEqual([
        'PRAGMA synchronous = NORMAL',
        'BEGIN IMMEDIATE',
        'COMMIT',
        'PRAGMA synchronous = 2',
      ]);
      expect(level(db)).toBe(2);
      expect((await collect(store.history('ask-1'))).map((e) => e.type)).toEqual([
        'start',
        'notified',
      ]);
      // A stricter level of the handle's owner (EXTRA) is put back as it was.
      db.pragma('synchronous = EXTRA');
      expect(await store.completeOutbox('d-1', Date.now())).toBe(false);
      expect(executed.at(-1)).toBe('PRAGMA synchronous = 3');
      expect(level(db)).toBe(3);
    });

    it('puts the level back when the mark fails, and the entry stays to be sent again', async () => {
      const { db, store } = recorded();
      const start = await claimedEntry(store);
      db.exec(
        "CREATE TRIGGER fail_events BEFORE INSERT ON ask_events BEGIN SELECT RAISE(ABORT, 'disk is full'); END",
      );
      const event = notifiedEvent(start.event.at + 1);
      await expect(store.completeOutbox('d-1', Date.now(), event)).rejects.toThrow(/disk is full/);
      expect(level(db)).toBe(2);
      db.exec('DROP TRIGGER fail_events');
      // Not done: once its lease has run out it is claimed again.
      const again = await store.claimOutbox(Date.now() + 61_000, 10, 60_000, ['email']);
      expect(again.map((entry) => [entry.deliveryId, entry.attempts])).toEqual([['d-1', 2]]);
    });

    it('leaves the level alone where commits do not wait anyway', async () => {
      const { db, executed, store } = recorded({ synchronous: 'normal' });
      await claimedEntry(store);
      executed.length = 0;
      expect(await store.completeOutbox('d-1', Date.now())).toBe(true);
      expect(executed).toEqual(['BEGIN IMMEDIATE', 'COMMIT']);
      expect(level(db)).toBe(1);
    });
  });

  describe('change feed', () => {
    it('tells its own writes once, whether or not another connection writes', async () => {
      const store = open();
      const changes: unknown[] = [];
      await store.get('ask-1');
      store.subscribe((change) => changes.push(change));
      const start = startWrite({ askId: 'ask-1' });
      await store.create(start);
      await waitUntil(() => changes.length >= 1, 'the first change');
      const progress = progressWrite(start.ask, 'w1');
      await store.update(progress, 1);
      await new Promise((resolve) => setTimeout(resolve, 20));
      // Another connection's write makes the feed read the events; ours are not told again,
      // not even one written after the other's and before the next poll.
      const other = createSqliteAskStore({ database: raw() });
      stores.push(other);
      await other.create(startWrite({ askId: 'ask-2' }));
      await store.update(progressWrite(progress.ask, 'w1'), 2);
      await waitUntil(() => changes.length >= 4, 'the other connection’s write');
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(changes).toHaveLength(4);
      expect(changes).toEqual(
        expect.arrayContaining([
          { type: 'changed', askId: 'ask-1', version: 1 },
          { type: 'changed', askId: 'ask-1', version: 2 },
          { type: 'changed', askId: 'ask-2', version: 1 },
          { type: 'changed', askId: 'ask-1', version: 3 },
        ]),
      );
    });

    it('tells a swept batch once, and still hears another connection written after it', async () => {
      const store = open();
      const other = createSqliteAskStore({ database: raw() });
      stores.push(other);
      for (let n = 0; n < 6; n++)
        await other.create(startWrite({ askId: `due-${n}`, deadlineAt: 5 }));
      await other.create(startWrite({ askId: 'later' }));
      await store.get('due-0');
      const changes: unknown[] = [];
      store.subscribe((change) => changes.push(change));
      const swept = await store.claimDue(10, 6, (ask) => timeoutWrite(ask, 10));
      expect(swept).toHaveLength(6);
      // The other connection writes before this store's next poll: the poll reads the events
      // since, tells the other's once, and none of this store's own (told when written).
      await expectToldOnceThenOther(changes, swept, other);
    });

    it('tells a subscriber of a store still opening that it may have missed changes', async () => {
      const store = open();
      const changes: unknown[] = [];
      store.subscribe((change) => changes.push(change));
      await store.get('ask-1');
      await waitUntil(() => changes.length > 0, 'the first change');
      expect(changes[0]).toEqual({ type: 'missed' });
    });

    it('hears another connection within the poll interval, once per ask and latest version', async () => {
      const store = open({ pollIntervalMs: 25 });
      const other = createSqliteAskStore({ database: raw() });
      stores.push(other);
      await store.get('ask-1');
      const changes: unknown[] = [];
      store.subscribe((change) => changes.push(change));
      const start = startWrite({ askId: 'ask-1' });
      await other.create(start);
      let row = start.ask;
      for (let n = 0; n < 5; n++) {
        const write = progressWrite(row, 'other');
        await other.update(write, row.version);
        row = write.ask;
      }
      await waitUntil(() => changes.length > 0, 'a change from the other connection');
      expect(changes).toEqual([{ type: 'changed', askId: 'ask-1', version: 6 }]);
    });

    it('hears another connection after a purge deleted the newest events: event ids never go back', async () => {
      const store = open();
      const other = open();
      await store.get('old');
      const changes: unknown[] = [];
      store.subscribe((change) => changes.push(change));
      const old = startWrite({ askId: 'old' });
      await other.create(old);
      await other.update(timeoutWrite(old.ask, 10), 1);
      await waitUntil(() => changes.length > 0, 'the settled ask');
      const eventIds = (askId: string) =>
        raw()
          .prepare('SELECT e.id FROM ask_events e JOIN asks a ON a.seq = e.ask WHERE a.id = ?')
          .pluck()
          .all(askId) as number[];
      const newest = Math.max(...eventIds('old'));
      // The purge deletes every event there was; the next write must not reuse their ids, or
      // the store polling from the last id it saw would never hear it.
      expect(await other.purge(Number.MAX_SAFE_INTEGER, 10, Number.MAX_SAFE_INTEGER)).toBe(1);
      changes.length = 0;
      await other.create(startWrite({ askId: 'new' }));
      await waitUntil(() => changes.length > 0, 'the write after the purge');
      expect(changes).toEqual([{ type: 'changed', askId: 'new', version: 1 }]);
      expect(eventIds('new')).toEqual([newest + 1]);
      // A later purge moves the one placeholder up; no history, list or feed reads it.
      await other.update(timeoutWrite((await other.get('new')) as StoredAsk, 10), 1);
      expect(await other.purge(Number.MAX_SAFE_INTEGER, 10, Number.MAX_SAFE_INTEGER)).toBe(1);
      expect(raw().prepare('SELECT id FROM ask_events').pluck().all()).toEqual([newest + 2]);
      expect((await other.list()).items).toEqual([]);
    });

    it('stops polling when closed', async () => {
      const store = open();
      const other = open();
      await store.get('ask-1');
      const changes: unknown[] = [];
      store.subscribe((change) => changes.push(change));
      await store.close();
      await other.create(startWrite({ askId: 'ask-1' }));
      await new Promise((resolve) => setTimeout(resolve, 40));
      expect(changes).toEqual([]);
      expect(() => store.subscribe(() => undefined)).toThrow(/closed/);
    });
  });

  describe('start events the row stands for (schema version 10)', () => {
    /** The row numbers and event rows of `askId` in the file. */
    const inFile = (askId: string) => {
      const db = raw();
      const seq = db.prepare('SELECT seq FROM asks WHERE id = ?').pluck().get(askId) as number;
      const events = db.prepare('SELECT type FROM ask_events WHERE ask = ?').pluck().all(seq);
      return { seq, events };
    };

    it('keeps no row for such a start and reads it back as written, before and after later events', async () => {
      const store = open();
      const reference = createMemoryAskStore();
      const implied = rowStartWrite({
        askId: 'implied',
        deadlineAt: 9,
        key: 'k-1',
        sessionId: 's',
      });
      const kept = startWrite({ askId: 'kept' }); // its data names a tool call the row has not
      for (const write of [implied, kept]) {
        await store.create(write);
        await reference.create(write);
      }
      expect(inFile('implied').events).toEqual([]);
      expect(inFile('kept').events).toEqual(['start']);
      expect(await collect(store.history('implied'))).toEqual([implied.event]);
      for (const { ask } of [implied, kept]) {
        for (const write of [progressWrite(ask, 'p'), answerWrite(progressWrite(ask, 'p').ask)]) {
          const version = write.ask.version - 1;
          await store.update(write, version);
          await reference.update(write, version);
        }
        expect(await collect(store.history(ask.askId))).toEqual(
          await collect(reference.history(ask.askId)),
        );
      }
      expect(inFile('implied').events).toEqual(['provider.progress', 'answer']);
      expect(await collect(store.history('unknown'))).toEqual([]);
      await reference.close();
    });

    it('hears an ask another connection created once, and never its own', async () => {
      const store = open();
      const other = open();
      await store.get('mine');
      const changes: unknown[] = [];
      store.subscribe((change) => changes.push(change), { writer: 'me' });
      await store.create({ ...rowStartWrite({ askId: 'mine' }), writer: 'me' });
      await other.create(rowStartWrite({ askId: 'theirs' }));
      await store.create({ ...rowStartWrite({ askId: 'mine-too' }), writer: 'me' });
      await waitUntil(() => changes.length > 0, 'the other connection’s ask');
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(changes).toEqual([{ type: 'changed', askId: 'theirs', version: 1 }]);
    });

    it('numbers a new ask after the newest one a purge deleted, so the feed hears it', async () => {
      const store = open();
      const other = open();
      await store.get('old');
      const changes: unknown[] = [];
      store.subscribe((change) => changes.push(change));
      const purgeAll = async (writer: AskStore, askId: string) => {
        const { ask } = rowStartWrite({ askId });
        await writer.update(timeoutWrite(ask, 10), 1);
        expect(await writer.purge(Number.MAX_SAFE_INTEGER, 10, Number.MAX_SAFE_INTEGER)).toBe(1);
      };
      await other.create(rowStartWrite({ askId: 'old' }));
      await waitUntil(() => changes.length > 0, 'the first ask');
      const { seq: purged } = inFile('old');
      await purgeAll(other, 'old');
      await new Promise((resolve) => setTimeout(resolve, 30));
      changes.length = 0;
      // Without the kept number, SQLite would give 'new' the purged ask's number, and a feed
      // reading past the last number it saw would never hear of it.
      await other.create(rowStartWrite({ askId: 'new' }));
      await waitUntil(() => changes.length > 0, 'the ask after the purge');
      expect(changes).toEqual([{ type: 'changed', askId: 'new', version: 1 }]);
      expect(inFile('new').seq).toBe(purged + 1);
      // Kept across connections, and moved up only by a purge of a newer ask.
      await purgeAll(other, 'new');
      const later = open();
      await later.create(rowStartWrite({ askId: 'later' }));
      expect(inFile('later').seq).toBe(purged + 2);
      expect(raw().prepare('SELECT seq FROM ask_last_seq').pluck().all()).toEqual([purged + 1]);
    });
  });

  describe("claims of many due asks (written by the store's worker)", () => {
    /** `count` due asks written through a connection of the test's own. */
    const dueAsks = async (count: number, deadlineAt = 5) => {
      const writer = createSqliteAskStore({ database: raw() });
      stores.push(writer);
      for (let n = 0; n < count; n++) {
        await writer.create(startWrite({ askId: `due-${String(n).padStart(3, '0')}`, deadlineAt }));
      }
      await writer.create(startWrite({ askId: 'later' }));
    };
    const settle = (ask: StoredAsk) => timeoutWrite(ask, 10);
    /** `count` due asks and a store of the test's options that has opened the file. */
    const openOnDue = async (count: number, options = {}) => {
      await dueAsks(count);
      const store = open(options);
      await store.get('due-000');
      return store;
    };
    /**
     * `count` due asks, a store that has opened the file, and another connection holding the
     * write lock (the test releases it with `holder.exec('COMMIT')`).
     */
    const behindLock = async (count: number) => {
      const store = await openOnDue(count, { busyTimeoutMs: 5_000 });
      const holder = raw();
      holder.exec('BEGIN IMMEDIATE');
      return { store, holder };
    };
    const deadlines = (db: Database.Database) =>
      db
        .prepare(
          `SELECT a.id AS id, count(e.id) AS n FROM asks a JOIN ask_events e ON e.ask = a.seq
           WHERE e.type = 'deadline' GROUP BY a.id`,
        )
        .all() as { id: string; n: number }[];
    /** `count` asks in the file have a deadline event, each exactly one. */
    const expectTimedOutOnce = (count: number) => {
      const timedOut = deadlines(raw());
      expect(timedOut).toHaveLength(count);
      expect(timedOut.every(({ n }) => n === 1)).toBe(true);
    };

    it('writes beside the event loop: a claim waits for a lock held by another connection without blocking the loop', async () => {
      const { store, holder } = await behindLock(200);
      // Written on the loop's thread, the claim would wait for the lock there (busy-waiting),
      // so this timer could never release it.
      let released = false;
      setTimeout(() => {
        holder.exec('COMMIT');
        released = true;
      }, 50);
      const swept = await store.claimDue(10, 256, settle);
      expect(released).toBe(true);
      expect(swept).toHaveLength(200);
      expect(swept.map(({ ask }) => ask.askId)).toEqual(
        Array.from({ length: 200 }, (_, n) => `due-${String(n).padStart(3, '0')}`),
      );
      for (const write of swept.slice(0, 3)) {
        expect(await store.get(write.ask.askId)).toEqual(write.ask);
        expect((await collect(store.history(write.ask.askId))).at(-1)).toEqual(write.event);
      }
      expect(deadlines(raw())).toHaveLength(200);
      expect((await store.get('later'))?.state).toBe('pending');
    });

    it('leaves an ask another connection wrote after it was read, and writes the rest', async () => {
      const { store, holder: other } = await behindLock(100);
      const claim = store.claimDue(10, 256, settle);
      // Read by the claim already (it reads without the lock); answered before its worker
      // gets the lock.
      other
        .prepare(
          "UPDATE asks SET version = version + 1, state = 'answered', final = 1 WHERE id IN ('due-007', 'due-070')",
        )
        .run();
      setTimeout(() => other.exec('COMMIT'), 20);
      const swept = await claim;
      expect(swept).toHaveLength(98);
      expect(swept.map(({ ask }) => ask.askId)).not.toContain('due-007');
      expect(swept.map(({ ask }) => ask.askId)).not.toContain('due-070');
      expect(await store.get('due-007')).toMatchObject({ state: 'answered', version: 2 });
      expectTimedOutOnce(98);
    });

    it('settles each due ask once when two connections claim the same storm at once', async () => {
      await dueAsks(300);
      const [a, b] = [open(), open()];
      await Promise.all([a.get('due-000'), b.get('due-000')]);
      const claimed: string[] = [];
      const sweep = async (store: AskStore) => {
        for (;;) {
          const swept = await store.claimDue(10, 128, settle);
          claimed.push(...swept.map(({ ask }) => ask.askId));
          if ((await store.claimDue(10, 1, () => undefined)).length === 0 && swept.length === 0) {
            const left = raw()
              .prepare('SELECT count(*) AS n FROM asks WHERE final = 0 AND deadline_at <= 10')
              .get() as { n: number };
            if (left.n === 0) return;
          }
        }
      };
      await Promise.all([sweep(a), sweep(b)]);
      expect(claimed).toHaveLength(300);
      expect(new Set(claimed).size).toBe(300);
      expectTimedOutOnce(300);
    });

    it('gives two claims in flight at once on one store different asks, each written once', async () => {
      const store = await openOnDue(300);
      const settled: string[] = [];
      const settleOnce = (ask: StoredAsk) => {
        settled.push(ask.askId);
        return settle(ask);
      };
      const [first, second] = await Promise.all([
        store.claimDue(10, 128, settleOnce),
        store.claimDue(10, 128, settleOnce),
      ]);
      const ids = (writes: typeof first) => writes.map(({ ask }) => ask.askId);
      expect(ids(first)).toEqual(settled.slice(0, 128));
      expect(ids(second)).toEqual(settled.slice(128));
      expect(new Set(settled).size).toBe(256);
      expect(deadlines(raw())).toHaveLength(256);
      expect(await store.claimDue(10, 256, settle)).toHaveLength(44);
    });

    it('tells its batch once to its subscribers, never to the writer that swept it, and still hears another connection', async () => {
      await dueAsks(100);
      const store = open();
      const other = createSqliteAskStore({ database: raw() });
      stores.push(other);
      await store.get('due-000');
      const changes: unknown[] = [];
      const own: unknown[] = [];
      store.subscribe((change) => changes.push(change));
      store.subscribe((change) => own.push(change), { writer: 'sweeper' });
      const swept = await store.claimDue(10, 256, (ask) => ({ ...settle(ask), writer: 'sweeper' }));
      expect(swept).toHaveLength(100);
      await expectToldOnceThenOther(changes, swept, other);
      await waitUntil(() => own.length >= 1, 'the other write, for the sweeper');
      expect(own).toEqual([{ type: 'changed', askId: 'later', version: 2 }]);
    });

    /** An `enough` that says the slice is spent at every `every`th ask, as the sweeper's would. */
    const spentEvery = (every: number) => {
      let asked = 0;
      return () => ++asked % every === 0;
    };
    /** Counts turns of the event loop until stopped, checking `check` at each. */
    const everyTurn = (check: () => void) => {
      let turns = 0;
      let running = true;
      const turn = () => {
        if (!running) return;
        turns++;
        check();
        setImmediate(turn);
      };
      setImmediate(turn);
      return () => {
        running = false;
        return turns;
      };
    };

    it('spreads a claim over turns of the event loop, holding the write lock only while it writes', async () => {
      await dueAsks(300);
      const store = open();
      // A first claim starts the store's worker.
      expect(await store.claimDue(10, 20, settle)).toHaveLength(20);
      // Another connection that never waits for a lock tries a write at every turn.
      const other = raw();
      other.exec('PRAGMA busy_timeout = 0');
      other.exec('CREATE TABLE turns (n INTEGER)');
      const mark = other.prepare('INSERT INTO turns (n) VALUES (1)');
      const turns: ('free' | 'locked')[] = [];
      const stop = everyTurn(() => {
        try {
          mark.run();
          turns.push('free');
        } catch (error) {
          if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
          turns.push('locked');
        }
      });
      // The turns before the claim read its last row (its end is sent in that turn).
      let lastRead = -1;
      const swept = await store.claimDue(
        10,
        256,
        (ask) => {
          lastRead = turns.length;
          return settle(ask);
        },
        spentEvery(20),
      );
      stop();
      expect(swept).toHaveLength(256);
      // The loop turned between the claim's parts, and the lock was free while it read them.
      expect(lastRead).toBeGreaterThan(10);
      expect(turns.slice(0, lastRead).every((turn) => turn === 'free')).toBe(true);
      // One transaction wrote every part.
      expectTimedOutOnce(276);
    });

    it('ends a claim spread over turns at its next turn when the store closes, writing what it read', async () => {
      const store = await openOnDue(300);
      const claim = store.claimDue(10, 256, settle, spentEvery(10));
      await new Promise((resolve) => setImmediate(resolve));
      await store.close();
      const swept = await claim;
      expect(swept.length).toBeGreaterThan(0);
      expect(swept.length).toBeLessThan(256);
      const timedOut = deadlines(raw());
      expect(timedOut.map(({ id }) => id).sort()).toEqual(swept.map(({ ask }) => ask.askId).sort());
    });

    it("makes its own writes wait for its worker's claim without blocking the loop", async () => {
      const { store, holder } = await behindLock(100);
      const claim = store.claimDue(10, 256, settle);
      // The claim is read and sent: its worker waits for the lock another connection holds.
      await new Promise((resolve) => setTimeout(resolve, 20));
      const order: string[] = [];
      // Made on the loop's thread while the worker waits for the lock, the write would wait in
      // SQLite's busy handler there, so this timer could never release the lock.
      setTimeout(() => {
        holder.exec('COMMIT');
        order.push('released');
      }, 30);
      const created = store
        .create(startWrite({ askId: 'meanwhile' }))
        .then((result) => order.push('created') && result);
      const swept = await claim;
      expect(await created).toEqual({ created: true });
      expect(order).toEqual(['released', 'created']);
      expect(swept).toHaveLength(100);
      expect((await store.get('meanwhile'))?.state).toBe('pending');
    });

    it('finishes a claim in flight before it closes', async () => {
      const { store, holder } = await behindLock(100);
      const claim = store.claimDue(10, 256, settle);
      // The claim is read and sent; its worker waits for the lock while the store closes.
      await new Promise((resolve) => setTimeout(resolve, 20));
      setTimeout(() => holder.exec('COMMIT'), 30);
      await store.close();
      expect(await claim).toHaveLength(100);
      expect(deadlines(raw())).toHaveLength(100);
    });

    it('sweeps on its own connection, after one report, once its worker cannot run', async () => {
      await dueAsks(100);
      const errors: unknown[] = [];
      const store = open({ onError: (error: unknown) => errors.push(error) });
      await store.get('due-000');
      // The worker opens the file by its path, which no longer names it; this connection keeps
      // its open file.
      rmSync(path);
      await expect(store.claimDue(10, 256, settle)).rejects.toThrow(
        /cannot open .*asks\.db: unable to open database file \(SQLITE_CANTOPEN\)/,
      );
      const swept = await store.claimDue(10, 256, settle);
      expect(swept.length).toBeGreaterThan(0);
      expect(errors).toHaveLength(1);
      expect(String(errors[0])).toMatch(
        /sweeps and checkpoints on its own connection from now on: its worker failed/,
      );
      for (;;) {
        const more = await store.claimDue(10, 256, settle);
        swept.push(...more);
        if (more.length === 0) break;
      }
      expect(swept).toHaveLength(100);
      expect(errors).toHaveLength(1);
    });
  });

  describe('checkpoints', () => {
    /** `PRAGMA wal_autocheckpoint` settings made through better-sqlite3 on this thread. */
    const thresholds = () => {
      const exec = vi.spyOn(Database.prototype, 'exec');
      return () =>
        exec.mock.calls.map(([sql]) => sql).filter((sql) => sql.includes('wal_autocheckpoint'));
    };
    /**
     * Asks in the database file itself, the WAL left out: what checkpoints copied there.
     * `undefined` when the copy is torn: a checkpoint on the worker thread was writing pages
     * while the file was copied.
     */
    const checkpointedAsks = (): number | undefined => {
      const copy = join(dir, 'checkpointed.db');
      copyFileSync(path, copy);
      const db = new Database(copy, { readonly: true });
      try {
        // Before the first checkpoint even the schema is only in the WAL.
        const tables = db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'asks'");
        if (tables.pluck().get() === 0) return 0;
        return db.prepare('SELECT count(*) FROM asks').pluck().get() as number;
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        if (code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB') return undefined;
        throw error;
      } finally {
        db.close();
      }
    };
    /** Waits until at least `asks` asks are in the file and it has stopped growing. */
    const checkpointed = async (asks: number): Promise<number> => {
      let count: number | undefined;
      const read = () => {
        count = checkpointedAsks();
        return count !== undefined;
      };
      await waitUntil(
        () => read() && (count as number) >= asks,
        `${asks} asks in the file`,
        10_000,
      );
      // The copy may still be under way: wait until the file stops growing, then read it whole.
      let size = -1;
      while (size !== statSync(path).size) {
        size = statSync(path).size;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await waitUntil(read, 'a whole copy of the file', 10_000);
      return count as number;
    };
    afterEach(() => vi.restoreAllMocks());

    it('copies the WAL back on its worker thread, not on the connection the event loop waits for', async () => {
      const settings = thresholds();
      const store = open();
      await store.get('ask-0');
      const initial = statSync(path).size;
      // 200 commits of about 8 pages: under the connection's backstop of 4,000 pages, so only
      // the worker, asked every 64 asks written, can have copied them into the file.
      for (let n = 0; n < 200; n++) await store.create(startWrite({ askId: `ask-${n}` }));
      expect(settings()).toEqual(['PRAGMA wal_autocheckpoint = 4000']);
      expect(await checkpointed(64)).toBeGreaterThanOrEqual(64);
      expect(statSync(path).size).toBeGreaterThan(initial);
    });

    it('keeps asking for checkpoints through writes that never let the event loop turn', async () => {
      const store = open();
      // The worker started, its first checkpoint done and told.
      for (let n = 0; n < 64; n++) await store.create(startWrite({ askId: `ask-${n}` }));
      await checkpointed(64);
      // 128 more in one run of microtasks: the requests at 128 and at 192 are both sent, though
      // no answer to the first can arrive in between.
      for (let n = 64; n < 192; n++) await store.create(startWrite({ askId: `ask-${n}` }));
      expect(await checkpointed(192)).toBe(192);
    });

    it('counts each ask a purge deleted toward the next checkpoint, not the purge as one write', async () => {
      const writer = createSqliteAskStore({ database: raw() });
      stores.push(writer);
      for (let n = 0; n < 100; n++) {
        const start = startWrite({ askId: `old-${n}` });
        await writer.create(start);
        await writer.update(timeoutWrite(start.ask, 10), 1);
      }
      const settings = thresholds();
      const store = open();
      // One write of 100 asks: past the 64 that ask the worker (started by the request) for one.
      expect(await store.purge(Number.MAX_SAFE_INTEGER, 100, Number.MAX_SAFE_INTEGER)).toBe(100);
      expect(settings()).toEqual(['PRAGMA wal_autocheckpoint = 4000']);
    });

    it('checkpoints on its own connection again, after one report, once its worker cannot run', async () => {
      const errors: unknown[] = [];
      const settings = thresholds();
      const store = open({ onError: (error: unknown) => errors.push(error) });
      await store.get('ask-0');
      // The worker opens the file by its path, which no longer names it.
      rmSync(path);
      // The first checkpoint starts the worker; a later one finds that it could not open the file.
      let n = 0;
      while (errors.length === 0 && n < 5_000) {
        await store.create(startWrite({ askId: `ask-${n++}` }));
        if (n % 64 === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      for (const last = n + 200; n < last; n++)
        await store.create(startWrite({ askId: `ask-${n}` }));
      expect(settings()).toEqual([
        'PRAGMA wal_autocheckpoint = 4000',
        'PRAGMA wal_autocheckpoint = 1000',
      ]);
      expect(errors).toHaveLength(1);
      expect(String(errors[0])).toMatch(
        /sweeps and checkpoints on its own connection from now on: its worker failed: cannot open/,
      );
      expect(await store.get(`ask-${n - 1}`)).toMatchObject({ askId: `ask-${n - 1}` });
    });
  });

  it('lets a program whose service swept a storm exit without closing anything', async () => {
    const program = await bundleProgram('test/fixtures/sqlite-sweep-exit.ts');
    const child = spawnSync(process.execPath, [program, path, '300'], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(child.stderr).toBe('');
    expect(child.stdout.trim()).toBe('timed out 300');
    // A worker kept alive would have held it until the spawn timeout killed it: no status then,
    // but the signal.
    expect(child.signal).toBeNull();
    expect(child.status).toBe(0);
    const rounds = raw()
      .prepare("SELECT count(*) AS n FROM ask_events WHERE type = 'deadline'")
      .get() as { n: number };
    expect(rounds.n).toBe(300);
  }, 60_000);

  describe('query plans', () => {
    it('finds, sweeps, lists, purges and reads histories through indexes, never a full scan', async () => {
      const db = raw();
      const { recording, prepared, bound } = recordingHandle(db);
      const store = createSqliteAskStore({ database: recording }, { pollIntervalMs: 5 });
      stores.push(store);
      store.subscribe(() => undefined);
      const first = startWrite({ askId: 'ask-0', key: 'key-0', deadlineAt: 5 });
      await store.create(first);
      // 100,000 asks (half settled, some deferred, in sessions and by agents), each with two
      // events, in one statement each.
      const row = db.prepare("SELECT * FROM asks WHERE id = 'ask-0'").get() as Record<
        string,
        unknown
      >;
      db.prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000)
         INSERT INTO asks (id, state, version, snapshot, packed, questions, outcome,
           interaction_id, "key", deadline_at, owner, final, created_at, updated_at,
           session_id, agent, answered_by)
         SELECT 'ask-' || i, CASE WHEN i % 2 = 1 THEN 'answered' WHEN i % 14 = 0 THEN 'deferred'
             ELSE 'pending' END, 1, @snapshot, @packed, @questions, NULL,
           CASE WHEN i % 7 = 0 THEN 'thread-' || i END, CASE WHEN i % 3 = 0 THEN 'key-' || i END,
           i * 10, 'owner', i % 2, i * 1000, i * 1000 + 500,
           CASE WHEN i % 5 = 0 THEN 'session-' || (i % 400) END,
           CASE WHEN i % 11 = 0 THEN 'agent-' || (i % 7) END,
           CASE WHEN i % 2 = 1 AND i % 3 = 0 THEN 'person-' || (i % 200) END FROM n`,
      ).run(row);
      // Two events per ask, and every third ask told one of 200 people of it.
      db.exec(`INSERT INTO ask_events (ask, at, type, from_state, to_state, data)
        SELECT seq, 1, 'start', NULL, 'pending', '{}' FROM asks;
        INSERT INTO ask_events (ask, at, type, from_state, to_state, data)
        SELECT seq, 2, 'answer', 'pending', 'answered', '{}' FROM asks;
        INSERT INTO ask_events (ask, at, type, from_state, to_state, data, recipient)
        SELECT seq, 3, 'notified', 'deferred', 'deferred',
          json_object('recipient', 'person-' || (seq % 200)), 'person-' || (seq % 200)
          FROM asks WHERE seq % 3 = 1;
        ANALYZE;`);
      // Each filter of \`list\`, alone and together, and with a cursor; then a purge.
      // Each shape must read through the index made for its filter, never walk another one.
      const shapes: [Parameters<typeof store.list>[0], RegExp][] = [
        [{}, /asks_created/],
        [{ state: 'pending' }, /asks_state/],
        [{ state: ['pending', 'deferred'] }, /asks_state/],
        [{ sessionId: 'session-5' }, /asks_session/],
        [{ agent: 'agent-3' }, /asks_agent/],
        [{ key: 'key-30' }, /asks_key/],
        [{ created: { from: 1_000_000, to: 2_000_000 } }, /asks_created/],
        [{ created: { to: 5_000_000 } }, /asks_created/],
        [{ updated: { from: 99_000_000 } }, /asks_updated/],
        [{ updated: { from: 50_000_000, to: 50_100_000 } }, /asks_updated/],
        [{ state: 'answered', sessionId: 'session-5', created: { from: 1 } }, /asks_session/],
        [{ answeredBy: 'person-3' }, /asks_answered_by/],
        [{ notified: 'person-7' }, /ask_events_recipient/],
        [{ notified: 'person-7', state: ['pending', 'deferred'] }, /ask_events_recipient/],
      ];
      // Planned with the values the list bound: the planner weighs ranges by them (STAT4).
      for (const [filter, index] of shapes) {
        const before = prepared.length;
        const page = await store.list(filter, { limit: 5 });
        const listSql = prepared.slice(before);
        expect(listSql, JSON.stringify(filter)).toHaveLength(1);
        const sql = listSql[0] as string;
        const plan = planOf(db, sql, bound.get(sql) ?? []);
        expect(plan, `${JSON.stringify(filter)}\n${plan}`).toMatch(index);
        if (page.cursor !== undefined) await store.list(filter, { limit: 5, cursor: page.cursor });
      }
      expect(await store.purge(1_000_000, 100, 1_000_000)).toBe(100);
      const statements = storeStatements(prepared);
      expect(statements.length).toBeGreaterThanOrEqual(10 + shapes.length);
      expectNoFullScan(db, statements);
      // A one-sided range of event ids reads every event below the bound: the placeholders a
      // purge drops are read by the ask index, as asks of their own (ask 0).
      const holders = statements.filter((sql) => /ask = 0 AND id </.test(sql));
      expect(holders).toHaveLength(1);
      expect(planOf(db, holders[0]!, [1_000_000])).toMatch(
        /USING (COVERING )?INDEX ask_events_by_ask/,
      );
      const duePlan = planOf(db, dueStatement(statements), [1, 1, 1, 1, 1, 1]);
      expect(duePlan).toMatch(/USING INDEX asks_due/);
      expect(duePlan).not.toMatch(/TEMP B-TREE/);
    });

    it('sweeps 1,000,000 asks by one range of the due index, and looks one up by one index search', async () => {
      // In memory: the plan depends on the schema and its statistics, not on the disk.
      const db = new Database(':memory:');
      handles.push(db);
      const { recording, prepared, bound } = recordingHandle(db);
      const store = createSqliteAskStore({ database: recording });
      stores.push(store);
      await store.get('ask-0');
      // Half settled, deadlines 10 ms apart; rows the sweep never reads keep their columns small.
      db.prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000)
         INSERT INTO asks (id, state, version, snapshot, packed, questions, interaction_id, "key",
           deadline_at, final, created_at, updated_at)
         SELECT 'ask-' || i, CASE WHEN i % 2 = 1 THEN 'answered' ELSE 'pending' END, 1, '{}', 0,
           '[]', CASE WHEN i % 7 = 0 THEN 'thread-' || i END,
           CASE WHEN i % 3 = 0 THEN 'key-' || i END, i * 10, i % 2, i * 1000, i * 1000 + 500
         FROM n`,
      ).run();
      db.exec('PRAGMA analysis_limit = 1000; ANALYZE;');
      // Nothing due: the sweep reads no row.
      let offered = 0;
      const settle = () => {
        offered++;
        return undefined;
      };
      expect(await store.claimDue(5, 32, settle)).toEqual([]);
      expect(offered).toBe(0);
      const statements = storeStatements(prepared);
      const due = dueStatement(statements);
      // [...cursor (deadline, deadline, row number), now, now, limit].
      expect(bound.get(due)).toEqual([-Number.MAX_VALUE, -Number.MAX_VALUE, 0, 5, 5, 32]);
      // Nothing due, everything due, and a cursor half-way (past rows a sweep declined).
      for (const values of [
        [-Number.MAX_VALUE, -Number.MAX_VALUE, 0, 5, 5, 32],
        [-Number.MAX_VALUE, -Number.MAX_VALUE, 0, 20_000_000, 20_000_000, 32],
        [5_000_000, 5_000_000, 500_000, 20_000_000, 20_000_000, 32],
      ]) {
        const plan = planOf(db, due, values);
        expect(plan, `${values}`).toMatch(
          /^SEARCH asks USING INDEX asks_due \(deadline_at>\? AND deadline_at<\?\)$/m,
        );
        expect(plan, `${values}`).not.toMatch(/TEMP B-TREE|^SCAN asks/m);
      }
      // Looked up by id, by key and by interaction id: one search of the index for each.
      const lookups: [RegExp, unknown[], RegExp][] = [
        [/FROM asks WHERE id = \?$/, ['ask-500000'], /^SEARCH asks USING INDEX \S+ \(id=\?\)$/m],
        [
          /FROM asks WHERE "key" = \?$/,
          ['key-300000'],
          /^SEARCH asks USING INDEX asks_key \(key=\?\)$/m,
        ],
        [
          /FROM asks WHERE interaction_id = \? ORDER BY/,
          ['thread-700000'],
          /^SEARCH asks USING INDEX asks_(open_)?interaction \(interaction_id=\?\)$/m,
        ],
        // A claimed batch is written row by row through the row number, never by a scan.
        [
          /^UPDATE asks SET .* WHERE seq = \? AND version = \?$/s,
          [...UPDATED_COLUMNS.map(() => null), 500_000, 1],
          /^SEARCH asks USING INTEGER PRIMARY KEY \(rowid=\?\)$/m,
        ],
      ];
      for (const [shape, values, index] of lookups) {
        const sql = statements.find((each) => shape.test(each));
        expect(sql, String(shape)).toBeDefined();
        const plan = planOf(db, sql as string, values);
        expect(plan, `${sql}\n${plan}`).toMatch(index);
        // The asks sharing one interaction id (one open, a few settled) are sorted, no others.
        const sorted = shape.source.includes('interaction_id');
        expect(plan, `${sql}\n${plan}`).not.toMatch(
          sorted ? /^SCAN asks/m : /TEMP B-TREE|^SCAN asks/m,
        );
      }
      expectNoFullScan(db, statements);
    });
  });

  describe('options', () => {
    it('refuses options it cannot use, showing the value', () => {
      expect(() => createSqliteAskStore({ path }, { pollIntervalMs: 0 })).toThrow(
        'Expected `pollIntervalMs` to be a number from 1 and up, got `0`.',
      );
      expect(() => createSqliteAskStore({ path }, { busyTimeoutMs: -1 })).toThrow(
        'Expected `busyTimeoutMs` to be an integer from 0 and up, got `-1`.',
      );
      expect(() => createSqliteAskStore({ path: '' })).toThrow(
        'Expected `path` to be a non-empty file path, got "".',
      );
      expect(() => createSqliteAskStore({ database: {} as unknown as SqliteDatabase })).toThrow(
        /Expected `database` to be an open SQLite handle with prepare\(\) and exec\(\)/,
      );
    });
  });
});

/**
 * A handle on `db` that records every statement the store prepares, and the values each read
 * last bound.
 */
function recordingHandle(db: Database.Database) {
  const prepared: string[] = [];
  const bound = new Map<string, unknown[]>();
  const recording: SqliteDatabase = {
    exec: (sql) => db.exec(sql),
    prepare: (sql) => {
      prepared.push(sql);
      const statement = db.prepare(sql);
      return {
        run: (...params) => statement.run(...params),
        get: (...params) => statement.get(...params),
        all: (...params) => {
          bound.set(sql, params);
          return statement.all(...params);
        },
      };
    },
  };
  return { recording, prepared, bound };
}

/** The statements of the store itself (not its migrations' bookkeeping). */
function storeStatements(prepared: readonly string[]): string[] {
  return prepared.filter((sql) => !/^\s*PRAGMA|ask_schema_version/i.test(sql));
}

/** The sweep's due query among `statements`. */
function dueStatement(statements: readonly string[]): string {
  const due = statements.find((sql) => /deadline_at <=/.test(sql));
  if (due === undefined) throw new Error('The store prepared no due query.');
  return due;
}

/** The query plan of `sql` with `values`, one step a line. */
function planOf(db: Database.Database, sql: string, values: readonly unknown[]): string {
  return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...values) as { detail: string }[])
    .map((step) => step.detail)
    .join('\n');
}

/** No statement walks the whole `asks` or `ask_events` table (planned with every value 1). */
function expectNoFullScan(db: Database.Database, statements: readonly string[]): void {
  for (const sql of statements) {
    const plan = planOf(
      db,
      sql,
      (sql.match(/\?/g) ?? []).map(() => 1),
    );
    // A plan names a table by the alias the statement gave it. The word after a table name may
    // be a keyword instead (WHERE, JOIN...): no plan line scans one, so it is harmless here.
    const names = new Set(['asks', 'ask_events']);
    for (const [, , word] of sql.matchAll(/\b(asks|ask_events)\s+(?:AS\s+)?(\w+)/gi)) {
      names.add(word!);
    }
    const scans = plan
      .split('\n')
      .filter((detail) => /^SCAN (?:TABLE )?(\w+)/.test(detail))
      .filter((detail) => names.has(/^SCAN (?:TABLE )?(\w+)/.exec(detail)![1]!));
    expect(scans, `${sql}\n${plan}`).toEqual([]);
  }
}
