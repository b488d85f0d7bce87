/** The PostgreSQL store's reads: an ask by id, interaction id or key, its history, and `list`. */
import type { Sql } from 'postgres';
import type { AskAuditEvent } from '../../engine/audit.js';
import { checkStoreText } from '../../rules/store-text.js';
import {
  type AskListFilter,
  type AskListPage,
  type AskListResult,
  pageOf,
  readAskQuery,
} from '../ask-query.js';
import { byInteractionOrder } from '../ask-rules-sql.js';
import type { ListedAsk, StoredAsk } from '../ask-store.js';
import { type ListDialect, listStatement } from '../list-sql.js';
import { columnList, queryColumns, readListedPage } from '../row-columns.js';
import { type PostgresConnection, retryRead } from './connection.js';
import { quoteIdentifier } from './migrations.js';
import {
  ASK_COLUMNS,
  CorruptAskRowError,
  LISTED_COLUMNS,
  parseAskRow,
  parseEventRow,
  parseListedRow,
} from './rows.js';

/** Where a listed row holds its creation time (`LISTED_COLUMNS` order). */
const LISTED_CREATED_AT = LISTED_COLUMNS.findIndex((column) => column.column === 'created_at');

export class PostgresReads {
  readonly #db: PostgresConnection;
  readonly #list: ListDialect;

  constructor(db: PostgresConnection) {
    this.#db = db;
    this.#list = postgresListDialect(db.schema.name);
  }

  async get(askId: string): Promise<StoredAsk | undefined> {
    checkStoreText(askId, 'askId');
    const sql = await this.#db.open();
    return this.select(sql`where id = ${askId}`);
  }

  async findByInteractionId(interactionId: string): Promise<StoredAsk | undefined> {
    checkStoreText(interactionId, 'interactionId');
    const sql = await this.#db.open();
    // The open ask first, else the one that settled last; equal times go by the larger ask id.
    const order = byInteractionOrder(this.#db.rules, 'asks', 'asks.id');
    return this.select(sql`where interaction_id = ${interactionId} order by ${order} limit 1`);
  }

  async findByKey(key: string): Promise<StoredAsk | undefined> {
    checkStoreText(key, 'key');
    const sql = await this.#db.open();
    return this.select(sql`where key = ${key}`);
  }

  async *history(askId: string): AsyncIterable<AskAuditEvent> {
    checkStoreText(askId, 'askId');
    const sql = await this.#db.open();
    const { eventColumns, events } = this.#db.schema;
    const rows = await retryRead(() =>
      sql`
        select ${eventColumns} from ${events} where ask_id = ${askId} order by id
      `.values(),
    );
    for (const row of rows) {
      // One event that does not parse is reported and left out: the rest of the history stays readable.
      let event: AskAuditEvent;
      try {
        event = parseEventRow(row);
      } catch (error) {
        if (!(error instanceof CorruptAskRowError)) throw error;
        this.#db.onError(error);
        continue;
      }
      yield event;
    }
  }

  async list(filter?: AskListFilter, page?: AskListPage): Promise<AskListResult<ListedAsk>> {
    const query = readAskQuery<string>(filter, page, 'string');
    const sql = await this.#db.open();
    const { text, params } = listStatement(query, this.#list, '');
    const rows = await retryRead(() => sql.unsafe(text, params, { prepare: true }).values());
    // Paged on the raw rows, so a row with a corrupt column still holds its place in the order.
    const listed = pageOf(rows, query.limit, (row) => ({
      createdAt: Number(row[LISTED_CREATED_AT]),
      tie: String(row[0]),
    }));
    return readListedPage(listed, parseListedRow);
  }

  /** The ask of the row `where` finds, if any (the schema must be migrated: after `open()`). */
  async select(where: ReturnType<Sql>): Promise<StoredAsk | undefined> {
    const { sql, schema } = this.#db;
    const [row] = await retryRead(() =>
      sql`select ${schema.askColumns} from ${schema.asks} ${where}`.values(),
    );
    return row === undefined ? undefined : parseAskRow(row);
  }
}

/** How `list` reads the asks of `schema` (also what the query-plan test explains). */
export function postgresListDialect(schema: string): ListDialect {
  const s = quoteIdentifier(schema);
  return {
    table: `${s}.asks`,
    select: columnList(LISTED_COLUMNS),
    tie: 'id',
    columns: queryColumns(ASK_COLUMNS),
    notified: (recipient) =>
      `id IN (SELECT ask_id FROM ${s}.ask_events WHERE recipient = ${recipient})`,
    placeholder: (n) => `$${n}`,
  };
}
