/**
 * The store contract's `list` and `purge` cases, registered by store-contract.ts for every store
 * (memory, SQLite, PostgreSQL).
 */
import type { AskStore, StoredAsk } from 'ask-engine';
import { describe, expect, it } from 'vitest';
import {
  type AskWrite,
  answerWrite,
  collect,
  deferWrite,
  lateAnswerEvent,
  type RowOptions,
  startWrite,
  timeoutWrite,
} from './ask-rows.js';

export interface QueryCaseContext {
  store(): AskStore;
  started(options: RowOptions): Promise<StoredAsk>;
  applied(write: AskWrite): Promise<StoredAsk>;
  /** Another store over the same data, when the target has one. */
  connect: (() => Promise<AskStore>) | undefined;
}

const T0 = 1_700_000_000_000;
const ids = (asks: readonly { askId: string }[]) => asks.map((ask) => ask.askId);

/** A stored row as `list` returns it: without its snapshot, with its session and agent. */
function listed(row: StoredAsk | undefined): unknown {
  if (row === undefined) return undefined;
  const { snapshot, ...rest } = row;
  const { sessionId, agent } = snapshot.context as { sessionId?: string; agent?: string };
  return {
    ...rest,
    ...(sessionId === undefined ? {} : { sessionId }),
    ...(agent === undefined ? {} : { agent }),
  };
}

/** Every page of `store.list(filter)`, `limit` at a time, and the ids in the order listed. */
async function everyPage(
  store: AskStore,
  filter: Parameters<AskStore['list']>[0],
  limit: number,
  between?: (page: number) => Promise<void>,
): Promise<string[]> {
  const listed: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const result = await store.list(filter, cursor === undefined ? { limit } : { limit, cursor });
    expect(result.items.length).toBeLessThanOrEqual(limit);
    listed.push(...ids(result.items));
    if (result.cursor === undefined) return listed;
    cursor = result.cursor;
    await between?.(page);
  }
  throw new Error('the list never ended');
}

