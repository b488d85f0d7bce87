/**
 * The SQLite store's rows: its column tables, built from the stored ask's description
 * (ask-row.ts) in SQLite's dialect, from which the statements and the readers are built. A row is
 * lean (lean-rows.ts): the snapshot column leaves out what the row holds elsewhere and `packed`
 * says what, and an event's data is left out where its ask's row stands for it. A column that
 * does not parse is refused with an error naming the ask and the column.
 */
import { type AskAuditEvent, INITIAL_ASK_STATE } from '../../engine/audit.js';
import { ASK_COPIES, ASK_ROW, EVENT_COPIES, EVENT_ROW } from '../ask-row.js';
import type { ClaimedOutboxAsk, ListedAsk, StoredAsk } from '../ask-store.js';
import { describedColumns, type SqlDialect } from '../described-columns.js';
import { dataStandsFor, packed, readBits, unpack } from '../lean-rows.js';
import { claimedAskColumns } from '../outbox.js';
import {
  type Column,
  ColumnFault,
  CorruptAskRowError,
  listedColumns,
  readJson,
  readRow,
  readTime,
  updatedColumns,
} from '../row-columns.js';
import type { SqliteValue } from './database.js';

const STORE = 'SQLite';

/** How SQLite keeps each kind of value: flags and times as integers, JSON as text. */
export const SQLITE_DIALECT: SqlDialect = {
  store: STORE,
  types: {
    text: 'TEXT',
    state: 'TEXT',
    version: 'INTEGER',
    time: 'INTEGER',
    flag: 'INTEGER',
    object: 'TEXT',
    array: 'TEXT',
    'event-type': 'TEXT',
    'from-state': 'TEXT',
  },
  jsonAsText: true,
  quote: (column) => (column === 'key' ? '"key"' : column),
  writeFlag: (flag) => (flag ? 1 : 0),
  readFlag: (value) => {
    const flag = typeof value === 'bigint' ? Number(value) : value;
    if (flag !== 0 && flag !== 1) throw new ColumnFault('not 0 or 1', value);
    return flag === 1;
  },
};

/** The `asks` columns the store writes and reads (`seq`, the row's number, is the table's). */
export const ASK_COLUMNS: readonly Column<StoredAsk>[] = describedColumns(
  SQLITE_DIALECT,
  ASK_ROW,
  ASK_COPIES,
  {
    snapshot: {
      write: (ask) => packed(ask).json,
      // Put together with what it left out once the whole row is read (`readAsk`).
      helpers: [
        { column: 'packed', type: 'INTEGER', write: (ask) => packed(ask).bits, read: readBits },
      ],
    },
    questions: { write: (ask) => questionsJson(ask.questions) },
    // Owners are few (one per service) and long: the row keeps a number for the owner's name.
    // The store adds a name to `ask_owners` before it writes a row naming it (`ownerParam`).
    owner: {
      type: 'INTEGER',
      placeholder: '(SELECT id FROM ask_owners WHERE name = ?)',
      select: '(SELECT name FROM ask_owners WHERE id = owner) AS owner',
    },
  },
);

/** The columns an update writes (`updatedColumns`: all but those fixed at create). */
export const UPDATED_COLUMNS = updatedColumns(ASK_COLUMNS);

/** The values bound for `UPDATED_COLUMNS`, in order. */
export function updateParams(ask: StoredAsk): SqliteValue[] {
  return UPDATED_COLUMNS.map((column) => column.write(ask) as SqliteValue);
}

/**
 * What `list` reads: the columns of a row but its snapshot, and the session and agent
 * columns as fields of their own.
 */
export const LISTED_COLUMNS = listedColumns(ASK_COLUMNS);

/**
 * The `ask_events` columns of an event, after `ask` (the `seq` of its ask, which the insert
 * looks up by ask id): compact, the ask id and the type are not repeated in a JSON copy.
 */
export const EVENT_COLUMNS: readonly Column<AskAuditEvent>[] = describedColumns(
  SQLITE_DIALECT,
  EVENT_ROW,
  EVENT_COPIES,
  {
    data: {
      // NULL: what the row stands for (see `eventParams`): a start event's data is the ask's
      // own (the history reads it as `start_data`), a deadline's is its time, and an answer's
      // is `{ answers, answeredBy? }` of the ask's outcome (the history reads `outcome`).
      read: (value, other) => {
        if (value !== null) return readJson(value, 'object', true);
        const type = other('type');
        if (type === 'start') {
          const data = other('start_data');
          if (data === undefined) {
            throw new ColumnFault('empty, and its ask cannot be read to stand for it', null);
          }
          return data;
        }
        if (type === 'deadline') return { at: readTime(other('at')) };
        const outcome = readJson(other('outcome'), 'object', true) as {
          answers?: unknown;
          answeredBy?: unknown;
        };
        if (!Array.isArray(outcome.answers)) {
          throw new ColumnFault('empty, and the ask has no answered outcome to stand for', null);
        }
        return outcome.answeredBy === undefined
          ? { answers: outcome.answers }
          : { answers: outcome.answers, answeredBy: outcome.answeredBy };
      },
    },
  },
  // The table keys events by their ask's row number (`ask`), not its id.
  ['askId'],
);

