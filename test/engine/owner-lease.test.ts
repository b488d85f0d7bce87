/**
 * Owner leases (issue 37): a service's asks are its own while its lease runs. Once it has run
 * out (the process died), a keyed start or a restore in another service takes the ask over and
 * delivers it, audited; while it runs, a keyed start attaches and a restore says why it cannot.
 * Clocks stand for processes: a service whose clock stands still has stopped renewing in the
 * eyes of one whose clock has moved past its lease.
 */
import { describe, expect, it } from 'vitest';
import {
  type AskAuditEvent,
  createInteractionService,
  createMemoryAskStore,
} from '../../src/index.js';
import { CountingClock, manualProvider, tick, yesNo } from './helpers.js';

const yes = [{ questionId: 'q1', response: { kind: 'selection' as const, selections: ['Yes'] } }];

async function historyOf(
  service: { history(id: string): AsyncIterable<AskAuditEvent> },
  id: string,
): Promise<AskAuditEvent[]> {
  const events: AskAuditEvent[] = [];
  for await (const event of service.history(id)) events.push(event);
  return events;
}

/** A clock at `at` (ms). */
function clockAt(at: number): CountingClock {
  const clock = new CountingClock();
  clock.set(at);
  return clock;
}

/** A service on `store` at `clock` with a provider answered by hand. */
function host(
  store: ReturnType<typeof createMemoryAskStore>,
  clock: CountingClock,
  leaseMs = 1_000,
) {
  const service = createInteractionService({
    store,
    clock,
    leaseMs,
    sweepIntervalMs: Number.POSITIVE_INFINITY,
  });
  const provider = manualProvider();
  service.registerProvider(provider);
  return { service, provider };
}

describe('a keyed start of an ask another service owns', () => {
  it('takes it over and asks its own provider once the owner’s lease has run out, audited', async () => {
    const store = createMemoryAskStore();
    const dead = host(store, clockAt(0));
    const first = dead.service.start(yesNo, { key: 'call-1', timeoutMs: 60_000 });
    await first.stored;
    await tick();
    expect(dead.provider.calls).toHaveLength(1);

    // The first process is gone: at 5,000 its lease (to 1,000) has run out.
    const next = host(store, clockAt(5_000));
    const handle = next.service.start(yesNo, { key: 'call-1', timeoutMs: 60_000 });
    expect(handle.id).toBe(first.id);
    await handle.stored;
    await tick();
    expect(next.provider.calls).toHaveLength(1);
    expect(next.provider.calls[0]!.ctx.askId).toBe(first.id);
    // Its deadline is the ask's own, not a new one.
    expect(next.provider.calls[0]!.ctx.deadlineAt).toBe(60_000);
    const history = await historyOf(next.service, handle.id);
    expect(history.map((event) => event.type)).toEqual(['start', 'restore']);
    expect(history[1]).toMatchObject({ at: 5_000, from: 'pending', to: 'pending' });
    expect((await store.get(handle.id))?.owner).toBe(next.service.id);
    // The service it was taken from stops delivering it.
    await tick();
    expect(dead.provider.calls[0]!.ctx.signal.aborted).toBe(true);

    next.provider.calls[0]!.resolve({ status: 'answered', answers: yes });
    expect(await handle.outcome).toEqual({ status: 'answered', answers: yes });
    await Promise.all([dead.service.close(), next.service.close()]);
  });

  it('attaches to it while the owner’s lease runs, and its provider is not asked', async () => {
    const store = createMemoryAskStore();
    const clock = clockAt(0);
    const owner = host(store, clock);
    const first = owner.service.start(yesNo, { key: 'call-2' });
    await first.stored;
    const waiter = host(store, clock);
    const handle = waiter.service.start(yesNo, { key: 'call-2' });
    await handle.stored;
    await tick();
    expect(waiter.provider.calls).toHaveLength(0);
    expect((await historyOf(waiter.service, handle.id)).map((event) => event.type)).toEqual([
      'start',
    ]);
    owner.provider.calls[0]!.resolve({ status: 'answered', answers: yes });
    expect(await handle.outcome).toEqual({ status: 'answered', answers: yes });
    await Promise.all([owner.service.close(), waiter.service.close()]);
  });

  it('takes it over at once once the owner closed, which released its lease', async () => {
    const store = createMemoryAskStore();
    const clock = clockAt(0);
    const owner = host(store, clock, 60_000);
    const first = owner.service.start(yesNo, { key: 'call-3' });
    await first.stored;
    await owner.service.close();
    const next = host(store, clock, 60_000);
    const handle = next.service.start(yesNo, { key: 'call-3' });
    await handle.stored;
    await tick();
    expect(next.provider.calls).toHaveLength(1);
    await next.service.close();
  });

  it('leaves a deferred ask deferred: nobody delivers it, and the start hands out its deferral', async () => {
    const store = createMemoryAskStore();
    const owner = host(store, clockAt(0));
    const first = owner.service.start(yesNo, { key: 'call-4' });
    await tick();
    owner.provider.calls[0]!.resolve({ status: 'deferred', interactionId: 'thread-4' });
    await first.outcome;
    const next = host(store, clockAt(5_000));
    const handle = next.service.start(yesNo, { key: 'call-4' });
    expect(await handle.outcome).toMatchObject({ status: 'deferred', interactionId: 'thread-4' });
    expect(next.provider.calls).toHaveLength(0);
    expect((await historyOf(next.service, handle.id)).map((event) => event.type)).toEqual([
      'start',
      'provider.deferred',
    ]);
    await Promise.all([owner.service.close(), next.service.close()]);
  });
});

