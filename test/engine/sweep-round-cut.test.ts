/**
 * A sweep round is sized from the time per ask so far, but an ask can suddenly cost far more
 * (code deoptimized, a collection, a busy machine): a round sized at the old cost would block
 * the loop many times its slice. The sweeper ends a local store's round once it has run for a
 * slice, and the sweep goes on with the next round at once, not at the next interval.
 */
import { describe, expect, it } from 'vitest';
import { SLICE_MS } from '../../src/engine/event-loop.js';
import { type AskStore, createInteractionService, createMemoryAskStore } from '../../src/index.js';
import { delegatingStore, leaveDueAsks, untilNonePending } from './sweep-fixtures.js';

const DUE = 1_200;
/** Asks in this range of claims cost SLOW_MS each to settle; the others cost FAST_MS. */
const SLOW = { from: 400, to: 600 };
const SLOW_MS = 2;
const FAST_MS = 0.02;

function spin(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

/** A memory store whose settling costs FAST_MS per ask, then SLOW_MS for a stretch of asks. */
function storeWithASlowStretch(inner: AskStore) {
  const rounds: { limit: number; applied: number; slow: number }[] = [];
  let settled = 0;
  const store = delegatingStore(inner);
  store.claimDue = async (now, limit, settle, enough) => {
    let slow = 0;
    const writes = await inner.claimDue(
      now,
      limit,
      (ask) => {
        settled++;
        const isSlow = settled >= SLOW.from && settled < SLOW.to;
        if (isSlow) slow++;
        spin(isSlow ? SLOW_MS : FAST_MS);
        return settle(ask);
      },
      enough,
    );
    rounds.push({ limit, applied: writes.length, slow });
    return writes;
  };
  return { store, rounds };
}

describe('a sweep round on a local store', () => {
  it('ends once it has run for a slice, and the sweep goes on at once', async () => {
    const inner = createMemoryAskStore();
    await leaveDueAsks(inner, DUE);
    const { store, rounds } = storeWithASlowStretch(inner);
    // One sweep only (at creation): asks left by a round that ended early must not wait for
    // the next interval, an hour away.
    const sweeper = createInteractionService({ store, sweepIntervalMs: 3_600_000 });
    try {
      await untilNonePending(inner);
    } finally {
      await sweeper.close();
    }
    expect(rounds.reduce((sum, round) => sum + round.applied, 0)).toBe(DUE);
    // Rounds grew while asks were cheap; the slow stretch ended rounds before their limit.
    expect(rounds.some((round) => round.limit >= 64)).toBe(true);
    expect(rounds.some((round) => round.applied < round.limit && round.applied > 0)).toBe(true);
    // Without the cut, a round sized at the cheap cost meets the slow stretch: 64 asks or more
    // at 2 ms each, over 128 ms. With it, a round ends once it has run a slice: at most a
    // slice's worth of slow asks and the one that crossed it. Counted, not timed: a busy
    // machine only makes each slow ask longer, so fewer fit, never more.
    const mostSlow = Math.max(...rounds.map((round) => round.slow));
    expect(mostSlow).toBeLessThanOrEqual(Math.ceil(SLICE_MS / SLOW_MS) + 1);
  });
});
