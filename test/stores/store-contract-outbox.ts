/**
 * The store contract's outbox cases (issue 16), registered by store-contract.ts for every store:
 * entries are written with the transition that causes them, claimed by one sender, settled by
 * the write that makes the ask final, and done once with their audit event.
 */
import type { AskStore, OutboxEntry, StoredAsk } from 'ask-engine';
import { describe, expect, it } from 'vitest';
import { type AskWrite, answerWrite, collect, deferWrite, timeoutWrite } from './ask-rows.js';
import type { QueryCaseContext } from './store-contract-queries.js';

const T0 = 1_700_000_000_000;
const LEASE = 60_000;

function entry(
  askId: string,
  deliveryId: string,
  overrides: Partial<OutboxEntry> = {},
): OutboxEntry {
  return {
    deliveryId,
    askId,
    channel: 'email',
    due: T0 + 1_000,
    payload: { kind: 'created', to: deliveryId, text: 'Zoë 文字 🚀 "quoted"' },
    ...overrides,
  };
}

const withOutbox = (write: AskWrite, outbox: OutboxEntry[]): AskWrite => ({ ...write, outbox });
const ids = (claimed: readonly { deliveryId: string }[]) => claimed.map((e) => e.deliveryId).sort();

export function describeOutbox(context: QueryCaseContext): void {
  const store = (): AskStore => context.store();

  /** A deferred ask with `outbox` written in its deferral. */
  const deferredWith = async (askId: string, outbox: OutboxEntry[]): Promise<StoredAsk> => {
    const started = await context.started({ askId, deadlineAt: T0 + 600_000 });
    return context.applied(withOutbox(deferWrite(started, `thread-${askId}`), outbox));
  };

  describe('outbox', () => {
    it('stores the entries of a write that applies, and only of one that applies', async () => {
      const started = await context.started({ askId: 'ob-1' });
      const stale = withOutbox(deferWrite(started, 'thread-x'), [entry('ob-1', 'lost')]);
      expect(await store().update(stale, started.version + 5)).toMatchObject({ ok: false });
      const deferred = await context.applied(
        withOutbox(deferWrite(started, 'thread-1'), [entry('ob-1', 'kept')]),
      );
      const claimed = await store().claimOutbox(T0 + 1_000, 10, LEASE, ['email']);
      expect(claimed).toEqual([
        {
          deliveryId: 'kept',
          askId: 'ob-1',
          channel: 'email',
          dueAt: T0 + 1_000,
          payload: entry('ob-1', 'kept').payload,
          attempts: 1,
          // What the sender needs of the ask comes with the claim.
          ask: {
            askId: 'ob-1',
            state: 'deferred',
            final: false,
            outcome: deferred.outcome,
            updatedAt: deferred.updatedAt,
          },
        },
      ]);
    });

    it('claims only due entries of the given channels, earliest first, and leases them', async () => {
      await deferredWith('ob-2', [
        entry('ob-2', 'later', { due: T0 + 100_000 }),
        entry('ob-2', 'hook', { channel: 'webhook' }),
        entry('ob-2', 'second', { due: T0 + 2_000 }),
        entry('ob-2', 'first', { due: T0 + 1_000 }),
      ]);
      expect(await store().claimOutbox(T0, 10, LEASE, ['email'])).toEqual([]);
      const now = T0 + 3_000;
      const claimed = await store().claimOutbox(now, 10, LEASE, ['email']);
      expect(claimed.map((e) => e.deliveryId)).toEqual(['first', 'second']);
      expect(await store().claimOutbox(now, 10, LEASE, ['email'])).toEqual([]);
      // A dead sender's lease runs out: the entry is claimed again, under the same id.
      const again = await store().claimOutbox(now + LEASE, 10, LEASE, ['email']);
      expect(ids(again)).toEqual(['first', 'second']);
      expect(again.map((e) => e.attempts)).toEqual([2, 2]);
      expect(ids(await store().claimOutbox(now, 10, LEASE, ['webhook']))).toEqual(['hook']);
    });

    it('keeps the first entry of a delivery id: a retried write queues nothing twice', async () => {
      await deferredWith('ob-3', [entry('ob-3', 'same')]);
      const row = (await store().get('ob-3')) as StoredAsk;
      await context.applied(
        withOutbox(answerWrite(row), [entry('ob-3', 'same', { payload: { changed: true } })]),
      );
      const claimed = await store().claimOutbox(T0 + 1_000, 10, LEASE, ['email']);
      expect(claimed).toHaveLength(1);
      expect(claimed[0]?.payload).toEqual(entry('ob-3', 'same').payload);
    });

    it('marks an entry done once, with its audit event, and never claims it again', async () => {
      await deferredWith('ob-4', [entry('ob-4', 'done')]);
      await store().claimOutbox(T0 + 1_000, 10, LEASE, ['email']);
      const event = {
        askId: 'ob-4',
        type: 'notified' as const,
        at: T0 + 1_100,
        from: 'deferred' as const,
        to: 'deferred' as const,
        data: {
          recipient: 'alice',
          channel: 'email',
          deliveryId: 'done',
          kind: 'created' as const,
        },
      };
      expect(await store().completeOutbox('done', T0 + 1_100, event)).toBe(true);
      expect(await store().completeOutbox('done', T0 + 1_200, event)).toBe(false);
      expect((await collect(store().history('ob-4'))).filter((e) => e.type === 'notified')).toEqual(
        [event],
      );
      expect(await store().claimOutbox(T0 + 10 * LEASE, 10, LEASE, ['email'])).toEqual([]);
      expect(await store().completeOutbox('unknown', T0)).toBe(false);
    });

    it('releases a retried entry to be claimed at its new time', async () => {
      await deferredWith('ob-5', [entry('ob-5', 'retry')]);
      await store().claimOutbox(T0 + 1_000, 10, LEASE, ['email']);
      await store().retryOutbox('retry', T0 + 4_000);
      expect(await store().claimOutbox(T0 + 3_999, 10, LEASE, ['email'])).toEqual([]);
      const claimed = await store().claimOutbox(T0 + 4_000, 10, LEASE, ['email']);
      expect(claimed.map((e) => [e.deliveryId, e.dueAt, e.attempts])).toEqual([
        ['retry', T0 + 4_000, 2],
      ]);
    });

    it('makes settled entries due with the final write and drops unsent while-open ones', async () => {
      const deferred = await deferredWith('ob-6', [
        entry('ob-6', 'reminder-sent', { whileOpen: true, due: T0 + 1_000 }),
        entry('ob-6', 'reminder-unsent', { whileOpen: true, due: T0 + 50_000 }),
        entry('ob-6', 'settled', { due: 'settled' }),
      ]);
      const [sent] = await store().claimOutbox(T0 + 1_000, 10, LEASE, ['email']);
      expect(sent?.deliveryId).toBe('reminder-sent');
      await store().completeOutbox('reminder-sent', T0 + 1_000);
      expect(await store().claimOutbox(T0 + 40_000, 10, LEASE, ['email'])).toEqual([]);
      const answered = await context.applied(answerWrite(deferred));
      const claimed = await store().claimOutbox(T0 + 10 * LEASE, 10, LEASE, ['email']);
      expect(claimed.map((e) => [e.deliveryId, e.dueAt])).toEqual([
        ['settled', answered.updatedAt],
      ]);
      expect(claimed[0]?.ask).toEqual({
        askId: 'ob-6',
        state: answered.state,
        final: true,
        outcome: answered.outcome,
        updatedAt: answered.updatedAt,
      });
    });

    it('settles the outbox when a deadline sweep makes the ask final', async () => {
      await deferredWith('ob-7', [
        entry('ob-7', 'reminder', { whileOpen: true, due: T0 + 900_000 }),
        entry('ob-7', 'settled', { due: 'settled' }),
      ]);
      const now = T0 + 700_000;
      const swept = await store().claimDue(now, 10, (ask) => timeoutWrite(ask, now));
      expect(swept).toHaveLength(1);
      const claimed = await store().claimOutbox(T0 + 1_000_000, 10, LEASE, ['email']);
      expect(ids(claimed)).toEqual(['settled']);
    });

    it('writes a final write’s own entries settled: due at once, while-open ones left out', async () => {
      const started = await context.started({ askId: 'ob-8' });
      const answered = await context.applied(
        withOutbox(answerWrite(started), [
          entry('ob-8', 'told', { due: 'settled' }),
          entry('ob-8', 'nagged', { whileOpen: true }),
        ]),
      );
      const claimed = await store().claimOutbox(T0 + 10 * LEASE, 10, LEASE, ['email']);
      expect(claimed.map((e) => [e.deliveryId, e.dueAt])).toEqual([['told', answered.updatedAt]]);
    });

    it('hands a sender the entries written leased to it, until its lease runs out or another claims them', async () => {
      const lease = { sender: 'sender-1', until: T0 + 5_000 };
      const deferred = await deferredWith('ob-12', [
        entry('ob-12', 'mine', { lease }),
        entry('ob-12', 'free'),
      ]);
      const now = T0 + 1_000;
      const taken = await store().takeOutbox('sender-1', ['mine', 'free', 'unknown'], now);
      expect(taken).toEqual([
        {
          deliveryId: 'mine',
          askId: 'ob-12',
          channel: 'email',
          dueAt: T0 + 1_000,
          payload: entry('ob-12', 'mine').payload,
          attempts: 1,
          ask: {
            askId: 'ob-12',
            state: 'deferred',
            final: false,
            outcome: deferred.outcome,
            updatedAt: deferred.updatedAt,
          },
        },
      ]);
      // Leased: another sender neither takes nor claims it, and a take writes nothing.
      expect(await store().takeOutbox('sender-2', ['mine'], now)).toEqual([]);
      expect(ids(await store().claimOutbox(now, 10, LEASE, ['email']))).toEqual(['free']);
      expect(ids(await store().takeOutbox('sender-1', ['mine'], now))).toEqual(['mine']);
      // Once the lease ran out, anyone claims it; its writer no longer takes it.
      const again = await store().claimOutbox(lease.until, 10, LEASE, ['email']);
      expect(again.map((e) => [e.deliveryId, e.attempts])).toEqual([['mine', 2]]);
      expect(await store().takeOutbox('sender-1', ['mine'], now)).toEqual([]);
    });

    it('takes no entry that is done or released for a retry', async () => {
      const lease = { sender: 'sender-1', until: T0 + 5_000 };
      await deferredWith('ob-13', [
        entry('ob-13', 'sent', { lease }),
        entry('ob-13', 'retried', { lease }),
      ]);
      expect(await store().completeOutbox('sent', T0 + 1_000)).toBe(true);
      await store().retryOutbox('retried', T0 + 2_000);
      expect(await store().takeOutbox('sender-1', ['sent', 'retried'], T0 + 1_000)).toEqual([]);
      expect(ids(await store().claimOutbox(T0 + 2_000, 10, LEASE, ['email']))).toEqual(['retried']);
    });

    it('renews the lease of a claim while it is still that claim’s, and says when it is not', async () => {
      const lease = { sender: 'sender-1', until: T0 + 5_000 };
      await deferredWith('ob-15', [
        entry('ob-15', 'claimed'),
        entry('ob-15', 'written-leased', { lease }),
        entry('ob-15', 'retried'),
        entry('ob-15', 'sent'),
      ]);
      const now = T0 + 1_000;
      const claimed = await store().claimOutbox(now, 10, LEASE, ['email']);
      expect(ids(claimed)).toEqual(['claimed', 'retried', 'sent']);
      expect(await store().renewOutbox('claimed', 1, now + 3 * LEASE)).toBe(true);
      expect(await store().renewOutbox('written-leased', 1, now + 3 * LEASE)).toBe(true);
      // Not this try's any more: released for a retry, done, or unknown.
      await store().retryOutbox('retried', now + 4 * LEASE);
      expect(await store().renewOutbox('retried', 1, now + 9 * LEASE)).toBe(false);
      expect(await store().completeOutbox('sent', now)).toBe(true);
      expect(await store().renewOutbox('sent', 1, now + 9 * LEASE)).toBe(false);
      expect(await store().renewOutbox('unknown', 1, now + 9 * LEASE)).toBe(false);
      // Renewed: a claim after the first lease ran out finds them still leased.
      expect(await store().claimOutbox(now + 2 * LEASE, 10, LEASE, ['email'])).toEqual([]);
      const again = await store().claimOutbox(now + 3 * LEASE, 10, LEASE, ['email']);
      expect(again.map((e) => [e.deliveryId, e.attempts]).sort()).toEqual([
        ['claimed', 2],
        ['written-leased', 2],
      ]);
      // Claimed again by another sender: the first sender's try is no longer renewed.
      expect(await store().renewOutbox('claimed', 1, now + 9 * LEASE)).toBe(false);
      expect(await store().renewOutbox('claimed', 2, now + 9 * LEASE)).toBe(true);
      // A renewal never shortens a lease.
      expect(await store().renewOutbox('claimed', 2, now)).toBe(true);
      const later = await store().claimOutbox(now + 5 * LEASE, 10, LEASE, ['email']);
      expect(ids(later)).toEqual(['retried', 'written-leased']);
      await expect(store().renewOutbox('claimed', 0, now)).rejects.toThrow(/`attempts`/);
    });

    it('holds how an ask ended back while a message about the open ask is being sent', async () => {
      const deferred = await deferredWith('ob-16', [
        entry('ob-16', 'question', { whileOpen: true }),
        entry('ob-16', 'reminder', { whileOpen: true, due: T0 + 50_000 }),
        entry('ob-16', 'settled', { due: 'settled' }),
      ]);
      const now = T0 + 1_000;
      expect(ids(await store().claimOutbox(now, 10, LEASE, ['email']))).toEqual(['question']);
      // Settled while the question is being sent: the question stays (its sender marks it
      // done), the unsent reminder goes, and how the ask ended waits for the question.
      await context.applied(answerWrite(deferred));
      expect(await store().claimOutbox(now + 1, 10, LEASE, ['email'])).toEqual([]);
      expect(await store().completeOutbox('question', now + 2)).toBe(true);
      expect(ids(await store().claimOutbox(now + 2, 10, LEASE, ['email']))).toEqual(['settled']);
      expect(await store().completeOutbox('settled', now + 3)).toBe(true);
      expect(await store().claimOutbox(now + 100_000, 10, LEASE, ['email'])).toEqual([]);
    });

    it('keeps a message being sent when a deadline sweep settles its ask, as a write does', async () => {
      await deferredWith('ob-18', [
        entry('ob-18', 'question', { whileOpen: true, due: T0 + 650_000 }),
        entry('ob-18', 'unsent', { whileOpen: true, due: T0 + 900_000 }),
        entry('ob-18', 'settled', { due: 'settled' }),
      ]);
      const sending = await store().claimOutbox(T0 + 650_000, 10, LEASE, ['email']);
      expect(ids(sending)).toEqual(['question']);
      const now = T0 + 700_000;
      expect(await store().claimDue(now, 10, (ask) => timeoutWrite(ask, now))).toHaveLength(1);
      expect(await store().claimOutbox(now, 10, LEASE, ['email'])).toEqual([]);
      expect(await store().completeOutbox('question', now)).toBe(true);
      expect(ids(await store().claimOutbox(T0 + 1_000_000, 10, LEASE, ['email']))).toEqual([
        'settled',
      ]);
    });

    it('holds how an ask ended back only as long as the lease of the message being sent', async () => {
      const deferred = await deferredWith('ob-17', [
        entry('ob-17', 'question', { whileOpen: true }),
        entry('ob-17', 'settled', { due: 'settled' }),
      ]);
      const now = T0 + 1_000;
      expect(ids(await store().claimOutbox(now, 10, LEASE, ['email']))).toEqual(['question']);
      const answered = await context.applied(answerWrite(deferred));
      expect(await store().claimOutbox(now + LEASE - 1, 10, LEASE, ['email'])).toEqual([]);
      // Its sender died: both are claimed, the question with its ask final (not to be sent).
      const claimed = await store().claimOutbox(now + LEASE, 10, LEASE, ['email']);
      expect(claimed.map((e) => [e.deliveryId, e.dueAt, e.ask.final])).toEqual([
        ['settled', answered.updatedAt, true],
        ['question', T0 + 1_000, true],
      ]);
    });

    it('refuses a lease without a sender, naming the entry', async () => {
      const started = await context.started({ askId: 'ob-14' });
      await expect(
        store().update(
          withOutbox(deferWrite(started, 't-14'), [
            entry('ob-14', 'x', { lease: { sender: '', until: T0 } }),
          ]),
          1,
        ),
      ).rejects.toThrow(/outbox entry x's `lease`/);
    });

    it('refuses an entry for another ask, naming both', async () => {
      const started = await context.started({ askId: 'ob-9' });
      await expect(
        store().update(withOutbox(deferWrite(started, 't-9'), [entry('other', 'x')]), 1),
      ).rejects.toThrow(/for ask other but was written with ask ob-9/);
    });

    it('refuses an entry about the open ask that waits for the settle, naming it, and stores nothing', async () => {
      const started = await context.started({ askId: 'ob-15' });
      await expect(
        store().update(
          withOutbox(deferWrite(started, 't-15'), [
            entry('ob-15', 'never', { due: 'settled', whileOpen: true }),
          ]),
          1,
        ),
      ).rejects.toThrow(
        /Outbox entry never is `whileOpen` \(about the open ask\) and due when the ask settles/,
      );
      expect((await store().get('ob-15'))?.version).toBe(1);
    });

    it('deletes the entries of purged asks', async () => {
      const deferred = await deferredWith('ob-10', [entry('ob-10', 'gone', { due: 'settled' })]);
      const answered = await context.applied(answerWrite(deferred));
      expect(await store().purge(answered.updatedAt + 1, 10, answered.updatedAt + 1)).toBe(1);
      expect(await store().claimOutbox(T0 + 10 * LEASE, 10, LEASE, ['email'])).toEqual([]);
    });

    it('hands each due entry to one of two senders claiming at once', async () => {
      if (context.connect === undefined) return;
      const outbox = Array.from({ length: 40 }, (_, i) => entry('ob-11', `m-${i}`));
      await deferredWith('ob-11', outbox);
      const peer = await context.connect();
      const now = T0 + 1_000;
      const rounds = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          (i % 2 === 0 ? store() : peer).claimOutbox(now, 5, LEASE, ['email']),
        ),
      );
      const claimed = rounds.flat().map((e) => e.deliveryId);
      expect(new Set(claimed).size).toBe(claimed.length);
      expect(claimed).toHaveLength(40);
    });
  });
}
