/**
 * The store contract's purge of asks an owner has not heard settle, registered by
 * store-contract.ts for every store (issue 37, §3): a final ask whose row still names an owner
 * with a live lease is left to that owner until it acknowledges the settle, or its lease runs
 * out; `acknowledgeSettled` clears the name without a transition.
 */
import { describe, expect, it } from 'vitest';
import { answerWrite, collect, timeoutWrite } from './ask-rows.js';
import type { QueryCaseContext } from './store-contract-queries.js';

const T0 = 1_700_000_000_000;
const NOW = T0 + 60_000;

export function describePurgeOfUnheardSettles(context: QueryCaseContext): void {
  const { started, applied } = context;
  /** A final ask settled at `T0 + 1` by another service: its row still names `owner`, if any. */
  const settledElsewhere = async (askId: string, owner?: string) =>
    applied(answerWrite(await started(owner === undefined ? { askId } : { askId, owner })));
  const left = async () =>
    (await context.store().list({}, { limit: 100 })).items.map((ask) => ask.askId).sort();

  describe('purge and owners that have not heard of a settle', () => {
    it('leaves a final ask to its live owner, and deletes those of owners whose lease ran out, or none', async () => {
      const store = context.store();
      await settledElsewhere('heard-by-nobody-yet', 'service-live');
      await settledElsewhere('owner-died', 'service-dead');
      await settledElsewhere('owner-closed', 'service-closed');
      await settledElsewhere('owner-never-leased', 'service-unknown');
      await settledElsewhere('no-owner');
      await store.renewOwnerLease('service-live', NOW + 1_000);
      await store.renewOwnerLease('service-dead', NOW - 1);
      await store.renewOwnerLease('service-closed', NOW + 1_000);
      await store.releaseOwnerLease('service-closed');

      expect(await store.purge(NOW, 100, NOW)).toBe(4);
      expect(await left()).toEqual(['heard-by-nobody-yet']);
      // A lease runs until its time, not at it: then the ask is anyone's to purge.
      expect(await store.purge(NOW, 100, NOW + 1_000)).toBe(1);
      expect(await left()).toEqual([]);
    });

    it('deletes the ask once its owner acknowledged the settle: same version, no event, no news', async () => {
      const store = context.store();
      const settled = await settledElsewhere('answered', 'service-live');
      await store.renewOwnerLease('service-live', NOW + 1_000);
      const events = await collect(store.history('answered'));
      const news: unknown[] = [];
      const unsubscribe = store.subscribe((change) => news.push(change));
      // Another owner's word, and a word for an ask that is gone, change nothing.
      await store.acknowledgeSettled('answered', 'service-other');
      await store.acknowledgeSettled('never-stored', 'service-live');
      expect(await store.purge(NOW, 100, NOW)).toBe(0);

      await store.acknowledgeSettled('answered', 'service-live');
      const { owner: _heard, ...unnamed } = settled;
      expect(await store.get('answered')).toEqual(unnamed);
      expect(await collect(store.history('answered'))).toEqual(events);
      await new Promise((resolve) => setTimeout(resolve, 100));
      unsubscribe();
      expect(news.filter((change) => (change as { type: string }).type === 'changed')).toEqual([]);
      expect(await store.purge(NOW, 100, NOW)).toBe(1);
    });

    it('never clears the owner of an ask that is not final', async () => {
      const store = context.store();
      const pending = await started({ askId: 'pending', owner: 'service-live' });
      await store.acknowledgeSettled('pending', 'service-live');
      expect((await store.get('pending'))?.owner).toBe('service-live');
      expect(pending.owner).toBe('service-live');
    });

    it('reads past the asks a live owner holds to reach older-than-the-cutoff ones after them, up to the limit', async () => {
      const store = context.store();
      for (let n = 0; n < 5; n++) await settledElsewhere(`held-${n}`, 'service-live');
      const orphan = await started({ askId: 'orphan', deadlineAt: T0 + 10, owner: 'service-dead' });
      await applied(timeoutWrite(orphan, T0 + 20));
      await store.renewOwnerLease('service-live', NOW + 1_000);
      expect(await store.purge(NOW, 1, NOW)).toBe(1);
      expect(await left()).toEqual(['held-0', 'held-1', 'held-2', 'held-3', 'held-4']);
    });

    it('sees the lease and the acknowledgement of another store over the same data', async () => {
      if (context.connect === undefined) return;
      const peer = await context.connect();
      await settledElsewhere('answered', 'service-peer');
      await peer.renewOwnerLease('service-peer', NOW + 1_000);
      expect(await context.store().purge(NOW, 100, NOW)).toBe(0);
      await peer.acknowledgeSettled('answered', 'service-peer');
      expect(await context.store().purge(NOW, 100, NOW)).toBe(1);
    });

    it('refuses a `now` that is not a time, naming it', async () => {
      await expect(context.store().purge(NOW, 10, Number.NaN)).rejects.toMatchObject({
        code: 'INVALID_REQUEST',
        data: { field: 'now' },
      });
      await expect(context.store().acknowledgeSettled('answered', '')).rejects.toThrow(/`owner`/);
    });
  });
}
