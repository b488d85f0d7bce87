/**
 * The store contract's filters on people, registered by store-contract.ts for every store:
 * `list` by who answered (`answeredBy`) and by whom a notification reached (`notified`), the
 * query behind a recipient's inbox of open asks.
 */
import type { AskAuditEvent, AskStore, OutboxEntry, StoredAsk } from 'ask-engine';
import { describe, expect, it } from 'vitest';
import {
  type AskWrite,
  answeredByWrite,
  answerWrite,
  deferWrite,
  lateAnswerEvent,
  timeoutWrite,
} from './ask-rows.js';
import type { QueryCaseContext } from './store-contract-queries.js';

const T0 = 1_700_000_000_000;
const at = (n: number) => T0 + n * 1_000;
const OPEN = ['pending', 'deferred'] as const;

/** The event a sender appends once a notification reached `recipient`. */
function notifiedEvent(
  ask: StoredAsk,
  recipient: string,
  type: 'notified' | 'reminded' | 'escalated' = 'notified',
): AskAuditEvent {
  const data = { recipient, channel: 'email', deliveryId: `${ask.askId}/${recipient}/${type}` };
  const base = { askId: ask.askId, at: ask.updatedAt + 10, from: ask.state, to: ask.state };
  return type === 'notified'
    ? { ...base, type, data: { ...data, kind: 'created' } }
    : { ...base, type, data: { ...data, seq: 1 } };
}

async function collectEvents(store: AskStore, askId: string): Promise<AskAuditEvent[]> {
  const events: AskAuditEvent[] = [];
  for await (const event of store.history(askId)) events.push(event);
  return events;
}

