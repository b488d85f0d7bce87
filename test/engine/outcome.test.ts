/**
 * `service.outcome(askId)` (issue 37): the final outcome of an ask, whichever service sharing
 * the store settles it; never `deferred`. Unknown ids are refused, an aborted signal stops the
 * wait, a closed service rejects its waiters.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteAskStore } from 'ask-engine/sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createInteractionService,
  createMemoryAskStore,
  createScriptedProvider,
} from '../../src/index.js';
import { manualProvider, tick, yesNo } from './helpers.js';

const yes = [{ questionId: 'q1', response: { kind: 'selection' as const, selections: ['Yes'] } }];

/** Whether `promise` has settled after a few turns of the event loop. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  for (let n = 0; n < 5; n++) await tick();
  return done;
}

describe('service.outcome', () => {
  it('resolves with the final outcome once another service sharing the store settles a deferred ask', async () => {
    const store = createMemoryAskStore();
    const asker = createInteractionService({ store });
    asker.registerProvider(createScriptedProvider([{ defer: 'mail-1' }]));
    const handle = asker.start(yesNo);
    expect(await handle.outcome).toMatchObject({ status: 'deferred' });
    const waiting = asker.outcome(handle.id);
    expect(await settled(waiting)).toBe(false);
    const host = createInteractionService({ store });
    await host.resume('mail-1', yes, { by: { recipient: 'alice' } });
    const outcome = await waiting;
    expect(outcome).toEqual({
      status: 'answered',
      answers: yes,
      answeredBy: { recipient: 'alice' },
    });
    expect(Object.isFrozen(outcome)).toBe(true);
    // Its own settle too, and at once for an ask that has its outcome.
    expect(await host.outcome(handle.id)).toEqual(outcome);
    await Promise.all([asker.close(), host.close()]);
  });

  it('hears its own service settle the ask, on the memory store it made itself', async () => {
    const service = createInteractionService();
    const provider = manualProvider();
    service.registerProvider(provider);
    const handle = service.start(yesNo);
    const waiting = service.outcome(handle.id);
    await tick();
    expect(await settled(waiting)).toBe(false);
    provider.calls[0]!.resolve({ status: 'cancelled', reason: 'user' });
    expect(await waiting).toEqual({ status: 'cancelled', reason: 'user' });
    await service.close();
  });

  it('rejects UNKNOWN_INTERACTION for an id the store does not have, naming it', async () => {
    const service = createInteractionService();
    await expect(service.outcome('no-such-ask')).rejects.toMatchObject({
      code: 'UNKNOWN_INTERACTION',
      message: 'No ask has id "no-such-ask".',
    });
    await expect(service.outcome('')).rejects.toMatchObject({ code: 'UNKNOWN_INTERACTION' });
    await expect(service.outcome('a', { signal: 'soon' as never })).rejects.toThrow(
      'Expected outcome option `signal` to be an AbortSignal, got "soon".',
    );
    await service.close();
  });

  it('rejects with the signal’s reason when it aborts, and the ask goes on', async () => {
    const service = createInteractionService();
    service.registerProvider(manualProvider());
    const handle = service.start(yesNo);
    await handle.stored;
    const controller = new AbortController();
    const waiting = service.outcome(handle.id, { signal: controller.signal });
    const reason = new Error('The caller stopped waiting.');
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    expect((await service.get(handle.id))?.state).toBe('pending');
    await expect(service.outcome(handle.id, { signal: controller.signal })).rejects.toBe(reason);
    await service.close();
  });

  it('rejects its waiters when the service closes', async () => {
    const service = createInteractionService();
    service.registerProvider(manualProvider());
    const handle = service.start(yesNo);
    const waiting = service.outcome(handle.id);
    await service.close();
    await expect(waiting).rejects.toThrow('The interaction service was closed');
  });
});

describe('service.outcome across two processes’ stores over one SQLite file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ask-engine-outcome-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('resolves in one when the other settles the ask', async () => {
    const path = join(dir, 'asks.db');
    const stores = [0, 1].map(() => createSqliteAskStore({ path }, { pollIntervalMs: 10 }));
    const [asker, host] = stores.map((store) => createInteractionService({ store })) as [
      ReturnType<typeof createInteractionService>,
      ReturnType<typeof createInteractionService>,
    ];
    asker.registerProvider(createScriptedProvider([{ defer: 'thread-2' }]));
    const handle = asker.start(yesNo);
    await handle.outcome;
    const waiting = asker.outcome(handle.id);
    await host.answer(handle.id, yes);
    expect(await waiting).toEqual({ status: 'answered', answers: yes });
    await Promise.all([asker.close(), host.close()]);
    for (const store of stores) await store.close();
  });
});
