/**
 * The store contract's cases on ask ids: a purged ask's id is never given to a new ask.
 * Registered by store-contract.ts for every store (memory, SQLite, PostgreSQL).
 */
import type { AskStore, StoredAsk } from 'ask-engine';
import { describe, expect, it } from 'vitest';
import { type AskWrite, answerWrite, collect, type RowOptions, startWrite } from './ask-rows.js';

export interface IdCaseContext {
  store(): AskStore;
  started(options: RowOptions): Promise<StoredAsk>;
  applied(write: AskWrite): Promise<StoredAsk>;
  /** Another store over the same data, when the target has one. */
  connect: (() => Promise<AskStore>) | undefined;
}

const T0 = 1_700_000_000_000;

export function describeAskIds(context: IdCaseContext): void {
  const { started, applied } = context;

  /** Starts `askId` (under `key`), answers it, and purges it. */
  const purged = async (askId: string, key?: string) => {
    const ask = await started({ askId, createdAt: T0, ...(key === undefined ? {} : { key }) });
    await applied(answerWrite(ask));
    expect(await context.store().purge(T0 + 60_000, 10, T0 + 60_000)).toBe(1);
  };

  describe('ids of purged asks', () => {
    it('never gives a purged ask id to a new ask, under its old key or any other', async () => {
      await purged('gone', 'k-gone');
      for (const key of ['k-gone', 'k-other', undefined]) {
        const again = startWrite({
          askId: 'gone',
          createdAt: T0 + 120_000,
          ...(key === undefined ? {} : { key }),
        });
        expect(await context.store().create(again), String(key)).toEqual({
          created: false,
          retired: true,
        });
      }
      expect(await context.store().get('gone')).toBeUndefined();
      expect(await context.store().findByKey('k-gone')).toBeUndefined();
      expect(await collect(context.store().history('gone'))).toEqual([]);
      expect((await context.store().list()).items).toEqual([]);
    });

    it('keeps a purged id retired after later purges, and lets other ids be created', async () => {
      await purged('first');
      const second = await started({ askId: 'second', createdAt: T0 + 1 });
      await applied(answerWrite(second));
      expect(await context.store().purge(T0 + 60_000, 10, T0 + 60_000)).toBe(1);
      // Tombstones are not asks: a purge finds nothing more to delete.
      expect(await context.store().purge(T0 + 60_000, 10, T0 + 60_000)).toBe(0);
      for (const askId of ['first', 'second']) {
        expect(await context.store().create(startWrite({ askId })), askId).toEqual({
          created: false,
          retired: true,
        });
      }
      expect(await context.store().create(startWrite({ askId: 'third', key: 'k' }))).toEqual({
        created: true,
      });
    });

    it('tells another store on the same data that a purged id is retired', async () => {
      if (context.connect === undefined) return;
      await purged('gone-elsewhere', 'k-elsewhere');
      const peer = await context.connect();
      expect(
        await peer.create(startWrite({ askId: 'gone-elsewhere', key: 'k-elsewhere' })),
      ).toEqual({ created: false, retired: true });
    });
  });
}
