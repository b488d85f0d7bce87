/** The column rules both SQL stores share (row-columns.ts), checked against each store's table. */
import { describe, expect, it } from 'vitest';
import * as postgres from '../../src/stores/postgres/rows.js';
import { type Column, updatedColumns } from '../../src/stores/row-columns.js';
import * as sqlite from '../../src/stores/sqlite/rows.js';

const names = (columns: readonly Column<never>[]) =>
  columns.map((column) => column.column.replace(/^"(.*)"$/, '$1'));

/** The ask columns a store's update leaves as they are. */
const fixed = (store: typeof postgres | typeof sqlite) => {
  const updated = new Set(names(store.UPDATED_COLUMNS as readonly Column<never>[]));
  return names(store.ASK_COLUMNS as readonly Column<never>[]).filter((name) => !updated.has(name));
};

describe('the columns an update writes', () => {
  it('leave the same columns as they are in both stores, the quoted key among them', () => {
    expect(fixed(sqlite)).toEqual(fixed(postgres));
    expect(fixed(postgres)).toContain('key');
    expect(fixed(postgres)).toContain('created_at');
    expect(fixed(postgres)).not.toContain('state');
  });

  it('refuse a table missing a column fixed at create, naming it', () => {
    const withoutAgent = postgres.ASK_COLUMNS.filter((column) => column.column !== 'agent');
    expect(() => updatedColumns(withoutAgent)).toThrow(
      'No column agent among the ask columns fixed at create.',
    );
  });
});
