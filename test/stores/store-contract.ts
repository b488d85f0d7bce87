/**
 * The shared contract suite every `AskStore` passes (memory, SQLite, PostgreSQL).
 *
 * Usage, from a `*.test.ts` file:
 *
 * ```ts
 * import { describeAskStoreContract } from './store-contract.js';
 *
 * describeAskStoreContract('the SQLite store', {
 *   // Called before each test: a store over EMPTY data (a new file, a fresh schema, truncated tables).
 *   create: async () => createSqliteAskStore({ path: freshFile() }),
 *   // Optional: another store over the same data as the last `create()` (a second connection,
 *   // another service's store). Enables the cross-store tests. May return the same instance.
 *   connect: async () => createSqliteAskStore({ path: lastFile }),
 *   // Optional: called after each test, once every store of the test is closed.
 *   cleanup: async () => rm(dir, { recursive: true }),
 *   // Whether claimDue ends a claim early once its `enough` callback says so.
 *   endsClaimsEarly: true,
 * });
 * ```
 *
 * The suite closes every store it got (once each). It writes rows in the shapes the service
 * writes (see ask-rows.ts) and asserts only what the contract in src/stores/ask-store.ts says.
 */
import type { AskStore } from 'ask-engine';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ASK_STATES, AUDIT_EVENT_TYPES } from '../../src/engine/audit.js';
import {
  type AskWrite,
  answeredByWrite,
  answeredOutcome,
  answerWrite,
  askRow,
  collect,
  deferWrite,
  lateAnswerEvent,
  sampleEvents,
  startWrite,
  timeoutWrite,
  waitUntil,
} from './ask-rows.js';
import { describeWorkClaims } from './store-contract-claims.js';
import { describeAskIds } from './store-contract-ids.js';
import { describeOwnerLeases } from './store-contract-leases.js';
import { describeOutbox } from './store-contract-outbox.js';
import { describePeopleFilters } from './store-contract-people.js';
import { describePurgeOfUnheardSettles } from './store-contract-purge-owners.js';
import { describeListAndPurge } from './store-contract-queries.js';

export interface AskStoreContractTarget {
  /** A store over empty data; called before each test. */
  create(): Promise<AskStore>;
  /** Another store over the same data as the last `create()`; enables the cross-store tests. */
  connect?(): Promise<AskStore>;
  /** Runs after each test, once the test's stores are closed. */
  cleanup?(): Promise<void>;
  /**
   * Whether `claimDue` ends a claim once its `enough` says so (the memory and SQLite stores);
   * a store that leases its batch before settling it settles the whole batch instead.
   */
  endsClaimsEarly: boolean;
}

/** True for news that `askId` changed, at `version`. */
function isChange(change: unknown, askId: string, version: number): boolean {
  const told = change as { type?: string; askId?: string; version?: number };
  return told.type === 'changed' && told.askId === askId && told.version === version;
}

