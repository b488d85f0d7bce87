import { availableParallelism } from 'node:os';
import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

// Tests import the package by name (`ask-engine`, `ask-engine/data`): the `ask-engine:source`
// export condition resolves those to the TypeScript sources instead of the built `dist/`.
const conditions = ['ask-engine:source', ...defaultServerConditions];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // Most test files spend their time waiting on what they started (CLI processes, chromium,
    // tmux, PostgreSQL, servers), so two files at a time keep two cores busy where vitest's
    // default (one worker fewer than the cores) would run one file at a time on two cores.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
