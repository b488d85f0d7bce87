import { defineConfig, mergeConfig } from 'vitest/config';
import { fastLane } from './test/support/test-lanes.js';
import base from './vitest.config.js';

// The fast lane for the edit-test loop (`npm run test:fast`): the test files that start no
// browser, database server, child process, bundler or compiler, found from their imports by
// test/support/test-lanes.ts. `npm test` stays the full run.
export default mergeConfig(base, defineConfig({ test: { include: fastLane('test') } }));
