/**
 * A settled ask purged before its owner heard of the settle (issue 37, §3): the owner used to
 * find nothing when it read the ask again, so its caller waited forever and its provider kept
 * asking. It now settles its caller with a clear error and aborts its provider. A purge leaves
 * such an ask to a live owner (purge-unheard-settle.test.ts), so here the owner's lease has
 * run out (as when the store failed its renewals for longer than the lease) before the purge.
 */

import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { createInteractionService, createMemoryAskStore } from '../../src/index.js';
import { manualProvider, tick, yesNo } from './helpers.js';

const yes = [{ questionId: 'q1', response: { kind: 'selection' as const, selections: ['Yes'] } }];

describe('an ask purged before its owner heard it settle', () => {
  it('settles the owner’s caller with an error that says so, and aborts its provider', async () => {
    const store = createMemoryAskStore();
    const clock = new SimulatedClock();
    clock.set(1_000);
    const owner = createInteractionService({ store, clock, leaseMs: 10_000 });
    const provider = manualProvider();
    owner.registerProvider(provider);
    const handle = owner.start(yesNo);
    await handle.stored;
    await tick();
    expect(provider.calls).toHaveLength(1);
    const other = createInteractionService({ store, clock, retention: false });
    // Answered elsewhere and purged in the same turn, once the owner's lease ran out: the
    // owner hears of the answer after.
    await other.answer(handle.id, yes);
    clock.increment(10_000);
    expect(await other.purge({ finalBefore: 2_000 })).toBe(1);
    await expect(handle.outcome).rejects.toMatchObject({
      code: 'UNKNOWN_INTERACTION',
      data: { askId: handle.id },
    });
    await expect(handle.outcome).rejects.toThrow(
      `Ask ${handle.id} was deleted from the store (purged) before this service heard how it ended`,
    );
    expect(provider.calls[0]!.ctx.signal.aborted).toBe(true);
    await Promise.all([owner.close(), other.close()]);
  });

  it('says the same when its provider answers after the purge', async () => {
    const store = createMemoryAskStore();
    const clock = new SimulatedClock();
    clock.set(1_000);
    const owner = createInteractionService({ store, clock, leaseMs: 10_000 });
    const provider = manualProvider();
    owner.registerProvider(provider);
    const handle = owner.start(yesNo);
    await handle.stored;
    await tick();
    const other = createInteractionService({ store, clock, retention: false });
    await other.answer(handle.id, yes);
    clock.increment(10_000);
    expect(await other.purge({ finalBefore: 2_000 })).toBe(1);
    // The owner's write finds no row to write over.
    provider.calls[0]!.resolve({ status: 'answered', answers: yes });
    await expect(handle.outcome).rejects.toThrow(
      `Ask ${handle.id} was deleted from the store (purged) before this service heard how it ended`,
    );
    await Promise.all([owner.close(), other.close()]);
  });
});
