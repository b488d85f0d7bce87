/**
 * Who answered survives the store: a service answers with `by`, another service over its own
 * connection to the same data reads the outcome and the audit event back through the stored-row
 * checks, in memory, SQLite and PostgreSQL, redacting or not. A row whose answeredBy was
 * tampered with is refused.
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
  type StoredAsk,
} from '../../src/index.js';
import {
  type PostgresCluster,
  postgresMissing,
  startPostgresCluster,
} from '../support/postgres-cluster.js';
import { manualProvider } from './helpers.js';

const text = (typed: string) => [
  { questionId: 'q1', response: { kind: 'freeform' as const, text: typed } },
];
// Recorded as given, on every store.
const by = { recipient: 'zoë <zoe@example.com>', channel: 'email' };

const dir = mkdtempSync(join(tmpdir(), 'ask-answered-by-'));
let cluster: PostgresCluster | undefined;
let files = 0;
let schemas = 0;

beforeAll(async () => {
  if (postgresMissing === undefined) cluster = await startPostgresCluster();
});
afterAll(async () => {
  await cluster?.destroy();
  rmSync(dir, { recursive: true, force: true });
});

/** Two stores over the same fresh data: the asking service's and another host's. */
type Pair = () => [AskStore, AskStore];
const pairs: [string, Pair][] = [
  [
    'memory',
    () => {
      const store = createMemoryAskStore();
      return [store, store];
    },
  ],
  [
    'SQLite',
    () => {
      const path = join(dir, `asks-${++files}.db`);
      return [createSqliteAskStore({ path }), createSqliteAskStore({ path })];
    },
  ],
];
if (postgresMissing === undefined) {
  pairs.push([
    'PostgreSQL',
    () => {
      const schema = `answered_by_${++schemas}`;
      const open = () =>
        createPostgresAskStore({ connectionString: cluster!.url }, { schema, max: 2 });
      return [open(), open()];
    },
  ]);
}

async function historyOf(
  service: { history(id: string): AsyncIterable<AskAuditEvent> },
  id: string,
) {
  const events: AskAuditEvent[] = [];
  for await (const event of service.history(id)) events.push(event);
  return events;
}

describe.each(pairs)('answeredBy in the %s store', (_name, pair) => {
  it.each([false, true])(
    'comes back in the outcome and the answer event (redact: %s)',
    async (redact) => {
      const [mine, theirs] = pair();
      const asking = createInteractionService({ store: mine, redact });
      asking.registerProvider(manualProvider());
      const other = createInteractionService({ store: theirs });
      const typed = `typed-secret-${redact}`;
      try {
        const handle = asking.start({ question: 'Which account?' });
        await handle.stored;
        expect(await other.answer(handle.id, text(typed), { by })).toEqual({
          status: 'answered',
          answers: text(typed),
          answeredBy: by,
        });
        expect(await handle.outcome).toMatchObject({ answeredBy: by });
        // Read back through the stored-row checks, by a host that did not write it.
        const reader = createInteractionService({ store: theirs });
        expect((await reader.get(handle.id))?.outcome).toEqual({
          status: 'answered',
          answers: text(typed),
          answeredBy: by,
        });
        const events = await historyOf(reader, handle.id);
        expect(events.at(-1)).toMatchObject({
          type: 'answer',
          data: { answers: redact ? '[redacted]' : text(typed), answeredBy: by },
        });
        if (redact) expect(JSON.stringify(events)).not.toContain(typed);
        await reader.close();
      } finally {
        await asking.close();
        await other.close();
        await mine.close();
        if (theirs !== mine) await theirs.close();
      }
    },
  );
});

describe('a stored answeredBy that was tampered with', () => {
  it.each([
    // The row's check names where the row is wrong: the field inside the outcome.
    [{ recipient: '' }, /\/outcome\/answeredBy\/recipient /],
    [{ recipient: 'alice', role: 'admin' }, /\/outcome\/answeredBy\/role /],
  ])('is refused when read (%j)', async (tampered, message) => {
    const store = createMemoryAskStore();
    const service = createInteractionService({ store });
    service.registerProvider(manualProvider());
    const handle = service.start({ question: 'Which account?' });
    await service.answer(handle.id, text('x'), { by });
    const row = structuredClone((await store.get(handle.id)) as StoredAsk);
    const outcome = { ...(row.outcome as object), answeredBy: tampered } as unknown as NonNullable<
      StoredAsk['outcome']
    >;
    const bad: StoredAsk = {
      ...row,
      version: row.version + 1,
      outcome,
      snapshot: { ...row.snapshot, context: { ...(row.snapshot.context as object), outcome } },
    };
    await store.update(
      {
        ask: bad,
        event: {
          askId: handle.id,
          type: 'late-answer',
          at: 0,
          from: 'answered',
          to: 'answered',
          data: { source: 'answer' },
        },
      },
      row.version,
    );
    const error = await service.get(handle.id).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'INVALID_REQUEST' });
    expect((error as Error).message).toMatch(message);
    await service.close();
  });
});
