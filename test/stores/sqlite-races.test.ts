/**
 * The seeded multi-service races (test/engine/store-races.ts) on SQLite: each service on its
 * own connection to one file, so every change reaches the others through the file and its
 * change feed, as between processes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteAskStore } from 'ask-engine/sqlite';
import { afterAll, describe, it } from 'vitest';
import { raceOnStore } from '../engine/store-races.js';

describe('services racing on one SQLite file, one connection each', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ask-engine-sqlite-races-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
    it(`gives every ask exactly one outcome (seed ${seed}, 4 services x 40 asks)`, async () => {
      const path = join(dir, `races-${seed}.db`);
      await raceOnStore(
        () => createSqliteAskStore({ path }, { synchronous: 'normal', pollIntervalMs: 5 }),
        { services: 4, asks: 40, seed },
      );
    });
  }
});
