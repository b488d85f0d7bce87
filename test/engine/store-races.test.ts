/** Several services racing over the asks of one memory store, in seeded random orders. */
import { describe, it } from 'vitest';
import { createMemoryAskStore } from '../../src/index.js';
import { raceOnStore } from './store-races.js';

describe('services racing on one memory store', () => {
  const store = createMemoryAskStore();
  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
    it(`gives every ask exactly one outcome (seed ${seed}, 4 services x 40 asks)`, async () => {
      await raceOnStore(() => shared(store), { services: 4, asks: 40, seed });
    });
  }
});

/** One store for every service; closing a service's handle must not close it for the others. */
function shared(store: ReturnType<typeof createMemoryAskStore>) {
  return { ...bindAll(store), close: async () => undefined };
}

function bindAll<T extends object>(target: T): T {
  const bound: Record<string, unknown> = {};
  for (const name of Object.getOwnPropertyNames(Object.getPrototypeOf(target))) {
    const value = (target as Record<string, unknown>)[name];
    if (name !== 'constructor' && typeof value === 'function') bound[name] = value.bind(target);
  }
  return bound as T;
}
