/**
 * The compare-and-set writes (ask-commit.ts) say what they came to and leave its effects to
 * settlement: the cached row moves only when the caller settles the applied write.
 */

import { afterEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { AskCommits } from '../../src/engine/ask-commit.js';
import { intakeAsk } from '../../src/engine/ask-intake.js';
import { AskReplica } from '../../src/engine/ask-replica.js';
import { OwnerLease } from '../../src/engine/owner-lease.js';
import { leaseTimes } from '../../src/engine/service-options.js';
import { WriteLedger } from '../../src/engine/write-ledger.js';
import { createMemoryAskStore } from '../../src/stores/memory-store.js';
import { yesNo } from './helpers.js';

const SERVICE = 'service-a';
const leases: OwnerLease[] = [];

afterEach(async () => {
  await Promise.all(leases.splice(0).map((lease) => lease.stop()));
});

async function stored() {
  const store = createMemoryAskStore();
  const clock = new SimulatedClock();
  const reported: unknown[] = [];
  const report = (error: unknown) => reported.push(error);
  const lease = new OwnerLease(store, clock, SERVICE, leaseTimes({}), report);
  leases.push(lease);
  const ledger = new WriteLedger();
  const commits = new AskCommits(store, clock, SERVICE, lease, ledger, report);
  const replica = new AskReplica(store, SERVICE);
  let n = 0;
  const open = intakeAsk(
    yesNo,
    {},
    clock.now(),
    () => `ask-${++n}`,
    false,
    () => undefined,
  );
  const { write, created } = commits.create(open);
  expect(await created).toEqual({ created: true });
  replica.cache(open, write.ask);
  return { store, commits, replica, ledger, open, reported };
}

const cancel = { type: 'cancel', reason: 'user' } as const;

describe('the compare-and-set writes', () => {
  it('return the write the store applied, and leave the cached row to the settle step', async () => {
    const { store, commits, ledger, open } = await stored();
    const result = await commits.write(open, cancel, undefined);
    expect(result?.type).toBe('applied');
    const { write } = result as { type: 'applied'; write: { ask: { version: number } } };
    expect(write.ask.version).toBe(2);
    expect((await store.get(open.id))?.version).toBe(2);
    // Not settled yet: the ask as cached here is the one written over.
    expect(open.version).toBe(1);
    expect(open.state.value).toBe('pending');
    // Until it is, the store's news of that version is this service's own.
    expect(open.writing).toBe(2);
    // Nothing in flight: the write was counted until it landed.
    await expect(ledger.close()).resolves.toBeUndefined();
  });

  it('return the newer row a write lost to, checked, without taking it in', async () => {
    const { commits, replica, open } = await stored();
    // A copy read from the store, as a one-off answer reads it.
    const stale = await replica.find(open.id);
    const won = await commits.write(open, cancel, undefined);
    expect(won?.type).toBe('applied');
    const lost = await commits.write(stale, cancel, undefined);
    expect(lost).toMatchObject({ type: 'lost', current: { askId: open.id, version: 2 } });
    expect(stale.version).toBe(1);
    expect(stale.writing).toBe(0);
  });

  it('return nothing for an event the machine does not take', async () => {
    const { commits, open } = await stored();
    expect(await commits.write(open, { type: 'resume', answers: [] }, undefined)).toBeUndefined();
  });

  it('report a stored version that went back, and refuse to write over it', async () => {
    const { commits, replica, open, reported } = await stored();
    const ahead = await replica.find(open.id);
    ahead.version = 5;
    await expect(commits.write(ahead, cancel, undefined)).rejects.toThrow(
      /went back in the store from version 5 to 1/,
    );
    expect(reported).toHaveLength(1);
  });
});
