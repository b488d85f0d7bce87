/**
 * The store contract's work claims, registered by store-contract.ts for every store: one
 * holder at a time per key, however many claim at once (on one store or on two over the same
 * data); a lease that ran out is claimable again and its old holder can no longer renew,
 * finish or release it; a finished claim is never given again; a purge deletes the claims of
 * the asks it deletes (issue 39).
 */
import { describe, expect, it } from 'vitest';
import { answerWrite } from './ask-rows.js';
import type { QueryCaseContext } from './store-contract-queries.js';

const NOW = 1_700_000_200_000;
const KEY = 'openai-agents.round:abc';

export function describeWorkClaims(context: QueryCaseContext): void {
  const { started, applied } = context;
  const claim = (holder: string, until: number, now = NOW, askId?: string) =>
    context
      .store()
      .claimWork({ key: KEY, holder, until, ...(askId === undefined ? {} : { askId }) }, now);

  describe('work claims', () => {
    it('gives a key to one of many claimers at once; the others are told who holds it until when', async () => {
      const peer = context.connect === undefined ? context.store() : await context.connect();
      const holders = Array.from({ length: 8 }, (_, index) => `host-${index}`);
      const results = await Promise.all(
        holders.map((holder, index) =>
          (index % 2 === 0 ? context.store() : peer).claimWork(
            { key: KEY, holder, until: NOW + 1_000 + index },
            NOW,
          ),
        ),
      );
      const winners = results.filter((result) => result.status === 'claimed');
      expect(winners).toHaveLength(1);
      const [winner] = winners;
      expect(holders).toContain(winner?.holder);
      for (const result of results) {
        if (result === winner) continue;
        expect(result).toEqual({ ...winner, status: 'held' });
      }
    });

    it('is claimable again once its lease ran out, and the old holder can then neither renew, finish nor release it', async () => {
      const store = context.store();
      expect(await claim('host-a', NOW + 1_000)).toEqual({
        status: 'claimed',
        key: KEY,
        holder: 'host-a',
        until: NOW + 1_000,
      });
      // Held while the lease runs: a lease runs until its time, not at it.
      expect(await claim('host-b', NOW + 5_000, NOW + 999)).toMatchObject({
        status: 'held',
        holder: 'host-a',
      });
      expect(await claim('host-b', NOW + 5_000, NOW + 1_000)).toMatchObject({
        status: 'claimed',
        holder: 'host-b',
        until: NOW + 5_000,
      });
      expect(await store.renewWork(KEY, 'host-a', NOW + 9_000, NOW + 1_000)).toBe(false);
      expect(await store.finishWork(KEY, 'host-a', NOW + 1_000)).toBe(false);
      expect(await store.releaseWork(KEY, 'host-a')).toBe(false);
      expect(await claim('host-c', NOW + 9_000, NOW + 4_999)).toMatchObject({
        status: 'held',
        holder: 'host-b',
        until: NOW + 5_000,
      });
    });

    it('extends a lease its holder renews while it runs, never one that ran out', async () => {
      const store = context.store();
      await claim('host-a', NOW + 1_000);
      expect(await store.renewWork(KEY, 'host-a', NOW + 3_000, NOW + 500)).toBe(true);
      expect(await claim('host-b', NOW + 9_000, NOW + 2_000)).toMatchObject({
        status: 'held',
        until: NOW + 3_000,
      });
      // A renewal never shortens the lease.
      expect(await store.renewWork(KEY, 'host-a', NOW + 2_500, NOW + 2_000)).toBe(true);
      expect(await claim('host-b', NOW + 9_000, NOW + 2_900)).toMatchObject({ status: 'held' });
      // Run out, even with nobody else claiming it: the work it guarded had to stop.
      expect(await store.renewWork(KEY, 'host-a', NOW + 9_000, NOW + 3_000)).toBe(false);
    });

    it('never gives a finished claim again, even long after its lease', async () => {
      const store = context.store();
      await claim('host-a', NOW + 1_000);
      expect(await store.finishWork(KEY, 'host-a', NOW + 400)).toBe(true);
      expect(await claim('host-b', NOW + 99_000, NOW + 50_000)).toEqual({
        status: 'done',
        key: KEY,
        holder: 'host-a',
        at: NOW + 400,
      });
      expect(await claim('host-a', NOW + 99_000, NOW + 50_000)).toMatchObject({ status: 'done' });
      expect(await store.finishWork(KEY, 'host-a', NOW + 500)).toBe(false);
      expect(await store.releaseWork(KEY, 'host-a')).toBe(false);
      expect(await store.renewWork(KEY, 'host-a', NOW + 2_000, NOW + 500)).toBe(false);
    });

    it('is free at once when its holder releases it', async () => {
      const store = context.store();
      await claim('host-a', NOW + 1_000);
      expect(await store.releaseWork(KEY, 'host-b')).toBe(false);
      expect(await store.releaseWork(KEY, 'host-a')).toBe(true);
      expect(await claim('host-b', NOW + 2_000, NOW + 1)).toMatchObject({
        status: 'claimed',
        holder: 'host-b',
      });
    });

    it('keeps a claim per key, apart from every other key', async () => {
      const store = context.store();
      await claim('host-a', NOW + 1_000);
      expect(
        await store.claimWork({ key: `${KEY}-2`, holder: 'host-b', until: NOW + 1_000 }, NOW),
      ).toMatchObject({ status: 'claimed', holder: 'host-b' });
      expect(await store.finishWork(`${KEY}-2`, 'host-b', NOW)).toBe(true);
      expect(await claim('host-c', NOW + 1_000)).toMatchObject({
        status: 'held',
        holder: 'host-a',
      });
    });

    it('deletes the claims of the asks a purge deletes, and only theirs', async () => {
      const store = context.store();
      await applied(answerWrite(await started({ askId: 'purged-ask' })));
      await started({ askId: 'open-ask' });
      await claim('host-a', NOW + 1_000, NOW, 'purged-ask');
      expect(await store.finishWork(KEY, 'host-a', NOW)).toBe(true);
      await store.claimWork(
        { key: 'other', holder: 'host-a', until: NOW + 1_000, askId: 'open-ask' },
        NOW,
      );
      expect(await store.finishWork('other', 'host-a', NOW)).toBe(true);

      expect(await store.purge(NOW, 100, NOW)).toBe(1);
      // The ask is gone (its id retired, so nothing can resume it): its claim went with it.
      expect(await claim('host-b', NOW + 1_000)).toMatchObject({ status: 'claimed' });
      expect(
        await store.claimWork({ key: 'other', holder: 'host-b', until: NOW + 1_000 }, NOW),
      ).toMatchObject({ status: 'done', holder: 'host-a' });
    });

    it('refuses a claim without a key, holder or time, naming what is wrong', async () => {
      const store = context.store();
      await expect(store.claimWork({ key: '', holder: 'h', until: NOW }, NOW)).rejects.toThrow(
        /`key`.*non-empty string, got ""/,
      );
      await expect(
        store.claimWork({ key: KEY, holder: 7 as never, until: NOW }, NOW),
      ).rejects.toThrow(/`holder`.*got 7/);
      await expect(
        store.claimWork({ key: KEY, holder: 'h', until: Number.NaN }, NOW),
      ).rejects.toThrow(/`until`.*got NaN/);
      await expect(store.renewWork(KEY, 'h', NOW, Number.POSITIVE_INFINITY)).rejects.toThrow(
        /`now`/,
      );
      await expect(
        store.claimWork({ key: 'a\u0000b', holder: 'h', until: NOW }, NOW),
      ).rejects.toThrow(/U\+0000/);
    });
  });
}