describe('restore', () => {
  it('says why it cannot take over an ask whose owner is live: who, and until when', async () => {
    const store = createMemoryAskStore();
    const clock = clockAt(0);
    const owner = host(store, clock);
    const first = owner.service.start(yesNo, { timeoutMs: 60_000 });
    await first.stored;
    const snapshot = owner.service.getPersistedSnapshot(first.id)!;
    const other = host(store, clock);
    const refused = other.service.restore(snapshot);
    await expect(refused).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      data: { askId: first.id, owner: owner.service.id, leaseUntil: 1_000 },
    });
    await expect(refused).rejects.toThrow(
      `delivered by service ${owner.service.id}, whose lease runs until 1970-01-01T00:00:01.000Z`,
    );
    await tick();
    expect(other.provider.calls).toHaveLength(0);
    expect(owner.provider.calls[0]!.ctx.signal.aborted).toBe(false);
    expect((await store.get(first.id))?.version).toBe(1);
    await Promise.all([owner.service.close(), other.service.close()]);
  });

  it('takes over an ask the service waits on (a keyed start attached to it) once the owner’s lease ran out', async () => {
    const store = createMemoryAskStore();
    const owner = host(store, clockAt(0));
    await owner.service.start(yesNo, { key: 'call-5' }).stored;
    // Attached while the owner was live.
    const clock = clockAt(500);
    const waiter = host(store, clock);
    const handle = waiter.service.start(yesNo, { key: 'call-5' });
    await handle.stored;
    await tick();
    expect(waiter.provider.calls).toHaveLength(0);
    const snapshot = waiter.service.getPersistedSnapshot(handle.id)!;
    await expect(waiter.service.restore(snapshot)).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      data: { owner: owner.service.id },
    });
    // The owner stopped renewing; later, the same restore takes the ask over.
    clock.set(5_000);
    const restored = await waiter.service.restore(snapshot);
    expect(restored.id).toBe(handle.id);
    await tick();
    expect(waiter.provider.calls).toHaveLength(1);
    expect((await historyOf(waiter.service, handle.id)).map((event) => event.type)).toEqual([
      'start',
      'restore',
    ]);
    waiter.provider.calls[0]!.resolve({ status: 'answered', answers: yes });
    // Both handles are the one ask.
    expect(await handle.outcome).toEqual({ status: 'answered', answers: yes });
    expect(await restored.outcome).toEqual({ status: 'answered', answers: yes });
    await Promise.all([owner.service.close(), waiter.service.close()]);
  });

  it('returns the ask this service delivers already, writing nothing', async () => {
    const store = createMemoryAskStore();
    const owner = host(store, clockAt(0));
    const handle = owner.service.start(yesNo);
    await handle.stored;
    const restored = await owner.service.restore(owner.service.getPersistedSnapshot(handle.id)!);
    expect(restored.id).toBe(handle.id);
    expect((await store.get(handle.id))?.version).toBe(1);
    await owner.service.close();
  });
});

