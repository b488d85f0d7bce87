import { defineConfig } from 'vitest/config';
import { fastLaneParts } from './test/support/test-lanes.js';
import base from './vitest.config.js';

// The fast lane for the edit-test loop (`npm run test:fast`): the test files that start no
// browser, database server, child process, bundler or compiler, found from their imports by
// test/support/test-lanes.ts. `npm test` stays the full run, every file isolated.
// Most of an isolated file's time is importing the same modules again: the files of a worker
// share their modules here (isolate: false), but for those that fake timers, mock modules,
// stub globals or spy (fastLaneParts), which run isolated. The root's include is emptied, as
// a project's include is added to what it extends (vitest's mergeConfig adds lists up).
const { shared, isolated } = fastLaneParts('test');
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: [],
    projects: [
      { extends: true, test: { name: 'fast', include: shared, isolate: false } },
      { extends: true, test: { name: 'fast-isolated', include: isolated } },
    ],
  },
});
