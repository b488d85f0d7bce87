import { defineConfig } from 'vitest/config';
import { fastLane } from './test/support/test-lanes.js';
import base from './vitest.config.js';

// The fast lane for the edit-test loop (`npm run test:fast`): the test files that start no
// browser, database server, child process, bundler or compiler, found from their imports by
// test/support/test-lanes.ts. `npm test` stays the full run.
// The include list replaces the base's (vitest's mergeConfig would add the two lists up).
export default defineConfig({ ...base, test: { ...base.test, include: fastLane('test') } });
