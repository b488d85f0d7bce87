/**
 * How the shared rules (`ask-rules-sql.ts`) are written into SQLite's statements: as text, each
 * value a `?` written in where the rule puts it, a flag tested as SQLite stores it (1 or 0).
 */
import {
  type LeaseTable,
  type OutboxTable,
  type RuleDialect,
  textPiece,
} from '../ask-rules-sql.js';
import { SQLITE_DIALECT } from './rows.js';

export const SQLITE_RULES: RuleDialect<string> = {
  sql: textPiece,
  raw: (text) => text,
  is: (column, value) => `${column} = ${String(SQLITE_DIALECT.writeFlag(value))}`,
};

/** The tables the rules read, as SQLite's statements name them. */
export const SQLITE_TABLES: LeaseTable & OutboxTable = {
  leases: 'ask_leases',
  outbox: 'ask_outbox',
};
