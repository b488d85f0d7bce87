/** Where the stores' rules (`rules-sql.ts`) read in the SQLite schema, and how values are bound. */
import type { Bind, RuleTables } from '../rules-sql.js';

export const SQLITE_TABLES: RuleTables = {
  asks: 'asks',
  leases: 'ask_leases',
  outbox: 'ask_outbox',
};

/** A value bound by position, each time it appears. */
export const bind: Bind = () => '?';
