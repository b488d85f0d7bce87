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
  },
});
