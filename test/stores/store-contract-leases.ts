/**
 * The store contract's owner leases, registered by store-contract.ts for every store: one
 * lease per owner, renewed, read and released, and `claimDue` leaving the pending asks of an
 * owner whose lease runs to that owner (issue 37).
 */
import { describe, expect, it } from 'vitest';
import { timeoutWrite } from './ask-rows.js';
import type { QueryCaseContext } from './store-contract-queries.js';

const NOW = 1_700_000_100_000;

export function describeOwnerLeases(context: QueryCaseContext): void {
  const { started } = context;
  const claimed = async (now: number) =>
    (await context.store().claimDue(now, 100, (ask) => timeoutWrite(ask, now))).map(
      (write) => write.ask.askId,
    );

  describe('owner leases', () => {
    it('keeps one lease per owner: renewed, read back and released', async () => {
      const store = context.store();
      expect(await store.ownerLeaseUntil('service-a')).toBeUndefined();
      await store.renewOwnerLease('service-a', NOW + 1_000);
      await store.renewOwnerLease('service-b', NOW + 5_000);
      expect(await store.ownerLeaseUntil('service-a')).toBe(NOW + 1_000);
      await store.renewOwnerLease('service-a', NOW + 2_000.5);
      expect(await store.ownerLeaseUntil('service-a')).toBe(NOW + 2_000.5);
      await store.releaseOwnerLease('service-a');
      expect(await store.ownerLeaseUntil('service-a')).toBeUndefined();
      expect(await store.ownerLeaseUntil('service-b')).toBe(NOW + 5_000);
      // Releasing a lease nobody holds is no error: a service closes once, whatever it held.
      await store.releaseOwnerLease('service-c');
    });

    it('refuses an owner that is not a non-empty string and a time that is not one, naming them', async () => {
      const store = context.store();
      await expect(store.renewOwnerLease('', NOW)).rejects.toThrow(/`owner`.*non-empty string/);
      await expect(store.renewOwnerLease('service-a', Number.NaN)).rejects.toThrow(
        /`until`.*got NaN/,
      );
      await expect(store.ownerLeaseUntil(7 as never)).rejects.toThrow(/`owner`/);
    });

    it('leaves a due ask whose owner’s lease runs to its owner, and claims it once the lease has run out', async () => {
      const store = context.store();
      await started({ askId: 'owned', deadlineAt: NOW - 300, owner: 'service-live' });
      await started({ askId: 'orphan', deadlineAt: NOW - 200, owner: 'service-dead' });
      await started({ askId: 'released', deadlineAt: NOW - 150, owner: 'service-closed' });
      await started({ askId: 'never-leased', deadlineAt: NOW - 100, owner: 'service-unknown' });
      await started({ askId: 'no-owner', deadlineAt: NOW - 50 });
      await store.renewOwnerLease('service-live', NOW + 1_000);
      await store.renewOwnerLease('service-dead', NOW - 1);
      await store.renewOwnerLease('service-closed', NOW + 1_000);
      await store.releaseOwnerLease('service-closed');

      expect(await claimed(NOW)).toEqual(['orphan', 'released', 'never-leased', 'no-owner']);
      expect((await store.get('owned'))?.state).toBe('pending');
      // A lease runs until its time, not at it.
      expect(await claimed(NOW + 1_000)).toEqual(['owned']);
    });

    it('reads past asks a live owner holds to reach the due asks after them, up to the limit', async () => {
      const store = context.store();
      for (let n = 0; n < 5; n++) {
        await started({ askId: `owned-${n}`, deadlineAt: NOW - 500 + n, owner: 'service-live' });
      }
      await started({ askId: 'orphan', deadlineAt: NOW - 100, owner: 'service-dead' });
      await store.renewOwnerLease('service-live', NOW + 1_000);
      const writes = await store.claimDue(NOW, 1, (ask) => timeoutWrite(ask, NOW));
      expect(writes.map((write) => write.ask.askId)).toEqual(['orphan']);
    });

    it('sees a lease another store over the same data wrote', async () => {
      if (context.connect === undefined) return;
      const peer = await context.connect();
      await started({ askId: 'owned', deadlineAt: NOW - 300, owner: 'service-peer' });
      await peer.renewOwnerLease('service-peer', NOW + 1_000);
      expect(await context.store().ownerLeaseUntil('service-peer')).toBe(NOW + 1_000);
      expect(await claimed(NOW)).toEqual([]);
      await peer.releaseOwnerLease('service-peer');
      expect(await claimed(NOW)).toEqual(['owned']);
    });
  });
}