describe('the sweeper', () => {
  it('times out a pending ask whose owner’s lease ran out, and leaves one whose owner is live to it', async () => {
    const store = createMemoryAskStore();
    const dead = host(store, clockAt(0));
    const orphan = dead.service.start(yesNo, { timeoutMs: 2_000 });
    await orphan.stored;
    // Live at 5,000: its lease runs to 60,000 (its own deadline timer is on its own clock).
    const live = host(store, clockAt(0), 60_000);
    const owned = live.service.start(yesNo, { timeoutMs: 1_000 });
    await owned.stored;
    const sweeper = createInteractionService({ store, clock: clockAt(5_000), sweepIntervalMs: 1 });
    await expect.poll(async () => (await store.get(orphan.id))?.state).toBe('timedOut');
    // The claim that timed the orphan out read past the owned ask (due earlier) and left it.
    expect((await store.get(owned.id))?.state).toBe('pending');
    expect(live.provider.calls[0]!.ctx.signal.aborted).toBe(false);
    await Promise.all([dead.service.close(), live.service.close(), sweeper.close()]);
  });
});

describe('lease options', () => {
  it('are checked up front, naming the option and the value', () => {
    expect(() => createInteractionService({ leaseMs: 0 })).toThrow(
      'Expected `leaseMs` to be a number of milliseconds > 0, got 0.',
    );
    expect(() => createInteractionService({ leaseMs: 1_000, leaseRenewMs: 1_000 })).toThrow(
      /`leaseRenewMs`.*below `leaseMs` \(1000\).*got 1000/,
    );
    expect(() => createInteractionService({ leaseRenewMs: '5s' as never })).toThrow(
      /`leaseRenewMs`.*got "5s"/,
    );
  });

  it('renews the lease on its interval with the clock’s time, and releases it on close', async () => {
    const store = createMemoryAskStore();
    const clock = clockAt(0);
    const service = createInteractionService({ store, clock, leaseMs: 1_000, leaseRenewMs: 5 });
    await expect.poll(() => store.ownerLeaseUntil(service.id)).toBe(1_000);
    clock.set(700);
    await expect.poll(() => store.ownerLeaseUntil(service.id)).toBe(1_700);
    await service.close();
    expect(await store.ownerLeaseUntil(service.id)).toBeUndefined();
  });
});

describe('a service waiting on an ask whose owner then dies', () => {
  it('takes it over and asks its own provider once the owner’s lease runs out, not at the deadline', async () => {
    const store = createMemoryAskStore();
    const owner = host(store, clockAt(0));
    const first = owner.service.start(yesNo, { key: 'call-6', timeoutMs: 60_000 });
    await first.stored;
    // Restarted at 500, while the dead owner's lease (to 1,000) still runs: it attaches.
    const clock = clockAt(500);
    const next = host(store, clock);
    const handle = next.service.start(yesNo, { key: 'call-6', timeoutMs: 60_000 });
    await handle.stored;
    await tick();
    expect(next.provider.calls).toHaveLength(0);
    clock.increment(499);
    await tick();
    expect(next.provider.calls).toHaveLength(0);
    clock.increment(1);
    await expect.poll(() => next.provider.calls.length).toBe(1);
    expect((await historyOf(next.service, handle.id)).map((event) => event.type)).toEqual([
      'start',
      'restore',
    ]);
    next.provider.calls[0]!.resolve({ status: 'answered', answers: yes });
    expect(await handle.outcome).toEqual({ status: 'answered', answers: yes });
    await Promise.all([owner.service.close(), next.service.close()]);
  });

  it('keeps waiting while the owner renews its lease', async () => {
    const store = createMemoryAskStore();
    const clock = clockAt(0);
    const owner = createInteractionService({ store, clock, leaseMs: 1_000, leaseRenewMs: 5 });
    const ownerProvider = manualProvider();
    owner.registerProvider(ownerProvider);
    await owner.start(yesNo, { key: 'call-7' }).stored;
    const next = host(store, clock);
    const handle = next.service.start(yesNo, { key: 'call-7' });
    await handle.stored;
    clock.set(900);
    // The owner renews on its interval: its lease now runs to 1,900.
    await expect.poll(() => store.ownerLeaseUntil(owner.id)).toBe(1_900);
    clock.set(1_000);
    await tick();
    await tick();
    expect(next.provider.calls).toHaveLength(0);
    ownerProvider.calls[0]!.resolve({ status: 'answered', answers: yes });
    expect(await handle.outcome).toEqual({ status: 'answered', answers: yes });
    await Promise.all([owner.close(), next.service.close()]);
  });
});