/** Registers the contract tests for one store implementation under `describe(name)`. */
export function describeAskStoreContract(name: string, target: AskStoreContractTarget): void {
  describe(`${name} (ask store contract)`, () => {
    let store: AskStore;
    const opened = new Set<AskStore>();

    const connect = async (): Promise<AskStore> => {
      if (target.connect === undefined) throw new Error('connect() is not configured');
      const peer = await target.connect();
      opened.add(peer);
      return peer;
    };

    /** Creates the ask and returns its stored row. */
    const started = async (...options: Parameters<typeof startWrite>) => {
      const write = startWrite(...options);
      expect(await store.create(write)).toEqual({ created: true });
      return write.ask;
    };

    /** Applies `write` on top of the version before it and returns the new row. */
    const applied = async (write: AskWrite) => {
      expect(await store.update(write, write.ask.version - 1)).toEqual({ ok: true });
      return write.ask;
    };

    /**
     * Writes asks `probe-<n>` to the store until `news` tells of one: a feed hears writes once
     * it listens (PostgreSQL: once its LISTEN is up, which can come after the first writes on a
     * loaded machine; writes made before are not told, only 'missed').
     */
    const untilListening = async (news: readonly unknown[]): Promise<void> => {
      const told = () => news.some((change) => (change as { type?: string }).type === 'changed');
      for (let probe = 0; !told(); probe++) {
        if (probe >= 200) throw new Error('The store never told of a write.');
        await started({ askId: `probe-${probe}` });
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    };

    beforeEach(async () => {
      store = await target.create();
      opened.add(store);
    });

    afterEach(async () => {
      for (const each of opened) await each.close();
      opened.clear();
      await target.cleanup?.();
    });

    describeListAndPurge({
      store: () => store,
      started,
      applied,
      connect: target.connect === undefined ? undefined : connect,
    });

    describeOutbox({
      store: () => store,
      started,
      applied,
      connect: target.connect === undefined ? undefined : connect,
    });

    describePeopleFilters({
      store: () => store,
      started,
      applied,
      connect: target.connect === undefined ? undefined : connect,
    });

    describeAskIds({
      store: () => store,
      started,
      applied,
      connect: target.connect === undefined ? undefined : connect,
    });

    describeOwnerLeases({
      store: () => store,
      started,
      applied,
      connect: target.connect === undefined ? undefined : connect,
    });

    describeWorkClaims({
      store: () => store,
      started,
      applied,
      connect: target.connect === undefined ? undefined : connect,
    });

    describePurgeOfUnheardSettles({
      store: () => store,
      started,
      applied,
      connect: target.connect === undefined ? undefined : connect,
    });

    describe('create', () => {
      it('stores a new ask at version 1 with its start event', async () => {
        const write = startWrite({ askId: 'ask-1', key: 'call-7', deadlineAt: 1_700_000_060_000 });
        expect(await store.create(write)).toEqual({ created: true });
        expect(await store.get('ask-1')).toEqual(write.ask);
        expect(await collect(store.history('ask-1'))).toEqual([write.event]);
      });

      it('keeps absent optional fields absent', async () => {
        await started({ askId: 'bare' });
        const row = await store.get('bare');
        expect(Object.keys(row ?? {}).sort()).toEqual(
          ['askId', 'createdAt', 'final', 'questions', 'snapshot', 'state', 'updatedAt', 'version']
            .slice()
            .sort(),
        );
      });

      it('returns the existing ask for a duplicate id and writes nothing', async () => {
        const first = await started({ askId: 'ask-1', owner: 'service-a' });
        const again = startWrite({ askId: 'ask-1', owner: 'service-b', at: 1_700_000_000_500 });
        expect(await store.create(again)).toEqual({ created: false, existing: first });
        expect(await store.get('ask-1')).toEqual(first);
        expect(await collect(store.history('ask-1'))).toHaveLength(1);
      });

      it('returns the existing ask for a duplicate key and writes nothing', async () => {
        const first = await started({ askId: 'ask-1', key: 'step-42' });
        const result = await store.create(startWrite({ askId: 'ask-2', key: 'step-42' }));
        expect(result).toEqual({ created: false, existing: first });
        expect(await store.get('ask-2')).toBeUndefined();
        expect(await collect(store.history('ask-2'))).toEqual([]);
      });
    });

    describe('update', () => {
      it('replaces the ask and appends its event when the version matches', async () => {
        const start = startWrite({ askId: 'ask-1', deadlineAt: 1_700_000_060_000 });
        await store.create(start);
        const answer = answerWrite(start.ask);
        expect(await store.update(answer, 1)).toEqual({ ok: true });
        expect(await store.get('ask-1')).toEqual(answer.ask);
        expect(await collect(store.history('ask-1'))).toEqual([start.event, answer.event]);
      });

      it('refuses a stale version with the current row and writes nothing', async () => {
        const row = await started({ askId: 'ask-1' });
        const deferred = await applied(deferWrite(row, 'thread-1'));
        const stale = answerWrite(row);
        expect(await store.update(stale, 1)).toEqual({
          ok: false,
          reason: 'version',
          current: deferred,
        });
        expect(await store.get('ask-1')).toEqual(deferred);
        expect(await collect(store.history('ask-1'))).toHaveLength(2);
      });

      it('refuses an unknown ask as a version conflict with no current row', async () => {
        const ghost = answerWrite(askRow({ askId: 'ghost' }));
        expect(await store.update(ghost, 1)).toEqual({
          ok: false,
          reason: 'version',
          current: undefined,
        });
        expect(await store.get('ghost')).toBeUndefined();
      });

      it('lets exactly one of two writers on the same version win', async () => {
        const row = await started({ askId: 'ask-1' });
        const results = await Promise.all([
          store.update(answerWrite(row), 1),
          store.update(deferWrite(row, 'thread-1'), 1),
        ]);
        expect(results.filter((result) => result.ok)).toHaveLength(1);
        expect(await collect(store.history('ask-1'))).toHaveLength(2);
      });
    });

    describe('interaction ids', () => {
      it('refuses a deferral to an id another open ask holds, naming the holder', async () => {
        const first = await applied(deferWrite(await started({ askId: 'ask-1' }), 'thread-1'));
        const second = await started({ askId: 'ask-2' });
        expect(await store.update(deferWrite(second, 'thread-1'), 1)).toEqual({
          ok: false,
          reason: 'interaction-id',
          holder: 'ask-1',
        });
        expect(await store.get('ask-2')).toEqual(second);
        expect(await store.get('ask-1')).toEqual(first);
        expect(await collect(store.history('ask-2'))).toHaveLength(1);
      });

      it('refuses to create an ask under an id another open ask holds, naming the holder', async () => {
        const first = await applied(deferWrite(await started({ askId: 'ask-1' }), 'thread-1'));
        const second = deferWrite(startWrite({ askId: 'ask-2' }).ask, 'thread-1');
        // Every store, in one wording (the memory store created it, PostgreSQL named no holder).
        await expect(store.create(second)).rejects.toThrow(
          'Cannot create ask ask-2: interaction id thread-1 belongs to ask ask-1, which is not final.',
        );
        expect(await store.get('ask-2')).toBeUndefined();
        expect(await collect(store.history('ask-2'))).toEqual([]);
        expect(await store.findByInteractionId('thread-1')).toEqual(first);
      });

      it('lets the holder write its own interaction id again', async () => {
        const deferred = await applied(deferWrite(await started({ askId: 'ask-1' }), 'thread-1'));
        const again = deferWrite(deferred, 'thread-1');
        expect(await store.update(again, 2)).toEqual({ ok: true });
      });

      it('releases the id when its ask becomes final', async () => {
        const first = await applied(deferWrite(await started({ askId: 'ask-1' }), 'thread-1'));
        await applied(answerWrite(first));
        const second = await started({ askId: 'ask-2' });
        expect(await store.update(deferWrite(second, 'thread-1'), 1)).toEqual({ ok: true });
        expect((await store.findByInteractionId('thread-1'))?.askId).toBe('ask-2');
      });

      it('finds the open ask before settled ones, else the one that settled last', async () => {
        expect(await store.findByInteractionId('thread-1')).toBeUndefined();
        const first = await applied(deferWrite(await started({ askId: 'ask-1' }), 'thread-1'));
        const firstAnswered = await applied(answerWrite(first));
        expect(await store.findByInteractionId('thread-1')).toEqual(firstAnswered);

        const second = await applied(deferWrite(await started({ askId: 'ask-2' }), 'thread-1'));
        expect(await store.findByInteractionId('thread-1')).toEqual(second);

        const secondTimedOut = await applied(timeoutWrite(second, second.updatedAt + 10));
        expect(await store.findByInteractionId('thread-1')).toEqual(secondTimedOut);
        expect(await store.findByInteractionId('thread-2')).toBeUndefined();
      });

      it('finds the settled ask again once the open one that took its id lets it go', async () => {
        const first = await applied(deferWrite(await started({ askId: 'ask-1' }), 'thread-1'));
        const firstAnswered = await applied(answerWrite(first));
        const second = await applied(deferWrite(await started({ askId: 'ask-2' }), 'thread-1'));
        expect(await store.findByInteractionId('thread-1')).toEqual(second);
        // Deferred again, to another thread: thread-1 is the settled ask's again.
        const moved = await applied(deferWrite(second, 'thread-2'));
        expect(await store.findByInteractionId('thread-1')).toEqual(firstAnswered);
        expect(await store.findByInteractionId('thread-2')).toEqual(moved);
      });
    });

    describe('lookups and history', () => {
      it('finds an ask by key at its latest version', async () => {
        const row = await started({ askId: 'ask-1', key: 'tool-call-9' });
        const answered = await applied(answerWrite(row));
        expect(await store.findByKey('tool-call-9')).toEqual(answered);
        expect(await store.findByKey('tool-call-10')).toBeUndefined();
        expect(await store.get('ask-404')).toBeUndefined();
      });

      it('appends events that change no state, in order', async () => {
        const start = startWrite({ askId: 'ask-1' });
        await store.create(start);
        const answer = answerWrite(start.ask);
        await store.update(answer, 1);
        const late = [lateAnswerEvent('ask-1', 1_700_000_001_000)];
        late.push(lateAnswerEvent('ask-1', 1_700_000_002_000));
        for (const event of late) await store.append(event);
        expect(await collect(store.history('ask-1'))).toEqual([start.event, answer.event, ...late]);
        expect(await store.get('ask-1')).toEqual(answer.ask);
      });

      it('refuses to append to an unknown ask', async () => {
        await expect(store.append(lateAnswerEvent('ask-404', 1))).rejects.toThrow(/ask-404/);
        expect(await collect(store.history('ask-404'))).toEqual([]);
      });

      it('keeps each ask its own history', async () => {
        const one = await started({ askId: 'ask-1' });
        const two = await started({ askId: 'ask-2' });
        await applied(answerWrite(two));
        await applied(deferWrite(one, 'thread-1'));
        const types = async (askId: string) =>
          (await collect(store.history(askId))).map((event) => event.type);
        expect(await types('ask-1')).toEqual(['start', 'provider.deferred']);
        expect(await types('ask-2')).toEqual(['start', 'answer']);
      });
    });

    describe('every state and every audit event type', () => {
      it('keeps an ask in each state of the machine', async () => {
        expect(ASK_STATES.length).toBeGreaterThan(0);
        for (const state of ASK_STATES) {
          const write = startWrite({ askId: `in-${state}` });
          const ask = askRow({
            askId: `in-${state}`,
            state,
            ...(state === 'pending' ? {} : { outcome: answeredOutcome }),
          });
          write.ask = ask;
          write.event = { ...write.event, to: state };
          expect(await store.create(write)).toEqual({ created: true });
          expect(await store.get(ask.askId)).toEqual(ask);
          expect(await collect(store.history(ask.askId))).toEqual([write.event]);
        }
      });

      it('keeps an event of each type, written with a row and appended alone', async () => {
        const samples = sampleEvents('written', 1_700_000_000_000);
        let row = await started({ askId: 'written' });
        const written = [];
        for (const type of AUDIT_EVENT_TYPES) {
          const event = { ...samples[type], askId: row.askId, at: row.updatedAt + 1 };
          const next = { ...row, version: row.version + 1, updatedAt: event.at };
          row = await applied({ ask: next, event });
          written.push(event);
        }
        const start = (await collect(store.history('written')))[0];
        expect(await collect(store.history('written'))).toEqual([start, ...written]);

        await started({ askId: 'appended' });
        const appended = AUDIT_EVENT_TYPES.map((type) => ({ ...samples[type], askId: 'appended' }));
        for (const event of appended) await store.append(event);
        expect((await collect(store.history('appended'))).slice(1)).toEqual(appended);
      });
    });

    describe('who answered', () => {
      it('keeps answeredBy in the outcome and in the answered event, redacted or not', async () => {
        const cases = [
          { askId: 'by-plain', by: { recipient: 'alice@example.com', channel: 'email' } },
          { askId: 'by-redacted', by: { recipient: 'Zoë 文字 🚀' }, redacted: true },
        ];
        for (const { askId, by, redacted } of cases) {
          const written = answeredByWrite(await started({ askId }), by, redacted);
          await applied(written);
          const back = await store.get(askId);
          expect(back).toEqual(written.ask);
          expect(back?.outcome).toEqual({ ...answeredOutcome, answeredBy: by });
          const history = await collect(store.history(askId));
          expect(history.at(-1)).toEqual(written.event);
          expect(history.at(-1)?.data).toMatchObject({ answeredBy: by });
        }
      });
    });

    describe('claimDue', () => {
      const now = 1_700_000_100_000;
      const settle = (calls: string[]) => (ask: Parameters<typeof timeoutWrite>[0]) => {
        calls.push(ask.askId);
        return timeoutWrite(ask, now);
      };

      beforeEach(async () => {
        await started({ askId: 'late-300', deadlineAt: now - 300 });
        await started({ askId: 'late-100', deadlineAt: now - 100 });
        await started({ askId: 'late-200', deadlineAt: now - 200 });
        await started({ askId: 'at-now', deadlineAt: now });
        await started({ askId: 'future', deadlineAt: now + 1 });
        await started({ askId: 'no-deadline' });
        const done = await started({ askId: 'final-early', deadlineAt: now - 1_000 });
        await applied(answerWrite(done));
        const deferred = await started({ askId: 'deferred-late', deadlineAt: now - 250 });
        await applied(deferWrite(deferred, 'thread-9'));
      });

      it('settles due asks that are not final, oldest deadline first, up to the limit', async () => {
        const calls: string[] = [];
        const writes = await store.claimDue(now, 3, settle(calls));
        expect(calls).toEqual(['late-300', 'deferred-late', 'late-200']);
        expect(writes.map((write) => write.ask.askId)).toEqual(calls);
        for (const write of writes) {
          expect(await store.get(write.ask.askId)).toEqual(write.ask);
          expect((await collect(store.history(write.ask.askId))).at(-1)).toEqual(write.event);
        }

        const rest: string[] = [];
        await store.claimDue(now, 100, settle(rest));
        expect(rest).toEqual(['late-100', 'at-now']);
        expect(await store.claimDue(now, 100, settle([]))).toEqual([]);
        expect((await store.get('future'))?.state).toBe('pending');
        expect((await store.get('no-deadline'))?.state).toBe('pending');
        expect((await store.get('final-early'))?.state).toBe('answered');
      });

      it('hands settle the stored row and applies its write on that version', async () => {
        const seen: Parameters<typeof timeoutWrite>[0][] = [];
        const writes = await store.claimDue(now, 1, (ask) => {
          seen.push(ask);
          return timeoutWrite(ask, now);
        });
        expect(seen).toEqual([askRow({ askId: 'late-300', deadlineAt: now - 300 })]);
        expect(writes[0]?.ask.version).toBe(2);
        // The sweeper's write took version 1: a service still holding version 1 loses.
        const stale = answerWrite(askRow({ askId: 'late-300', deadlineAt: now - 300 }));
        expect(await store.update(stale, 1)).toMatchObject({ ok: false, reason: 'version' });
        // A released interaction id: the timed-out deferral no longer holds thread-9.
        await store.claimDue(now, 100, (ask) => timeoutWrite(ask, now));
        const next = await started({ askId: 'next' });
        expect(await store.update(deferWrite(next, 'thread-9'), 1)).toEqual({ ok: true });
      });

      it('does not count asks settle declines towards the limit', async () => {
        const calls: string[] = [];
        // The two oldest are declined (a row the service refuses); the limit still reaches
        // the next ask instead of stopping at them.
        const writes = await store.claimDue(now, 1, (ask) => {
          calls.push(ask.askId);
          return ask.askId === 'late-300' || ask.askId === 'deferred-late'
            ? undefined
            : timeoutWrite(ask, now);
        });
        expect(writes.map((write) => write.ask.askId)).toEqual(['late-200']);
        expect(calls.slice(0, 3)).toEqual(['late-300', 'deferred-late', 'late-200']);
      });

      it('leaves an ask alone when settle returns nothing', async () => {
        const writes = await store.claimDue(now, 100, (ask) =>
          ask.askId === 'late-200' ? timeoutWrite(ask, now) : undefined,
        );
        expect(writes.map((write) => write.ask.askId)).toEqual(['late-200']);
        expect((await store.get('late-300'))?.version).toBe(1);
        expect(await collect(store.history('late-300'))).toHaveLength(1);
      });

      it(
        target.endsClaimsEarly
          ? 'ends a claim once enough says so, after at least one write, leaving the rest due'
          : 'settles its whole batch whatever enough says',
        async () => {
          const calls: string[] = [];
          const asked: number[] = [];
          const writes = await store.claimDue(now, 3, settle(calls), () => {
            asked.push(calls.length);
            return true;
          });
          if (target.endsClaimsEarly) {
            // Asked once, after the first write: the claim always gets somewhere.
            expect(asked).toEqual([1]);
            expect(writes.map((write) => write.ask.askId)).toEqual(['late-300']);
            expect((await store.get('deferred-late'))?.state).toBe('deferred');
          } else {
            expect(writes.map((write) => write.ask.askId)).toEqual(calls);
            expect(calls).toEqual(['late-300', 'deferred-late', 'late-200']);
          }
          // Never asked before the first write, nor once the limit is reached.
          const next: string[] = [];
          const more = await store.claimDue(now, 1, settle(next), () => {
            throw new Error('enough was asked with nothing written or the limit reached');
          });
          expect(more.map((write) => write.ask.askId)).toEqual(next);
          expect(next).toHaveLength(1);
        },
      );

      it('settles each due ask once when claims run at the same time', async () => {
        const calls: string[] = [];
        const results = await Promise.all([
          store.claimDue(now, 100, settle(calls)),
          store.claimDue(now, 100, settle(calls)),
        ]);
        const claimed = results.flat().map((write) => write.ask.askId);
        expect(claimed.sort()).toEqual(
          ['at-now', 'deferred-late', 'late-100', 'late-200', 'late-300'].sort(),
        );
      });
    });

    describe('subscribe and close', () => {
      it('tells subscribers which ask changed, at its latest version', async () => {
        const changes: unknown[] = [];
        store.subscribe((change) => changes.push(change));
        await untilListening(changes);
        const row = await started({ askId: 'ask-1' });
        await waitUntil(
          () => changes.some((change) => isChange(change, 'ask-1', 1)),
          'the first change',
        );
        await applied(answerWrite(row));
        await waitUntil(
          () => changes.some((change) => (change as { version?: number }).version === 2),
          'the second change',
        );
        expect(changes).toContainEqual({ type: 'changed', askId: 'ask-1', version: 1 });
        expect(changes).toContainEqual({ type: 'changed', askId: 'ask-1', version: 2 });
      });

      it('tells of a write only after the write’s promise settled', async () => {
        const order: string[] = [];
        const news: unknown[] = [];
        store.subscribe((change) => {
          news.push(change);
          if (change.type === 'changed' && change.askId === 'ask-1') {
            order.push(`news of ${change.askId} v${change.version}`);
          }
        });
        await untilListening(news);
        const start = startWrite({ askId: 'ask-1', deadlineAt: 1_000 });
        await store.create(start).then(() => order.push('created'));
        await waitUntil(() => order.length >= 2, 'news of the create');
        await store.update(deferWrite(start.ask, 'thread-1'), 1).then(() => order.push('updated'));
        await waitUntil(() => order.length >= 4, 'news of the update');
        await store
          .claimDue(2_000, 10, (ask) => timeoutWrite(ask, 2_000))
          .then(() => order.push('claimed'));
        await waitUntil(() => order.length >= 6, 'news of the claim');
        expect(order).toEqual([
          'created',
          'news of ask-1 v1',
          'updated',
          'news of ask-1 v2',
          'claimed',
          'news of ask-1 v3',
        ]);
      });

      it('stops telling a subscriber once it unsubscribed', async () => {
        const kept: unknown[] = [];
        const dropped: unknown[] = [];
        store.subscribe((change) => kept.push(change));
        const unsubscribe = store.subscribe((change) => dropped.push(change));
        const row = await started({ askId: 'ask-1' });
        await waitUntil(() => kept.length >= 1 && dropped.length >= 1, 'the first change');
        unsubscribe();
        const seen = dropped.length;
        await applied(answerWrite(row));
        await waitUntil(
          () => kept.some((change) => (change as { version?: number }).version === 2),
          'the second change',
        );
        expect(dropped).toHaveLength(seen);
      });

      it('leaves a writer’s own writes out of its news, and tells everyone else', async () => {
        const news = { a: [] as unknown[], b: [] as unknown[], all: [] as unknown[] };
        store.subscribe((change) => news.a.push(change), { writer: 'service-a' });
        store.subscribe((change) => news.b.push(change), { writer: 'service-b' });
        store.subscribe((change) => news.all.push(change));
        const heard = (list: unknown[], askId: string, version = 1) =>
          list.some((change) => isChange(change, askId, version));
        await untilListening(news.all);
        const byA = (write: AskWrite): AskWrite => ({ ...write, writer: 'service-a' });
        const byB = (write: AskWrite): AskWrite => ({ ...write, writer: 'service-b' });
        // ask-1: created by A and answered by B at once (maybe one batch of news); ask-2: created
        // by B, then timed out by A's sweep; ask-3: created by A, then written with no writer.
        const first = byA(startWrite({ askId: 'ask-1' }));
        expect(await store.create(first)).toEqual({ created: true });
        await applied(byB(answerWrite(first.ask)));
        const second = byB(startWrite({ askId: 'ask-2', deadlineAt: 1_000 }));
        expect(await store.create(second)).toEqual({ created: true });
        await waitUntil(() => heard(news.all, 'ask-2'), 'news of ask-2 v1');
        const swept = await store.claimDue(2_000, 10, (ask) => byA(timeoutWrite(ask, 2_000)));
        expect(swept.map((write) => write.ask.askId)).toEqual(['ask-2']);
        const third = byA(startWrite({ askId: 'ask-3' }));
        expect(await store.create(third)).toEqual({ created: true });
        await applied(answerWrite(third.ask));
        // News comes in the order of the writes: once all have heard of the last, they have
        // heard of everything they are told.
        await waitUntil(
          () =>
            heard(news.a, 'ask-3', 2) && heard(news.b, 'ask-3', 2) && heard(news.all, 'ask-3', 2),
          'news of the last write',
        );
        const told = (list: unknown[]) =>
          list
            .filter((change) => !String((change as { askId?: string }).askId).startsWith('probe-'))
            .map((change) => {
              const { askId, version } = change as { askId: string; version: number };
              return `${askId} v${version}`;
            });
        expect(told(news.all)).toEqual(
          expect.arrayContaining(['ask-1 v2', 'ask-2 v1', 'ask-2 v2', 'ask-3 v2']),
        );
        // Each is told of the other's writes and of writes with no writer, never of its own.
        expect(told(news.a)).toEqual(expect.arrayContaining(['ask-1 v2', 'ask-2 v1', 'ask-3 v2']));
        expect(told(news.a)).not.toContain('ask-1 v1');
        expect(told(news.a)).not.toContain('ask-2 v2');
        expect(told(news.a)).not.toContain('ask-3 v1');
        expect(told(news.b)).toEqual(expect.arrayContaining(['ask-2 v2', 'ask-3 v2']));
        expect(told(news.b)).not.toContain('ask-1 v2');
        expect(told(news.b)).not.toContain('ask-2 v1');
      });

      it('refuses subscribe options that are not { writer: a non-empty string }', async () => {
        const listener = () => undefined;
        expect(() => store.subscribe(listener, { writer: '' })).toThrow(/writer.*""/);
        expect(() => store.subscribe(listener, { writer: 7 as unknown as string })).toThrow(
          /writer.*7/,
        );
        expect(() => store.subscribe(listener, 'service-a' as never)).toThrow(/subscribe options/);
      });

      it('rejects calls after close and closes twice without error', async () => {
        await started({ askId: 'ask-1' });
        await store.close();
        await expect(store.get('ask-1')).rejects.toThrow(/closed/);
        await expect(store.create(startWrite({ askId: 'ask-2' }))).rejects.toThrow(/closed/);
        await store.close();
      });
    });

    if (target.connect !== undefined) {
      describe('two stores over the same data', () => {
        it('sees the other store’s writes and is told about them', async () => {
          const peer = await connect();
          // A store that opens lazily starts its feed once open (before, it reports 'missed').
          expect(await peer.get('ask-1')).toBeUndefined();
          const changes: unknown[] = [];
          peer.subscribe((change) => changes.push(change));
          await untilListening(changes);
          const row = await started({ askId: 'ask-1', key: 'shared-key' });
          const answered = await applied(answerWrite(row));
          await waitUntil(
            () => changes.some((change) => (change as { version?: number }).version === 2),
            'the peer to hear of version 2',
          );
          expect(changes).toContainEqual({ type: 'changed', askId: 'ask-1', version: 2 });
          expect(await peer.get('ask-1')).toEqual(answered);
          expect(await peer.findByKey('shared-key')).toEqual(answered);
        });

        it('lets exactly one store win a race on the same version', async () => {
          const peer = await connect();
          const row = await started({ askId: 'ask-1' });
          const results = await Promise.all([
            store.update(answerWrite(row), 1),
            peer.update(deferWrite(row, 'thread-1'), 1),
          ]);
          expect(results.filter((result) => result.ok)).toHaveLength(1);
          expect(await collect(peer.history('ask-1'))).toHaveLength(2);
        });

        it('claims each due ask once across stores', async () => {
          const peer = await connect();
          for (let n = 0; n < 20; n++) await started({ askId: `due-${n}`, deadlineAt: 1_000 + n });
          const settleAt = (ask: Parameters<typeof timeoutWrite>[0]) => timeoutWrite(ask, 5_000);
          const results = await Promise.all([
            store.claimDue(5_000, 7, settleAt),
            peer.claimDue(5_000, 7, settleAt),
            store.claimDue(5_000, 7, settleAt),
            peer.claimDue(5_000, 7, settleAt),
          ]);
          const claimed = results.flat().map((write) => write.ask.askId);
          expect(new Set(claimed).size).toBe(claimed.length);
          expect(claimed).toHaveLength(20);
        });
      });
    }
  });
}
