/**
 * How the shared rules (`ask-rules-sql.ts`) are written into PostgreSQL's statements: as
 * postgres.js fragments (values bound as parameters), or as text for the statements built once
 * as text (`PostgresWrites`). A boolean column is tested as itself (`final`, `not final`).
 */
import type { Sql } from 'postgres';
import { type RuleDialect, textPiece } from '../ask-rules-sql.js';

function is(column: string, value: boolean): string {
  return value ? column : `not ${column}`;
}

/** The rules as fragments of `sql`'s tagged templates; names and tests are made once. */
export function postgresRules(sql: Sql): RuleDialect<ReturnType<Sql>> {
  const pieces = new Map<string, ReturnType<Sql['unsafe']>>();
  const raw = (text: string) => {
    let piece = pieces.get(text);
    if (piece === undefined) {
      piece = sql.unsafe(text);
      pieces.set(text, piece);
    }
    return piece;
  };
  return {
    sql: (strings, ...values) => sql(strings, ...(values as never[])),
    raw,
    is: (column, value) => raw(is(column, value)),
  };
}

/** The rules as text: every value is written in as it is (a placeholder, a column). */
export const POSTGRES_TEXT_RULES: RuleDialect<string> = {
  sql: textPiece,
  raw: (text) => text,
  is,
};
