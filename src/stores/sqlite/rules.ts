/** How the stores' rules (`rules-sql.ts`) read the SQLite schema: flags are 1 or 0, values `?`. */
import type { Bind, RuleDialect, RuleTables } from '../rules-sql.js';

export const SQLITE_RULES: RuleDialect = {
  isSet: (column) => `${column} = 1`,
  isUnset: (column) => `${column} = 0`,
};

export const SQLITE_TABLES: RuleTables = {
  asks: 'asks',
  leases: 'ask_leases',
  outbox: 'ask_outbox',
};

/** A value bound by position, each time it appears. */
export const bind: Bind = () => '?';
