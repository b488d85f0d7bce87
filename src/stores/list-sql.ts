/**
 * The SQL of `list` for the durable stores, one builder for both dialects: every filter is a
 * condition an index answers, the position is always bound (the first page starts after the
 * largest time), so each read is an index range in list order with a LIMIT, never a scan or a
 * sort of the matches. Several states are read one ordered range each and merged, and so are
 * the two halves of an `updated` range where the dialect says `rewrittenOnly`.
 */
import type { AskState } from '../engine/audit.js';
import type { AskQuery, QueryName } from './ask-query.js';

export interface ListDialect {
  /** The asks table as a statement names it. */
  readonly table: string;
  /** What a SELECT lists: the tie-break column, then the store's row columns. */
  readonly select: string;
  /** The tie-break column (the row number, or the ask id). */
  readonly tie: string;
  /** The column each filter reads. */
  readonly columns: Readonly<Record<QueryName, string>>;
  /**
   * The condition of the `notified` filter: the ask's row is among those whose notification
   * events name the recipient bound at `placeholder` (read through the events' recipient index).
   */
  notified(placeholder: string): string;
  /** The placeholder of the n-th parameter (from 1). */
  placeholder(n: number): string;
  /**
   * The `updated` filter's index holds only rows written again at another time than their
   * creation (SQLite's partial `asks_updated`, so a new ask adds no entry to it): the filter then
   * reads two ranges, those rows by that index and the others, whose updated time is their
   * creation time, by the list order's own.
   */
  readonly rewrittenOnly?: boolean;
}

export interface ListStatement {
  /** The statement's text; the same for every query of the same shape (a cache key). */
  text: string;
  params: (string | number)[];
}

/** The statement reading `query.limit + 1` rows (one more says there are more) in list order. */
export function listStatement(
  query: AskQuery<string | number>,
  dialect: ListDialect,
  firstTie: string | number,
): ListStatement {
  const params: (string | number)[] = [];
  const bind = (value: string | number) => {
    params.push(value);
    return dialect.placeholder(params.length);
  };
  const { columns, tie } = dialect;
  const order = `ORDER BY ${columns.createdAt} DESC, ${tie} DESC`;
  const after = query.after ?? { createdAt: Number.MAX_VALUE, tie: firstTie };
  // 'rewritten': rows whose updated time is not their creation time; 'unwritten': the others.
  const range = (state: AskState | undefined, written?: 'rewritten' | 'unwritten') => {
    const conditions: string[] = [];
    if (state !== undefined) conditions.push(`${columns.state} = ${bind(state)}`);
    for (const { filter, value } of query.equal) {
      conditions.push(`${columns[filter]} = ${bind(value)}`);
    }
    for (const { field, from, to } of query.ranges) {
      let column = columns[field];
      if (written !== undefined && field === 'updatedAt') {
        const same = `${columns.updatedAt} ${written === 'rewritten' ? '<>' : '='} ${columns.createdAt}`;
        conditions.push(same);
        if (written === 'unwritten') column = columns.createdAt;
      }
      if (from !== undefined) conditions.push(`${column} >= ${bind(from)}`);
      if (to !== undefined) conditions.push(`${column} < ${bind(to)}`);
    }
    if (query.notified !== undefined) conditions.push(dialect.notified(bind(query.notified)));
    // The first condition is the index range; the second steps past the cursor's own row.
    conditions.push(
      `${columns.createdAt} <= ${bind(after.createdAt)}`,
      `(${columns.createdAt} < ${bind(after.createdAt)} OR ${tie} < ${bind(after.tie)})`,
    );
    return `SELECT ${dialect.select} FROM ${dialect.table} WHERE ${conditions.join(' AND ')} ${order} LIMIT ${bind(query.limit + 1)}`;
  };
  const states = query.states ?? [undefined];
  const split = dialect.rewrittenOnly === true && query.ranges.some((r) => r.field === 'updatedAt');
  const ranges = split
    ? states.flatMap((state) => [() => range(state, 'rewritten'), () => range(state, 'unwritten')])
    : states.map((state) => () => range(state));
  if (ranges.length === 1) return { text: ranges[0]!(), params };
  const parts = ranges.map((part, index) => `SELECT * FROM (${part()}) AS s${index}`);
  return {
    text: `${parts.join(' UNION ALL ')} ${order} LIMIT ${bind(query.limit + 1)}`,
    params,
  };
}
