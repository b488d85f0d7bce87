/**
 * The fan-out every store tells its news through: a write only its own writer listens to costs
 * nothing (no news kept, no turn scheduled), and within one batch the latest write of an ask
 * decides who is not told.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AskStoreChange } from '../../src/index.js';
import { ChangeFanout } from '../../src/stores/change-fanout.js';

const nextTurn = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('ChangeFanout', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('schedules nothing for a write whose writer is the only listener', async () => {
    const fanout = new ChangeFanout();
    const told: AskStoreChange[] = [];
    fanout.subscribe((change) => told.push(change), 'service-a');
    const scheduled = vi.spyOn(globalThis, 'setImmediate');
    fanout.changed('ask-1', 1, 'service-a');
    fanout.changed('ask-1', 2, 'service-a');
    expect(scheduled).not.toHaveBeenCalled();
    fanout.changed('ask-1', 3, 'service-b');
    expect(scheduled).toHaveBeenCalledTimes(1);
    await nextTurn();
    expect(told).toEqual([{ type: 'changed', askId: 'ask-1', version: 3 }]);
  });

  it('tells every listener but the writer of the latest version in a batch', async () => {
    const fanout = new ChangeFanout();
    const told = {
      a: [] as AskStoreChange[],
      b: [] as AskStoreChange[],
      all: [] as AskStoreChange[],
    };
    fanout.subscribe((change) => told.a.push(change), 'service-a');
    fanout.subscribe((change) => told.b.push(change), 'service-b');
    fanout.subscribe((change) => told.all.push(change));
    // ask-1: B then A (A wrote last: A knows it); ask-2: A then B; ask-3: A, then no writer.
    fanout.changed('ask-1', 1, 'service-b');
    fanout.changed('ask-1', 2, 'service-a');
    fanout.changed('ask-2', 1, 'service-a');
    fanout.changed('ask-2', 2, 'service-b');
    fanout.changed('ask-3', 1, 'service-a');
    fanout.changed('ask-3', 2);
    // An older version told late changes nothing.
    fanout.changed('ask-1', 1, 'service-b');
    await nextTurn();
    const at = (askId: string, version: number) => ({ type: 'changed', askId, version });
    expect(told.a).toEqual([at('ask-2', 2), at('ask-3', 2)]);
    expect(told.b).toEqual([at('ask-1', 2), at('ask-3', 2)]);
    expect(told.all).toEqual([at('ask-1', 2), at('ask-2', 2), at('ask-3', 2)]);
  });

  it('stops leaving a writer out once its listener unsubscribed', async () => {
    const fanout = new ChangeFanout();
    const told: AskStoreChange[] = [];
    const unsubscribe = fanout.subscribe(() => undefined, 'service-a');
    fanout.subscribe((change) => told.push(change));
    unsubscribe();
    unsubscribe();
    const scheduled = vi.spyOn(globalThis, 'setImmediate');
    fanout.changed('ask-1', 1, 'service-a');
    expect(scheduled).toHaveBeenCalledTimes(1);
    await nextTurn();
    expect(told).toEqual([{ type: 'changed', askId: 'ask-1', version: 1 }]);
  });
});