export function describePeopleFilters(context: QueryCaseContext): void {
  const { started, applied } = context;
  const list = async (filter: Parameters<AskStore['list']>[0], limit?: number) => {
    const listed: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await context
        .store()
        .list(filter, limit === undefined ? { cursor } : { limit, cursor });
      listed.push(...page.items.map((ask) => ask.askId));
      cursor = page.cursor;
    } while (cursor !== undefined);
    return listed;
  };

  describe('filters on people', () => {
    it('filters by who answered, the answered outcome’s recipient', async () => {
      const answer = async (askId: string, n: number, write: (ask: StoredAsk) => AskWrite) =>
        applied(write(await started({ askId, createdAt: at(n), sessionId: 's-1' })));
      await answer('alice-1', 1, (ask) => answeredByWrite(ask, { recipient: 'alice' }));
      await answer('bob-2', 2, (ask) =>
        answeredByWrite(ask, { recipient: 'bob', channel: 'email' }),
      );
      // A redacted answer still says who gave it.
      await answer('alice-3', 3, (ask) =>
        answeredByWrite(ask, { recipient: 'alice', channel: 'web' }, true),
      );
      await answer('nobody-4', 4, answerWrite);
      await started({ askId: 'open-5', createdAt: at(5) });

      expect(await list({ answeredBy: 'alice' })).toEqual(['alice-3', 'alice-1']);
      expect(await list({ answeredBy: 'alice' }, 1)).toEqual(['alice-3', 'alice-1']);
      expect(await list({ answeredBy: 'bob', sessionId: 's-1', state: 'answered' })).toEqual([
        'bob-2',
      ]);
      expect(await list({ answeredBy: 'bob', sessionId: 's-2' })).toEqual([]);
      // A recipient is matched by the key of their id: no prefix, no channel.
      for (const other of ['ali', 'email', 'alice (web)']) {
        expect(await list({ answeredBy: other }), other).toEqual([]);
      }
      const [item] = (await context.store().list({ answeredBy: 'bob' })).items;
      expect(item?.outcome).toMatchObject({ answeredBy: { recipient: 'bob', channel: 'email' } });
    });

    it('finds a person recorded as given by any spelling of their id (case, composition, look-alike letters)', async () => {
      const store = context.store();
      await applied(
        answeredByWrite(await started({ askId: 'ana-1', createdAt: at(1) }), {
          recipient: 'Ana',
          channel: 'web',
        }),
      );
      await applied(
        answeredByWrite(await started({ askId: 'slack-2', createdAt: at(2) }), {
          recipient: 'U024BE7LH',
          channel: 'slack',
        }),
      );
      const told = await started({ askId: 'told-3', createdAt: at(3) });
      await store.append(notifiedEvent(told, 'Zoë'));

      for (const spelling of ['Ana', 'ana', 'ANA', '\u0410na', 'an\u03b1']) {
        expect(await list({ answeredBy: spelling }), spelling).toEqual(['ana-1']);
      }
      expect(await list({ answeredBy: 'u024be7lh' })).toEqual(['slack-2']);
      for (const spelling of ['Zoë', 'zoe\u0308', 'ZOË']) {
        expect(await list({ notified: spelling }), spelling).toEqual(['told-3']);
      }
      // Recorded as given: the platform's spelling is what a mention or a reply needs.
      expect((await store.get('ana-1'))?.outcome).toMatchObject({
        answeredBy: { recipient: 'Ana' },
      });
      expect((await store.get('slack-2'))?.outcome).toMatchObject({
        answeredBy: { recipient: 'U024BE7LH' },
      });
      const [notified] = (await collectEvents(store, 'told-3')).filter(
        (event) => event.type === 'notified',
      );
      expect(notified?.data).toMatchObject({ recipient: 'Zoë' });
    });

    it('finds the asks a notification reached a recipient about, each once, open or not', async () => {
      const store = context.store();
      const deferred = async (askId: string, n: number, outbox?: OutboxEntry[]) =>
        applied({
          ...deferWrite(await started({ askId, createdAt: at(n) }), `thread-${askId}`),
          ...(outbox === undefined ? {} : { outbox }),
        });
      const told = await deferred('told', 1);
      await store.append(notifiedEvent(told, 'alice'));
      // Told, then reminded: listed once.
      const reminded = await deferred('reminded', 2);
      await store.append(notifiedEvent(reminded, 'alice'));
      await store.append(notifiedEvent(reminded, 'alice', 'reminded'));
      // The event a sender writes as it marks its outbox entry done.
      const entry: OutboxEntry = {
        deliveryId: 'escalated/alice',
        askId: 'escalated',
        channel: 'email',
        due: at(3),
        payload: { to: 'alice' },
      };
      const escalated = await deferred('escalated', 3, [entry]);
      expect(
        await store.completeOutbox(
          entry.deliveryId,
          at(3) + 50,
          notifiedEvent(escalated, 'alice', 'escalated'),
        ),
      ).toBe(true);
      const pending = await started({ askId: 'pending-told', createdAt: at(4) });
      await store.append(notifiedEvent(pending, 'alice'));
      // Someone else's ask, and one alice was never told of.
      const bobs = await deferred('bobs', 5);
      await store.append(notifiedEvent(bobs, 'bob'));
      await store.append(lateAnswerEvent('bobs', at(5) + 20));
      await deferred('untold', 6);
      // Settled after alice was told: no longer open.
      const answered = await deferred('answered', 7);
      await store.append(notifiedEvent(answered, 'alice'));
      await applied(
        answeredByWrite((await store.get('answered')) as StoredAsk, { recipient: 'bob' }),
      );
      const timedOut = await deferred('timed-out', 8);
      await store.append(notifiedEvent(timedOut, 'alice'));
      await applied(timeoutWrite((await store.get('timed-out')) as StoredAsk, at(9)));

      const open = ['pending-told', 'escalated', 'reminded', 'told'];
      expect(await list({ notified: 'alice', state: [...OPEN] })).toEqual(open);
      expect(await list({ notified: 'alice', state: [...OPEN] }, 1)).toEqual(open);
      expect(await list({ notified: 'alice', state: 'deferred' })).toEqual(open.slice(1));
      expect(await list({ notified: 'alice' })).toEqual(['timed-out', 'answered', ...open]);
      expect(await list({ notified: 'alice', answeredBy: 'bob' })).toEqual(['answered']);
      expect(await list({ notified: 'bob', state: [...OPEN] })).toEqual(['bobs']);
      for (const other of ['ali', 'email', 'nobody']) {
        expect(await list({ notified: other }), other).toEqual([]);
      }
      // The rows listed are the asks themselves, as `list` returns them without a filter.
      const all = (await store.list({ state: [...OPEN] }, { limit: 100 })).items;
      expect((await store.list({ notified: 'alice', state: [...OPEN] })).items).toEqual(
        all.filter((ask) => open.includes(ask.askId)),
      );
    });

    it('refuses a recipient that is not a non-empty string, naming the filter', async () => {
      for (const [filter, field] of [
        [{ notified: '' }, 'notified'],
        [{ notified: 7 }, 'notified'],
        [{ answeredBy: '' }, 'answeredBy'],
        [{ answeredBy: { recipient: 'alice' } }, 'answeredBy'],
      ] as const) {
        await expect(context.store().list(filter as never), field).rejects.toMatchObject({
          code: 'INVALID_REQUEST',
          data: { field },
          message: expect.stringContaining(
            `Expected list filter \`${field}\` to be a non-empty string`,
          ),
        });
      }
    });
  });
}