const DATA = EVENT_COLUMNS.findIndex((column) => column.column === 'data');
const DATA_COLUMN = EVENT_COLUMNS[DATA]!;

/** Column names as SQLite keys a row's values (`key` for `"key"`). */
const BARE_NAMES = new Map(
  ASK_COLUMNS.map((column) => [column.column, column.column.replace(/^"(.*)"$/, '$1')]),
);

/** An `asks` row as SQLite returns it, keyed by column. */
export type AskRow = Record<string, unknown> & { id: unknown };

/** The values bound for `ASK_COLUMNS`, in order. */
export function askParams(ask: StoredAsk): SqliteValue[] {
  return ASK_COLUMNS.map((column) => column.write(ask) as SqliteValue);
}

/**
 * The values bound for `EVENT_COLUMNS`, in order. `data` is left empty where the row it is
 * written with holds it already: a start event's data, when it is exactly what the service
 * derives from the new row (`startDataOf`); a deadline's `{ at }`, its own time; and the answers
 * and answerer of an event written with the final row whose outcome holds the very same
 * (`answer`, `resume`, `provider.answered`, not redacted).
 */
export function eventParams(event: AskAuditEvent, ask?: StoredAsk): SqliteValue[] {
  const params = EVENT_COLUMNS.map((column) =>
    column === DATA_COLUMN ? null : (column.write(event) as SqliteValue),
  );
  if (!dataStandsFor(event, ask)) params[DATA] = DATA_COLUMN.write(event) as SqliteValue;
  return params;
}

/**
 * The `ask_events` row of a start event its ask's row stands for (`startStandsFor`), as the
 * history query returns one: `readEvent` reads it like any other (its id is 0, before every
 * event's). `startData` undefined: the ask's row could not be read, and neither can this.
 */
export function impliedStartRow(
  createdAt: unknown,
  startData: Record<string, unknown> | undefined,
): Record<string, unknown> {
  return {
    id: 0,
    at: createdAt,
    type: 'start',
    from_state: null,
    to_state: INITIAL_ASK_STATE,
    data: null,
    recipient: null,
    start_data: startData,
  };
}

/** What a claim reads of an outbox entry's ask (`ClaimedOutboxEntry.ask`). */
export const CLAIMED_ASK_COLUMNS = claimedAskColumns(ASK_COLUMNS);

/** An `asks` row selected with `CLAIMED_ASK_COLUMNS`. */
export function readClaimedAsk(row: AskRow): ClaimedOutboxAsk {
  const id = typeof row.id === 'string' && row.id !== '' ? row.id : String(row.id);
  return readRow(CLAIMED_ASK_COLUMNS, (column) => row[BARE_NAMES.get(column) ?? column], id, {
    store: STORE,
  });
}

/** An `asks` row selected with `LISTED_COLUMNS`. */
export function readListed(row: AskRow): ListedAsk {
  const id = typeof row.id === 'string' && row.id !== '' ? row.id : String(row.id);
  return readRow(LISTED_COLUMNS, (column) => row[BARE_NAMES.get(column) ?? column], id, {
    store: STORE,
  });
}

export function readAsk(row: AskRow): StoredAsk {
  const id = typeof row.id === 'string' && row.id !== '' ? row.id : String(row.id);
  const value = (column: string) => row[BARE_NAMES.get(column) ?? column];
  const ask = readRow(ASK_COLUMNS, value, id, { store: STORE });
  let bits: number;
  try {
    bits = readBits(row.packed);
  } catch (error) {
    if (!(error instanceof ColumnFault)) throw error;
    throw new CorruptAskRowError(id, 'packed', error.message, STORE);
  }
  unpack(ask, bits, STORE);
  return ask;
}

/** An `ask_events` row (`id` and the columns of `EVENT_COLUMNS`) of ask `askId`. */
export function readEvent(row: Record<string, unknown>, askId: string): AskAuditEvent {
  const event = readRow<AskAuditEvent>(EVENT_COLUMNS, (column) => row[column], askId, {
    store: STORE,
    table: `ask_events (event ${String(row.id)})`,
  });
  event.askId = askId;
  return event;
}

/**
 * The questions' JSON by array: every row of one ask carries the same questions array (rows are
 * not mutated once written), so each ask's questions are serialized once, not once per write.
 */
const questionsJsonCache = new WeakMap<object, string>();

function questionsJson(questions: StoredAsk['questions']): string {
  let json = questionsJsonCache.get(questions);
  if (json === undefined) {
    json = JSON.stringify(questions);
    questionsJsonCache.set(questions, json);
  }
  return json;
}
