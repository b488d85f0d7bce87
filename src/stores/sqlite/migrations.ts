/**
 * The SQLite store's numbered migrations, in order (`migrate` in schema.ts runs them). Append new
 * migrations; never edit a shipped one.
 */

export interface Migration {
  version: number;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE asks (
        id TEXT PRIMARY KEY NOT NULL,
        state TEXT NOT NULL,
        version INTEGER NOT NULL,
        snapshot TEXT NOT NULL,
        questions TEXT NOT NULL,
        outcome TEXT,
        interaction_id TEXT,
        "key" TEXT UNIQUE,
        deadline_at INTEGER,
        owner TEXT,
        final INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      -- One open ask per interaction id; settled asks keep theirs for lookups.
      CREATE UNIQUE INDEX asks_open_interaction ON asks (interaction_id) WHERE final = 0;
      CREATE INDEX asks_interaction ON asks (interaction_id, updated_at)
        WHERE interaction_id IS NOT NULL;
      CREATE INDEX asks_due ON asks (final, deadline_at);
      CREATE TABLE ask_events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        ask_id TEXT NOT NULL,
        at INTEGER NOT NULL,
        type TEXT NOT NULL,
        json TEXT NOT NULL
      );
      CREATE INDEX ask_events_by_ask ON ask_events (ask_id, id);
    `,
  },
  {
    // Leaner rows (issue 20): asks get a stable row number (`seq`) that events refer to instead
    // of repeating the ask id; an owner's name is kept once, in `ask_owners`; an event keeps its columns instead of a JSON copy of itself;
    // snapshots may leave out what the row holds elsewhere (`packed` says what; rows copied
    // from version 1 leave out nothing); indexes are partial, so settled asks and absent keys
    // take no index entries. An event whose JSON does not parse is kept, as it was, in `data`
    // with no state, so reading the history reports it instead of losing it.
    version: 2,
    sql: `
      CREATE TABLE ask_owners (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
      INSERT INTO ask_owners (name) SELECT DISTINCT owner FROM asks WHERE owner IS NOT NULL;
      CREATE TABLE asks_v2 (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        state TEXT NOT NULL,
        version INTEGER NOT NULL,
        snapshot TEXT NOT NULL,
        packed INTEGER NOT NULL,
        questions TEXT NOT NULL,
        outcome TEXT,
        interaction_id TEXT,
        "key" TEXT,
        deadline_at INTEGER,
        owner INTEGER,
        final INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      INSERT INTO asks_v2 (seq, id, state, version, snapshot, packed, questions, outcome,
          interaction_id, "key", deadline_at, owner, final, created_at, updated_at)
        SELECT rowid, id, state, version, snapshot, 0, questions, outcome,
          interaction_id, "key", deadline_at,
          (SELECT o.id FROM ask_owners o WHERE o.name = asks.owner),
          final, created_at, updated_at
        FROM asks ORDER BY rowid;
      CREATE TABLE ask_events_v2 (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        ask INTEGER NOT NULL,
        at INTEGER NOT NULL,
        type TEXT NOT NULL,
        from_state TEXT,
        to_state TEXT NOT NULL,
        -- NULL: the answers of the ask's outcome, which this event recorded (a final ask's
        -- outcome never changes), so they are not stored twice.
        data TEXT
      );
      INSERT INTO ask_events_v2 (id, ask, at, type, from_state, to_state, data)
        SELECT e.id, a.seq, e.at, e.type,
          CASE WHEN json_valid(e.json) THEN json_extract(e.json, '$.from') END,
          CASE WHEN json_valid(e.json) THEN coalesce(json_extract(e.json, '$.to'), '') ELSE '' END,
          CASE WHEN json_valid(e.json) THEN coalesce(json_extract(e.json, '$.data'), 'null')
            ELSE e.json END
        FROM ask_events e JOIN asks_v2 a ON a.id = e.ask_id ORDER BY e.id;
      DROP TABLE ask_events;
      DROP TABLE asks;
      ALTER TABLE asks_v2 RENAME TO asks;
      ALTER TABLE ask_events_v2 RENAME TO ask_events;
      CREATE UNIQUE INDEX asks_key ON asks ("key") WHERE "key" IS NOT NULL;
      -- One open ask per interaction id; settled asks keep theirs for lookups.
      CREATE UNIQUE INDEX asks_open_interaction ON asks (interaction_id)
        WHERE final = 0 AND interaction_id IS NOT NULL;
      CREATE INDEX asks_interaction ON asks (interaction_id, updated_at)
        WHERE interaction_id IS NOT NULL;
      CREATE INDEX asks_due ON asks (deadline_at) WHERE final = 0 AND deadline_at IS NOT NULL;
      CREATE INDEX ask_events_by_ask ON ask_events (ask, id);
    `,
  },
  {
    // Queries and retention (issue 17): the session and the agent, which the snapshot keeps,
    // get columns of their own (copied here from rows written before), and every filter of
    // `list` gets an index in list order (newest first: the row number breaks ties), so a page
    // is one index range. `asks_settled` finds the asks `purge` may delete, oldest first.
    version: 3,
    sql: `
      ALTER TABLE asks ADD COLUMN session_id TEXT;
      ALTER TABLE asks ADD COLUMN agent TEXT;
      UPDATE asks SET
        session_id = CASE WHEN json_type(snapshot, '$.context.sessionId') = 'text'
          THEN json_extract(snapshot, '$.context.sessionId') END,
        agent = CASE WHEN json_type(snapshot, '$.context.agent') = 'text'
          THEN json_extract(snapshot, '$.context.agent') END
        WHERE json_valid(snapshot);
      CREATE INDEX asks_created ON asks (created_at);
      CREATE INDEX asks_updated ON asks (updated_at);
      CREATE INDEX asks_state ON asks (state, created_at);
      CREATE INDEX asks_session ON asks (session_id, created_at) WHERE session_id IS NOT NULL;
      CREATE INDEX asks_agent ON asks (agent, created_at) WHERE agent IS NOT NULL;
      CREATE INDEX asks_settled ON asks (updated_at) WHERE final = 1;
    `,
  },
  {
    // The outbox (issue 16): messages written with the transition that causes them, sent by
    // whichever process claims them. `due_at` NULL waits for the ask to settle; `claimed_until`
    // is a sender's lease; `done_at` is set once sent or given up on.
    version: 4,
    sql: `
      CREATE TABLE ask_outbox (
        delivery_id TEXT PRIMARY KEY NOT NULL,
        ask_id TEXT NOT NULL,
        channel TEXT NOT NULL,
        due_at INTEGER,
        while_open INTEGER NOT NULL,
        payload TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        claimed_until INTEGER NOT NULL DEFAULT 0,
        done_at INTEGER
      );
      CREATE INDEX ask_outbox_due ON ask_outbox (due_at)
        WHERE done_at IS NULL AND due_at IS NOT NULL;
      CREATE INDEX ask_outbox_ask ON ask_outbox (ask_id);
    `,
  },
  {
    // The sender an entry was written leased to (OutboxEntry.lease): it sends the entry without
    // claiming it. A claim by anyone else clears it.
    version: 5,
    sql: `
      ALTER TABLE ask_outbox ADD COLUMN claimed_by TEXT;
    `,
  },
  {
    // Who answered, and whom a notification reached (issue 17): `list` filters by both. The
    // answered outcome's recipient and a notification event's recipient get columns of their
    // own (copied here from rows written before), each indexed for its filter; only rows that
    // have one take index entries.
    version: 6,
    sql: `
      ALTER TABLE asks ADD COLUMN answered_by TEXT;
      UPDATE asks SET answered_by = json_extract(outcome, '$.answeredBy.recipient')
        WHERE json_valid(outcome) AND json_extract(outcome, '$.status') = 'answered'
          AND json_type(outcome, '$.answeredBy.recipient') = 'text';
      CREATE INDEX asks_answered_by ON asks (answered_by, created_at)
        WHERE answered_by IS NOT NULL;
      ALTER TABLE ask_events ADD COLUMN recipient TEXT;
      UPDATE ask_events SET recipient = json_extract(data, '$.recipient')
        WHERE type IN ('notified', 'reminded', 'escalated') AND json_valid(data)
          AND json_type(data, '$.recipient') = 'text' AND json_extract(data, '$.recipient') <> '';
      CREATE INDEX ask_events_recipient ON ask_events (recipient, ask) WHERE recipient IS NOT NULL;
    `,
  },
  {
    // Leaner rows (issue 20), no new column: a snapshot may leave out the machine's status, its
    // state value and an empty progress list (`packed` bits 256, 512, 1024), and an event's
    // `data` is NULL where its row stands for it (a start event's data, a deadline's time). A
    // build before this version would refuse such rows, so the version says a file has them.
    version: 7,
    sql: '',
  },
  {
    // Leaner commits (issue 20): events lose AUTOINCREMENT, whose sequence row was one more page
    // written by every commit that appends an event. Ids still never go back, which the change
    // feed needs (it reads the events after the last id it saw): SQLite gives a new row the
    // largest id plus one, and a purge that deletes the newest events keeps their largest id in
    // a placeholder row (ask 0, which no ask is; see `EVENT_ID_HOLDER`). The sequence's value is
    // kept the same way here where it is above every event left.
    version: 8,
    sql: `
      CREATE TABLE ask_events_v8 (
        id INTEGER PRIMARY KEY,
        ask INTEGER NOT NULL,
        at INTEGER NOT NULL,
        type TEXT NOT NULL,
        from_state TEXT,
        to_state TEXT NOT NULL,
        data TEXT,
        recipient TEXT
      );
      INSERT INTO ask_events_v8 (id, ask, at, type, from_state, to_state, data, recipient)
        SELECT id, ask, at, type, from_state, to_state, data, recipient FROM ask_events ORDER BY id;
      INSERT INTO ask_events_v8 (id, ask, at, type, to_state)
        SELECT seq, 0, 0, '', '' FROM sqlite_sequence
        WHERE name = 'ask_events' AND seq > (SELECT coalesce(max(id), 0) FROM ask_events);
      DROP TABLE ask_events;
      ALTER TABLE ask_events_v8 RENAME TO ask_events;
      CREATE INDEX ask_events_by_ask ON ask_events (ask, id);
      CREATE INDEX ask_events_recipient ON ask_events (recipient, ask) WHERE recipient IS NOT NULL;
    `,
  },
  {
    // Leaner commits (issue 20): `asks_updated` keeps only rows written again at another time
    // than their creation, so a new ask adds no entry to it (one index page fewer in the commit
    // that creates it), and a later write adds one instead of moving one. The other rows' updated
    // time is their creation time, which `list` reads by `asks_created`.
    version: 9,
    sql: `
      DROP INDEX asks_updated;
      CREATE INDEX asks_updated ON asks (updated_at) WHERE updated_at <> created_at;
    `,
  },
  {
    // Leaner commits (issue 20): an ask's start event is no row of `ask_events` when the ask's
    // row stands for all of it (`startStandsFor`: the row's creation time, no previous state,
    // 'pending', the start data the row gives); the history reads it from the row. A build
    // before this version would show such an ask without its start, so the version says a file
    // has them. The change feed then finds new asks by their row numbers, which must never go
    // back either: `ask_last_seq` keeps the largest one a purge deleted, and a new ask is
    // numbered after it (`NEXT_ASK_SEQ`). It is written by a purge that deletes the newest ask
    // only, never by the commit that creates one.
    version: 10,
    sql: `
      CREATE TABLE IF NOT EXISTS ask_last_seq (one INTEGER PRIMARY KEY CHECK (one = 1), seq INTEGER NOT NULL);
    `,
  },
  {
    // Owner leases (issue 37): one row per service, keyed by its number in `ask_owners` (as
    // rows name their owner), however many asks it owns. While its lease runs (past the clock's
    // now), the service is live: a sweep leaves its pending asks to it, and no other service
    // takes them over.
    version: 11,
    sql: `
      CREATE TABLE IF NOT EXISTS ask_leases (owner INTEGER PRIMARY KEY, lease_until REAL NOT NULL);
      `,
  },
  {
    // Ids are never reused (issue 37): a purge keeps the id of each ask it deletes (the id
    // alone, WITHOUT ROWID so it is one index entry), and an ask is created only under an id
    // that is not here. A link signed for a purged ask can then never open a new one, even
    // one whose key hashes to the same id.
    version: 12,
    sql: `
      CREATE TABLE IF NOT EXISTS ask_purged (id TEXT PRIMARY KEY NOT NULL) WITHOUT ROWID;
    `,
  },
  {
    // Attachments (issue 39): what a caller keeps with an ask for whoever resumes it (an agent
    // run's saved state), as JSON text, written when the ask is created and never updated.
    version: 13,
    sql: `
      ALTER TABLE asks ADD COLUMN attachment TEXT;
    `,
  },
  {
    // Work claims (issue 39): one holder at a time for a piece of work (an agent run's round of
    // approved calls), a lease until `lease_until`, done once `done_at` is set. A claim that
    // belongs to an ask (`ask_id`) is deleted when a purge deletes that ask.
    version: 14,
    sql: `
      CREATE TABLE IF NOT EXISTS ask_claims (
        "key" TEXT PRIMARY KEY NOT NULL,
        holder TEXT NOT NULL,
        lease_until REAL NOT NULL,
        done_at REAL,
        ask_id TEXT
      ) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS ask_claims_ask ON ask_claims (ask_id) WHERE ask_id IS NOT NULL;
    `,
  },
];
