/**
 * A store whose claims are written beside the event loop (the SQLite store's worker) gets
 * two sweep rounds in flight, so one is read while the other is written; any other store gets
 * one at a time. Either way each due ask times out once and the sweep ends with both rounds.
 */
import { describe, expect, it } from 'vitest';
import { type AskStore, createInteractionService, createMemoryAskStore } from '../../src/index.js';
import { WRITES_CLAIMS_BESIDE } from '../../src/stores/claim-lanes.js';
import { delegatingStore, leaveDueAsks, untilNonePending } from './sweep-fixtures.js';

const DUE = 600;

async function sweepAll(beside: boolean): Promise<{ most: number; deadlines: number }> {
  const inner = createMemoryAskStore();
  await leaveDueAsks(inner, DUE);
  const store = delegatingStore(inner) as AskStore & { [WRITES_CLAIMS_BESIDE]?: boolean };
  if (beside) store[WRITES_CLAIMS_BESIDE] = true;
  let inFlight = 0;
  let most = 0;
  store.claimDue = async (now, limit, settle, enough) => {
    inFlight += 1;
    most = Math.max(most, inFlight);
    try {
      const writes = await inner.claimDue(now, limit, settle, enough);
      // Written elsewhere: the claim waits without keeping the loop busy.
      await new Promise((resolve) => setTimeout(resolve, 3));
      return writes;
    } finally {
      inFlight -= 1;
    }
  };
  const sweeper = createInteractionService({ store, sweepIntervalMs: 10 });
  try {
    await untilNonePending(inner);
  } finally {
    await sweeper.close();
  }
  const { items } = await inner.list({ state: ['timedOut'] }, { limit: DUE + 1 });
  let deadlines = 0;
  for (const item of items) {
    for await (const event of inner.history(item.askId)) if (event.type === 'deadline') deadlines++;
  }
  expect(items).toHaveLength(DUE);
  return { most, deadlines };
}

describe('sweep rounds in flight', () => {
  it('keeps two rounds in flight for a store that writes its claims beside the loop', async () => {
    const { most, deadlines } = await sweepAll(true);
    expect(most).toBe(2);
    expect(deadlines).toBe(DUE);
  });

  it('keeps one round in flight for any other store', async () => {
    const { most, deadlines } = await sweepAll(false);
    expect(most).toBe(1);
    expect(deadlines).toBe(DUE);
  });
});
