/** The SQLite store against the shared store contract, on a temporary file. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteAskStore } from 'ask-engine/sqlite';
import { describeAskStoreContract } from './store-contract.js';

let dir = '';

describeAskStoreContract('the SQLite store', {
  create: async () => {
    dir = mkdtempSync(join(tmpdir(), 'ask-engine-sqlite-'));
    return createSqliteAskStore({ path: join(dir, 'asks.db') }, { pollIntervalMs: 5 });
  },
  connect: async () => createSqliteAskStore({ path: join(dir, 'asks.db') }, { pollIntervalMs: 5 }),
  cleanup: async () => rmSync(dir, { recursive: true, force: true }),
});