export function describeListAndPurge(context: QueryCaseContext): void {
  const { started, applied } = context;

  describe('list', () => {
    it('lists newest first, a page at a time, with a cursor until the last page', async () => {
      for (let n = 0; n < 7; n++) await started({ askId: `ask-${n}`, createdAt: T0 + n * 1_000 });
      const first = await context.store().list({}, { limit: 3 });
      expect(ids(first.items)).toEqual(['ask-6', 'ask-5', 'ask-4']);
      expect(first.items[0]).toEqual(listed(await context.store().get('ask-6')));
      expect(typeof first.cursor).toBe('string');
      const second = await context.store().list(undefined, { limit: 3, cursor: first.cursor });
      expect(ids(second.items)).toEqual(['ask-3', 'ask-2', 'ask-1']);
      const last = await context.store().list({}, { limit: 3, cursor: second.cursor });
      expect(ids(last.items)).toEqual(['ask-0']);
      expect(last.cursor).toBeUndefined();
      // A page that ends exactly at the last ask has no cursor either.
      const exact = await context.store().list({}, { limit: 7 });
      expect(exact.items).toHaveLength(7);
      expect(exact.cursor).toBeUndefined();
      expect(await context.store().list()).toEqual({ items: exact.items });
    });

    it('filters by state, session, agent, key and time ranges', async () => {
      const at = (n: number) => T0 + n * 1_000;
      await started({ askId: 'p1', createdAt: at(1), sessionId: 's-a', agent: 'deployer' });
      await started({ askId: 'p2', createdAt: at(2), sessionId: 's-b', agent: 'reviewer' });
      const d = await started({ askId: 'd3', createdAt: at(3), sessionId: 's-a', key: 'k-3' });
      await applied({ ...deferWrite(d, 'thread-3') });
      const a = await started({ askId: 'a4', createdAt: at(4), agent: 'deployer' });
      await applied(answerWrite(a)); // updated at at(4) + 1
      const t = await started({ askId: 't5', createdAt: at(5), sessionId: 's-a' });
      await applied(timeoutWrite(t, at(9)));
      const list = async (filter: Parameters<AskStore['list']>[0]) =>
        ids((await context.store().list(filter)).items);

      expect(await list({ state: 'pending' })).toEqual(['p2', 'p1']);
      expect(await list({ state: ['deferred', 'timedOut', 'answered'] })).toEqual([
        't5',
        'a4',
        'd3',
      ]);
      expect(await list({ sessionId: 's-a' })).toEqual(['t5', 'd3', 'p1']);
      expect(await list({ agent: 'deployer' })).toEqual(['a4', 'p1']);
      expect(await list({ key: 'k-3' })).toEqual(['d3']);
      expect(await list({ key: 'no-such-key' })).toEqual([]);
      expect(await list({ created: { from: at(2), to: at(4) } })).toEqual(['d3', 'p2']);
      expect(await list({ created: { from: at(4) } })).toEqual(['t5', 'a4']);
      expect(await list({ updated: { from: at(4) } })).toEqual(['t5', 'a4']);
      expect(await list({ updated: { to: at(3) } })).toEqual(['p2', 'p1']);
      // Asks written again (d3) and asks never written since their creation (p1, p2), together
      // in list order, with states, and a page at a time.
      expect(
        await list({ updated: { from: at(1), to: at(5) }, state: ['pending', 'deferred'] }),
      ).toEqual(['d3', 'p2', 'p1']);
      expect(await everyPage(context.store(), { updated: { from: at(1) } }, 1)).toEqual([
        't5',
        'a4',
        'd3',
        'p2',
        'p1',
      ]);
      expect(await list({ sessionId: 's-a', state: ['pending', 'timedOut'] })).toEqual([
        't5',
        'p1',
      ]);
      expect(await list({ agent: 'deployer', state: 'answered', sessionId: 's-a' })).toEqual([]);
      // Items carry the session and agent, read from the row's own columns where it has them.
      const [p1] = (await context.store().list({ sessionId: 's-a', state: 'pending' })).items;
      expect(p1).toEqual(listed(await context.store().get('p1')));
      expect(p1).toMatchObject({ sessionId: 's-a', agent: 'deployer' });
    });

    it('pages through asks created at the same time, each once', async () => {
      for (let n = 0; n < 9; n++) await started({ askId: `same-${n}`, createdAt: T0 });
      const listed = await everyPage(context.store(), {}, 2);
      expect(listed).toHaveLength(9);
      expect(new Set(listed)).toEqual(new Set(Array.from({ length: 9 }, (_, n) => `same-${n}`)));
    });

    it('lists each ask once while asks are created and settled between pages', async () => {
      const writer = context.connect === undefined ? context.store() : await context.connect();
      for (let n = 0; n < 20; n++) {
        await started({ askId: `old-${n}`, createdAt: T0 + Math.floor(n / 3) * 1_000 });
      }
      let created = 0;
      const listed = await everyPage(context.store(), {}, 4, async (page) => {
        // Newer asks arrive, and listed and unlisted asks change, while the list is read.
        for (let n = 0; n < 3; n++) {
          await writer.create(startWrite({ askId: `new-${created++}`, createdAt: T0 + 60_000 }));
        }
        const settled = await context.store().get(`old-${(page * 7) % 20}`);
        if (settled?.state === 'pending') {
          const write = answerWrite(settled);
          expect(await writer.update(write, settled.version)).toEqual({ ok: true });
        }
      });
      expect(new Set(listed).size).toBe(listed.length);
      expect(listed.filter((id) => id.startsWith('old-')).sort()).toEqual(
        Array.from({ length: 20 }, (_, n) => `old-${n}`).sort(),
      );
      expect(listed.some((id) => id.startsWith('new-'))).toBe(false);
    });

    it('refuses a bad cursor, limit or filter with an error naming it', async () => {
      await started({ askId: 'ask-1' });
      const store = context.store();
      const refused = (promise: Promise<unknown>, field: string, message: RegExp) =>
        expect(promise).rejects.toMatchObject({
          code: 'INVALID_REQUEST',
          data: { field },
          message,
        });
      await refused(
        store.list({}, { cursor: 'not a cursor' }),
        'cursor',
        /Expected list page `cursor` to be the `cursor` of a page this store listed/,
      );
      await refused(store.list({}, { cursor: 'eyJ4IjoxfQ' }), 'cursor', /`cursor`/);
      await refused(store.list({}, { cursor: '' }), 'cursor', /`cursor`/);
      await refused(store.list({}, { limit: 0 }), 'limit', /`limit` to be an integer from 1/);
      await refused(store.list({}, { limit: 2.5 }), 'limit', /got 2.5/);
      await refused(
        store.list({}, { limit: 1_001 }),
        'limit',
        /`limit` to be at most 1000 \(take the next page with the cursor\), got 1001/,
      );
      await refused(store.list({ state: 'done' as never }), 'state', /state of the ask machine/);
      await refused(store.list({ state: [] }), 'state', /non-empty array/);
      await refused(store.list({ sessionId: 7 as never }), 'sessionId', /got 7/);
      await refused(
        store.list({ created: { from: 5, to: 1 } }),
        'created',
        /`from` \(5\) at or before `to` \(1\)/,
      );
      await refused(store.list({ updated: { since: 1 } as never }), 'updated.since', /only/);
      await refused(
        store.list({ answered: 'x' } as never),
        'answered',
        /Unknown list filter `answered`/,
      );
    });
  });

  describe('purge', () => {
    it('deletes old final asks with their history, never pending or deferred ones', async () => {
      const old = T0;
      const cutoff = T0 + 10_000;
      await started({ askId: 'pending-old', createdAt: old });
      const deferred = await started({ askId: 'deferred-old', createdAt: old });
      await applied(deferWrite(deferred, 'thread-old'));
      const answered = await started({ askId: 'answered-old', createdAt: old, key: 'k-old' });
      await applied(answerWrite(answered));
      await context.store().append(lateAnswerEvent('answered-old', old + 5));
      const resumed = await started({ askId: 'resumed-old', createdAt: old });
      await applied(answerWrite(await applied(deferWrite(resumed, 'thread-resumed'))));
      const timedOut = await started({ askId: 'timed-out-old', createdAt: old });
      await applied(timeoutWrite(timedOut, old + 9_000));
      const recent = await started({ askId: 'answered-recent', createdAt: cutoff });
      await applied(answerWrite(recent));
      expect(await collect(context.store().history('answered-old'))).toHaveLength(3);

      expect(await context.store().purge(cutoff, 100, cutoff)).toBe(3);
      for (const gone of ['answered-old', 'resumed-old', 'timed-out-old']) {
        expect(await context.store().get(gone), gone).toBeUndefined();
        expect(await collect(context.store().history(gone)), gone).toEqual([]);
      }
      expect(await context.store().findByKey('k-old')).toBeUndefined();
      expect(await context.store().findByInteractionId('thread-resumed')).toBeUndefined();
      const kept = ids((await context.store().list()).items).sort();
      expect(kept).toEqual(['answered-recent', 'deferred-old', 'pending-old']);
      expect(await collect(context.store().history('deferred-old'))).toHaveLength(2);
      expect(await context.store().findByInteractionId('thread-old')).toMatchObject({
        askId: 'deferred-old',
      });
      // Nothing old and final is left.
      expect(await context.store().purge(cutoff, 100, cutoff)).toBe(0);
    });

    it('deletes at most `limit` asks per call, oldest first', async () => {
      for (let n = 0; n < 5; n++) {
        const ask = await started({ askId: `done-${n}`, createdAt: T0 + n });
        await applied(answerWrite(ask));
      }
      expect(await context.store().purge(T0 + 100, 2, T0 + 100)).toBe(2);
      expect(ids((await context.store().list()).items)).toEqual(['done-4', 'done-3', 'done-2']);
      expect(await context.store().purge(T0 + 100, 2, T0 + 100)).toBe(2);
      expect(await context.store().purge(T0 + 100, 2, T0 + 100)).toBe(1);
      expect(await context.store().purge(T0 + 100, 2, T0 + 100)).toBe(0);
    });

    it('deletes by the time each ask was last written, whatever order they settled in', async () => {
      // Settled in the order late, early (another service's clock runs behind).
      const late = await started({ askId: 'stamped-late', createdAt: T0 + 50 });
      await applied(answerWrite(late));
      const early = await started({ askId: 'stamped-early', createdAt: T0 });
      await applied(answerWrite(early));
      const cutoff = (await context.store().get('stamped-late'))?.updatedAt as number;
      expect((await context.store().get('stamped-early'))?.updatedAt).toBeLessThan(cutoff);
      expect(await context.store().purge(cutoff, 1, cutoff)).toBe(1);
      expect(await context.store().get('stamped-early')).toBeUndefined();
      expect(await context.store().get('stamped-late')).toBeDefined();
      expect(await context.store().purge(cutoff, 10, cutoff)).toBe(0);
    });

    it('refuses a bad time or limit', async () => {
      await expect(context.store().purge(Number.NaN, 10, T0)).rejects.toMatchObject({
        code: 'INVALID_REQUEST',
        message: 'Expected purge `finalBefore` to be a time in ms since the epoch, got NaN.',
      });
      await expect(context.store().purge(T0, 0, T0)).rejects.toMatchObject({
        message: 'Expected purge `limit` to be an integer from 1 and up, got 0.',
      });
    });
  });
}
