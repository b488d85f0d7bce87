/**
 * A resolved `close()` means nothing of that service writes again (issue 37, §9): the writes
 * it has in flight when it closes (a storm of deadlines, a sweep's claim, an audit append)
 * land before `close()` resolves, and none begins after. The store here takes a few turns of
 * the event loop per write, as a database does; see postgres-close.test.ts for PostgreSQL.
 */

import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { type AskStore, createInteractionService, createMemoryAskStore } from '../../src/index.js';
import { delegatingStore, leaveDueAsks } from './sweep-fixtures.js';

/** `inner`, whose writes settle a macrotask late; it counts those that settle after `closed`. */
function slowStore(inner: AskStore) {
  const state = { closed: false, lateWrites: 0, writes: 0 };
  const store = delegatingStore(inner);
  const late = <T>(write: Promise<T>): Promise<T> => {
    state.writes++;
    return write.then(
      (value) =>
        new Promise<T>((resolve) =>
          setTimeout(() => {
            if (state.closed) state.lateWrites++;
            resolve(value);
          }, 2),
        ),
    );
  };
  store.update = (write, expected) => late(inner.update(write, expected));
  store.create = (write) => late(inner.create(write));
  store.claimDue = (...args) => late(inner.claimDue(...args));
  return { store, state };
}

describe('close()', () => {
  it('resolves once the deadline writes in flight have landed, and no write lands after', async () => {
    const { store, state } = slowStore(createMemoryAskStore());
    const clock = new SimulatedClock();
    const service = createInteractionService({
      store,
      clock,
      sweepIntervalMs: Number.POSITIVE_INFINITY,
    });
    service.registerProvider({ ask: () => new Promise(() => undefined) });
    const handles = Array.from({ length: 200 }, () =>
      service.start({ question: 'Ship it?' }, { timeoutMs: 1_000 }),
    );
    for (const handle of handles) handle.outcome.catch(() => undefined);
    await Promise.all(handles.map((handle) => handle.stored));
    const before = state.writes;
    clock.increment(1_000);
    // The storm is under way: its writes are in flight.
    await new Promise((resolve) => setImmediate(resolve));
    expect(state.writes).toBeGreaterThan(before);
    await service.close();
    state.closed = true;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(state.lateWrites).toBe(0);
  });

  it('resolves once a sweep’s claim in flight has landed', async () => {
    const inner = createMemoryAskStore();
    await leaveDueAsks(inner, 50);
    const store = delegatingStore(inner);
    let claims = 0;
    let lateClaims = 0;
    let closed = false;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The claim is in the store and its reply waits, as a database's may, until after close().
    store.claimDue = async (...args) => {
      claims++;
      const applied = await inner.claimDue(...args);
      await gate;
      if (closed) lateClaims++;
      return applied;
    };
    const service = createInteractionService({ store, sweepIntervalMs: 1 });
    await expect.poll(() => claims).toBe(1);
    setTimeout(release, 20);
    await service.close();
    closed = true;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(lateClaims).toBe(0);
    expect(claims).toBe(1);
  });

  it('resolves the same way for every call, and refuses to write once called', async () => {
    const service = createInteractionService();
    const first = service.close();
    expect(service.close()).toBe(first);
    await first;
    await expect(service.purge({ finalBefore: Date.now() })).rejects.toThrow(
      'The interaction service is closed',
    );
  });
});
