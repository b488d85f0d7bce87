/**
 * The store contract's cases on ids: a purged ask's id is never given to a new ask, and a NUL
 * in anything a store looks up (an id, a key, a filter, a cursor) is refused the same way by
 * every store, before any query. Registered by store-contract.ts for every store (memory,
 * SQLite, PostgreSQL).
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

  describe('text with a NUL (U+0000), which PostgreSQL cannot hold', () => {
    const refusal = (field: string) => ({
      code: 'INVALID_REQUEST',
      data: { field },
      message: expect.stringContaining('U+0000 (NUL)'),
    });

    it('refuses it in every list filter that takes text, naming the filter', async () => {
      await started({ askId: 'kept', key: 'k', sessionId: 's', agent: 'a' });
      for (const field of ['sessionId', 'agent', 'key', 'answeredBy', 'notified'] as const) {
        await expect(context.store().list({ [field]: 'a\u0000b' }), field).rejects.toMatchObject(
          refusal(field),
        );
      }
    });

    it('refuses it in a cursor, whatever its encoding hides', async () => {
      const json = JSON.stringify([T0, 'a\u0000b']);
      const cursor = btoa(json).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
      await expect(context.store().list({}, { cursor })).rejects.toMatchObject({
        code: 'INVALID_REQUEST',
        data: { field: 'cursor' },
      });
    });

    it('refuses it in an ask id, a key or an interaction id it is asked to find', async () => {
      const store = context.store();
      await expect(store.get('a\u0000b')).rejects.toMatchObject(refusal('askId'));
      await expect(store.findByKey('a\u0000b')).rejects.toMatchObject(refusal('key'));
      await expect(store.findByInteractionId('a\u0000b')).rejects.toMatchObject(
        refusal('interactionId'),
      );
      await expect(collect(store.history('a\u0000b'))).rejects.toMatchObject(refusal('askId'));
    });
  });
}
