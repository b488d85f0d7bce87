/** What the sweeper tests share: due asks left in a store, a store to wrap, a wait for the sweep. */
import { SimulatedClock } from 'xstate';
import { type AskStore, createInteractionService } from '../../src/index.js';
import { ASK_STORE_METHODS } from '../../src/stores/store-ports.js';

/** Leaves `count` pending asks in `store` whose deadlines passed a minute ago; no service holds them. */
export async function leaveDueAsks(store: AskStore, count: number): Promise<void> {
  const clock = new SimulatedClock();
  clock.set(Date.now() - 60_000);
  const creator = createInteractionService({ store, clock, sweepIntervalMs: Infinity });
  creator.registerProvider({ ask: () => new Promise(() => {}) });
  const handles = Array.from({ length: count }, () =>
    creator.start(
      { questions: [{ question: 'Ship it?', options: ['Yes', 'No'] }] },
      { timeoutMs: 1_000 },
    ),
  );
  await Promise.all(handles.map((handle) => handle.stored));
  await creator.close();
}

/** A store that calls `inner` for every method: a test replaces the ones it watches. */
export function delegatingStore(inner: AskStore): AskStore {
  return Object.fromEntries(
    ASK_STORE_METHODS.map((method) => [method, inner[method].bind(inner)]),
  ) as unknown as AskStore;
}

/** Resolves once `store` holds no pending ask; throws after 30 s. */
export async function untilNonePending(store: AskStore): Promise<void> {
  for (let waited = 0; ; waited += 20) {
    const open = await store.list({ state: ['pending'] }, { limit: 1 });
    if (open.items.length === 0) return;
    if (waited > 30_000) throw new Error('the due asks were not swept within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
