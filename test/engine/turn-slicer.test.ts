/**
 * Slices sized by whole turns (src/engine/event-loop.ts): the cost an item leaves to promise
 * continuations counts, so a storm's turns stay short even when an item's synchronous part is
 * nearly free. Time is the test's own (performance.now is stubbed), so the sizes are exact.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { forEachSliced, SLICE_MS, TurnSlicer } from '../../src/engine/event-loop.js';

let now = 0;
afterEach(() => {
  vi.restoreAllMocks();
});
function stubClock(): void {
  now = 0;
  vi.spyOn(performance, 'now').mockImplementation(() => now);
}

/** Takes items until the slice is full; returns how many it took. */
function take(slicer: TurnSlicer, costMs = 0): number {
  let taken = 0;
  while (!slicer.full()) {
    taken++;
    now += costMs;
  }
  return taken;
}

describe('TurnSlicer', () => {
  it('takes a small first slice, then as many items as fit in a slice at the measured cost', () => {
    stubClock();
    const slicer = new TurnSlicer();
    slicer.begin();
    const first = take(slicer);
    expect(first).toBe(16);
    // The turn ran the items' continuations: 0.5 ms per item in all.
    now += first * 0.5;
    slicer.begin();
    expect(take(slicer)).toBe(Math.floor(SLICE_MS / 0.5));
  });

  it('averages the cost over turns, so one slow turn does not shrink the next to nothing', () => {
    stubClock();
    const slicer = new TurnSlicer();
    slicer.begin();
    now += take(slicer) * 0.25;
    slicer.begin();
    const steady = take(slicer);
    expect(steady).toBe(16);
    // A collection made this turn 20 times slower: the average is (0.25 + 5) / 2.
    now += steady * 5;
    slicer.begin();
    expect(take(slicer)).toBe(Math.max(1, Math.floor(SLICE_MS / ((0.25 + 5) / 2))));
  });

  it('still ends a slice whose own synchronous part spent the budget', () => {
    stubClock();
    const slicer = new TurnSlicer();
    slicer.begin();
    // 3 ms of synchronous work per item: the second item passes the budget.
    expect(take(slicer, 3)).toBe(2);
  });

  it('takes at least one item per turn, however costly items are', () => {
    stubClock();
    const slicer = new TurnSlicer();
    slicer.begin();
    now += take(slicer) * 100;
    slicer.begin();
    expect(take(slicer)).toBe(1);
  });

  it('does not count the idle time between two runs as the cost of the last slice', () => {
    stubClock();
    const slicer = new TurnSlicer();
    slicer.begin();
    now += take(slicer) * 0.5;
    slicer.begin();
    now += take(slicer) * 0.5;
    slicer.end();
    // A minute later a new storm: sized from the 0.5 ms per item measured, not from the minute.
    now += 60_000;
    slicer.begin();
    expect(take(slicer)).toBe(Math.floor(SLICE_MS / 0.5));
  });
});

describe('forEachSliced', () => {
  it('spreads items whose continuations are costly over many turns, and waits for them all', async () => {
    const turns: number[] = [];
    let inTurn = 0;
    let settled = 0;
    const items = Array.from({ length: 400 }, (_, index) => index);
    await forEachSliced(items, () => {
      if (inTurn === 0) {
        // The first item of a turn: count the turn's items once it is over.
        setImmediate(() => {
          turns.push(inTurn);
          inTurn = 0;
        });
      }
      inTurn++;
      // Nearly free now, about 0.2 ms later (its continuation, in the same turn).
      return Promise.resolve().then(() => {
        const until = performance.now() + 0.2;
        while (performance.now() < until);
        settled++;
      });
    });
    expect(settled).toBe(items.length);
    expect(turns.length).toBeGreaterThan(4);
    // After the first turn, no turn takes more items than fit in a slice at 0.2 ms each.
    expect(Math.max(...turns.slice(1))).toBeLessThanOrEqual(Math.ceil(SLICE_MS / 0.2));
  });
});
