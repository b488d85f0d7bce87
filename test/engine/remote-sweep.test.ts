/**
 * A sweeper on a store that waits for a database server (`remote`) sizes its rounds by this
 * process's CPU time. On a busy machine the database takes the process's CPU while it answers,
 * and the event loop reads as busy meanwhile: counted as the sweep's own work, that shrank
 * each round to a few asks, and 10,000 due asks took hundreds of round trips.
 */
import { describe, expect, it } from 'vitest';
import { type AskStore, createInteractionService, createMemoryAskStore } from '../../src/index.js';
import { delegatingStore, leaveDueAsks, untilNonePending } from './sweep-fixtures.js';

const DUE = 1_500;
/** How long each claimed ask blocks the thread without using its CPU, as a database would. */
const WAIT_MS_PER_ASK = 0.2;
const blocker = new Int32Array(new SharedArrayBuffer(4));

/** A memory store whose claims block the thread like a database answering on the same CPU. */
function storeWaitingOnADatabase(inner: AskStore, remote: boolean) {
  const limits: number[] = [];
  const store = delegatingStore(inner) as AskStore & { remote: boolean };
  store.remote = remote;
  store.claimDue = async (now, limit, settle) => {
    limits.push(limit);
    const writes = await inner.claimDue(now, limit, settle);
    // Blocks the thread (the event loop reads as busy) while this process uses no CPU.
    Atomics.wait(blocker, 0, 0, writes.length * WAIT_MS_PER_ASK);
    return writes;
  };
  return { store, limits };
}

async function sweepAll(remote: boolean): Promise<number[]> {
  const inner = createMemoryAskStore();
  await leaveDueAsks(inner, DUE);
  const { store, limits } = storeWaitingOnADatabase(inner, remote);
  const sweeper = createInteractionService({ store, sweepIntervalMs: 10 });
  try {
    await untilNonePending(inner);
  } finally {
    await sweeper.close();
  }
  return limits;
}

describe('sweeping a remote store', () => {
  it('claims the largest rounds when the time a round blocks is the database’s, not its own', async () => {
    const limits = await sweepAll(true);
    // Its CPU per ask is a few µs to a few tens: rounds grow to the most a round claims (256).
    expect(Math.max(...limits)).toBeGreaterThanOrEqual(128);
  });

  it('keeps rounds small for a store whose blocking time is its own work', async () => {
    const limits = await sweepAll(false);
    // At least 0.2 ms of the loop's time per ask: one slice of 4 ms fits about 20 asks.
    expect(Math.max(...limits)).toBeLessThanOrEqual(32);
  });
});
