/**
 * Quorum asks under races (issue 18, "exactly once"): for each ask, every person of `from`
 * responds at the same instant through one of two hosts sharing the store, some twice (once on
 * each host), some picking the veto, in a seeded random order. Each ask must end with exactly
 * one transition into a final state, every person's response recorded exactly once (their
 * second refused as a duplicate), the outcome's responses matching the history, and each
 * caller told the truth (a receipt, or a refusal that is a duplicate or a settled ask). On the
 * memory store, SQLite (a connection per host) and PostgreSQL (a pool per host).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPostgresAskStore } from 'ask-engine/postgres';
import { createSqliteAskStore } from 'ask-engine/sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AskAuditEvent,
  type AskStore,
  createInteractionService,
  createMemoryAskStore,
  isUserInteractionError,
} from '../../src/index.js';
import {
  type PostgresCluster,
  postgresMissing,
  startPostgresCluster,
} from '../support/postgres-cluster.js';
import { manualProvider } from './helpers.js';
import { mulberry32 } from './store-races.js';

const dir = mkdtempSync(join(tmpdir(), 'ask-quorum-races-'));
let cluster: PostgresCluster | undefined;
let files = 0;
let schemas = 0;

beforeAll(async () => {
  if (postgresMissing === undefined) cluster = await startPostgresCluster();
}, 60_000);
afterAll(async () => {
  await cluster?.destroy();
  rmSync(dir, { recursive: true, force: true });
});

type Pair = () => [AskStore, AskStore];
const pairs: [string, Pair][] = [
  [
    'memory',
    () => {
      // One store for both hosts (closed once, after both).
      const store = createMemoryAskStore();
      return [store, store];
    },
  ],
  [
    'SQLite',
    () => {
      const path = join(dir, `quorum-${++files}.db`);
      const open = () =>
        createSqliteAskStore({ path }, { synchronous: 'normal', pollIntervalMs: 5 });
      return [open(), open()];
    },
  ],
];
if (postgresMissing === undefined || process.env.CI) {
  pairs.push([
    'PostgreSQL',
    () => {
      const schema = `quorum_races_${++schemas}`;
      const open = () =>
        createPostgresAskStore({ connectionString: cluster!.url }, { schema, max: 4 });
      return [open(), open()];
    },
  ]);
}

const FINAL = new Set(['answered', 'cancelled', 'timedOut', 'aborted']);
const people = ['ana', 'ben', 'cy', 'dee', 'eli'];
const request = { question: 'Release the wire transfer?', options: ['Approve', 'Reject', 'Deny'] };
const pick = (title: string) => [
  { questionId: 'q1', response: { kind: 'selection' as const, selections: [title] } },
];

describe.each(pairs)('quorum responses racing on two hosts (%s store)', (_name, pair) => {
  it.each([1, 2, 3])(
    'gives each ask one outcome and records every response once (seed %i)',
    async (seed) => {
      const random = mulberry32(seed);
      const stores = pair();
      const hosts = stores.map((store) => {
        const service = createInteractionService({ store });
        service.registerProvider(manualProvider());
        return service;
      });
      try {
        for (let ask = 0; ask < 8; ask++) {
          const required = 2 + Math.floor(random() * 3);
          const quorum = {
            required,
            from: people,
            agree: random() < 0.5 ? 'same' : 'any',
            veto: ['Deny'],
          } as const;
          const handle = hosts[0]!.start(request, { quorum });
          await handle.stored;
          // Everyone at once, in a random order; some twice (the second on the other host).
          const attempts = people.flatMap((by) => {
            const title = random() < 0.1 ? 'Deny' : random() < 0.7 ? 'Approve' : 'Reject';
            const host = Math.floor(random() * 2);
            const once = [{ by, title, host }];
            return random() < 0.3 ? [...once, { by, title: 'Approve', host: 1 - host }] : once;
          });
          attempts.sort(() => random() - 0.5);
          const told = await Promise.all(
            attempts.map(({ by, title, host }) =>
              hosts[host]!.respond(handle.id, pick(title), { by: { recipient: by } }).then(
                (receipt) => ({ by, receipt, error: undefined }),
                (error: unknown) => ({ by, receipt: undefined, error }),
              ),
            ),
          );
          const history: AskAuditEvent[] = [];
          for await (const event of hosts[1]!.history(handle.id)) history.push(event);
          const finals = history.filter(
            (event) => event.from !== null && !FINAL.has(event.from) && FINAL.has(event.to),
          );
          expect(finals, JSON.stringify(history)).toHaveLength(1);
          const recorded = history.filter((event) => event.type === 'response.recorded');
          const counted = recorded.map((event) => (event.data as { by: string }).by);
          expect(new Set(counted).size, JSON.stringify(history)).toBe(counted.length);
          const stored = await hosts[1]!.get(handle.id);
          expect(stored?.final).toBe(true);
          const outcome = stored!.outcome!;
          const responses = 'responses' in outcome ? (outcome.responses ?? []) : [];
          // The outcome holds exactly the responses the history counted, in order.
          expect(responses.map((response) => response.by)).toEqual(counted);
          expect(await handle.outcome).toEqual(outcome);
          for (const { by, receipt, error } of told) {
            if (receipt !== undefined) {
              expect(counted).toContain(by);
              continue;
            }
            const duplicate =
              isUserInteractionError(error, 'INVALID_REQUEST') &&
              (error.data as { reason?: string }).reason === 'duplicate';
            expect(duplicate || isUserInteractionError(error, 'ASK_SETTLED'), String(error)).toBe(
              true,
            );
          }
          // Each decision is one of the machine's: a veto, an agreed quorum, or none possible.
          if (outcome.status === 'answered' && outcome.vetoedBy === undefined) {
            expect(responses.length).toBeGreaterThanOrEqual(required);
          }
          if (outcome.status === 'cancelled') expect(outcome.reason).toBe('no-quorum');
        }
      } finally {
        for (const host of hosts) await host.close();
        for (const store of new Set(stores)) await store.close();
      }
    },
  );
});
