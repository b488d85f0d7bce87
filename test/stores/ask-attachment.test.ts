/**
 * `start`'s `attachment` on every store, through the service: kept with the ask at create,
 * read back by `service.get` on any service sharing the store, unchanged by the ask's
 * transitions and by a second start under its key, left out of `list`, and checked where it
 * is written.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AskAttachment,
  type AskProvider,
  type AskStore,
  createInteractionService,
  createMemoryAskStore,
  type InteractionService,
  isUserInteractionError,
  MAX_ATTACHMENT_BYTES,
} from 'ask-engine';
import { createPostgresAskStore } from 'ask-engine/postgres';
import { createSqliteAskStore } from 'ask-engine/sqlite';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type PostgresCluster,
  postgresMissing,
  startPostgresCluster,
} from '../support/postgres-cluster.js';

const request = { questions: [{ question: 'Run it?', options: ['Yes', 'No'] }] };
const yes = [{ questionId: 'q1', response: { kind: 'selection' as const, selections: ['Yes'] } }];
const attachment: AskAttachment = {
  kind: 'test.saved-run',
  version: '1.0',
  data: JSON.stringify({ turn: 3, note: 'Zürich ✓' }),
};

/** A provider that hands every ask elsewhere, so it waits in the store for an answer. */
const deferring: AskProvider = {
  ask: async (_request, ctx) => ({ status: 'deferred', interactionId: `link-${ctx.askId}` }),
};

/** A provider that keeps every ask pending until it leaves `pending`. */
const waiting: AskProvider = {
  ask: (_request, ctx) =>
    new Promise((_resolve, reject) => {
      ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true });
    }),
};

interface StoreTarget {
  name: string;
  skip?: string;
  /** Two stores over the same empty data: two hosts. */
  pair(): Promise<[AskStore, AskStore]>;
}

let cluster: PostgresCluster | undefined;
let schemas = 0;
const dirs: string[] = [];

const targets: StoreTarget[] = [
  {
    name: 'the memory store',
    pair: async () => {
      const store = createMemoryAskStore();
      return [store, store];
    },
  },
  {
    name: 'the SQLite store',
    pair: async () => {
      const dir = mkdtempSync(join(tmpdir(), 'ask-engine-attachment-'));
      dirs.push(dir);
      const path = join(dir, 'asks.db');
      return [
        createSqliteAskStore({ path }, { pollIntervalMs: 5 }),
        createSqliteAskStore({ path }, { pollIntervalMs: 5 }),
      ];
    },
  },
  {
    name: 'the PostgreSQL store',
    ...(postgresMissing === undefined ? {} : { skip: postgresMissing }),
    pair: async () => {
      const schema = `attachment${++schemas}`;
      const url = (cluster as PostgresCluster).url;
      return [
        createPostgresAskStore({ connectionString: url }, { schema, max: 2 }),
        createPostgresAskStore({ connectionString: url }, { schema, max: 2 }),
      ];
    },
  },
];

beforeAll(async () => {
  if (postgresMissing === undefined) cluster = await startPostgresCluster();
}, 60_000);

afterAll(async () => {
  await cluster?.destroy();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const services: InteractionService[] = [];
afterEach(async () => {
  await Promise.all(services.splice(0).map((service) => service.close()));
});

async function hosts(
  target: StoreTarget,
  provider = deferring,
): Promise<[InteractionService, InteractionService]> {
  const [storeA, storeB] = await target.pair();
  const a = createInteractionService({ store: storeA, retention: false });
  const b = createInteractionService({ store: storeB, retention: false });
  a.registerProvider(provider);
  b.registerProvider(provider);
  services.push(a, b);
  return [a, b];
}

for (const target of targets) {
  describe.skipIf(target.skip !== undefined)(`${target.name}${target.skip ?? ''}`, () => {
    it('keeps the attachment with the ask: another host reads it before and after the ask settles', async () => {
      const [a, b] = await hosts(target);
      const handle = a.start(request, { key: 'run-1:call-1', attachment });
      await handle.stored;
      expect((await b.get(handle.id))?.attachment).toEqual(attachment);

      await b.answer(handle.id, yes);
      const settled = await a.get(handle.id);
      expect(settled?.state).toBe('answered');
      expect(settled?.attachment).toEqual(attachment);
    });

    it('keeps the first attachment when a second start names the same key', async () => {
      // Pending: the second start holds the ask while it waits, and writes the answer from it.
      const [a, b] = await hosts(target, waiting);
      const first = a.start(request, { key: 'run-2:call-1', attachment });
      await first.stored;
      const again = b.start(request, {
        key: 'run-2:call-1',
        attachment: { ...attachment, data: 'another run state' },
      });
      await again.stored;
      expect(again.id).toBe(first.id);
      // The host that attached writes the answer: its write keeps the stored attachment.
      await b.answer(first.id, yes);
      expect((await a.get(first.id))?.attachment).toEqual(attachment);
    });

    it('leaves the attachment out of list, and an ask without one has none', async () => {
      const [a] = await hosts(target);
      const withIt = a.start(request, { attachment });
      const without = a.start(request);
      await Promise.all([withIt.stored, without.stored]);
      const { items } = await a.list({});
      expect(items.map((item) => item.askId).sort()).toEqual([withIt.id, without.id].sort());
      for (const item of items) expect(item).not.toHaveProperty('attachment');
      expect(await a.get(without.id)).not.toHaveProperty('attachment');
    });
  });
}

describe('an attachment is checked where it is written', () => {
  const service = createInteractionService({ retention: false });
  service.registerProvider(deferring);
  afterAll(() => service.close());

  const refusal = (value: unknown): unknown => {
    try {
      service.start(request, { attachment: value as AskAttachment });
    } catch (error) {
      return error;
    }
    throw new Error('the attachment was not refused');
  };

  it('refuses data over MAX_ATTACHMENT_BYTES, naming the limit and the fix', () => {
    const error = refusal({ ...attachment, data: 'é'.repeat(MAX_ATTACHMENT_BYTES / 2 + 1) });
    expect(isUserInteractionError(error, 'LIMIT_EXCEEDED')).toBe(true);
    expect((error as Error).message).toMatch(
      new RegExp(`attachment\\.data.*${MAX_ATTACHMENT_BYTES + 2} bytes.*MAX_ATTACHMENT_BYTES`),
    );
  });

  it('accepts data of exactly MAX_ATTACHMENT_BYTES', async () => {
    const data = 'x'.repeat(MAX_ATTACHMENT_BYTES);
    const handle = service.start(request, { attachment: { ...attachment, data } });
    await handle.stored;
    expect((await service.get(handle.id))?.attachment?.data.length).toBe(MAX_ATTACHMENT_BYTES);
  });

  it.each([
    ['a string', 'state', /`attachment` to be an object \{ kind, version, data \}/],
    ['an empty kind', { ...attachment, kind: '' }, /`attachment\.kind` to be a non-empty string/],
    ['a version of 257 characters', { ...attachment, version: 'v'.repeat(257) }, /at most 256/],
    [
      'data that is not text',
      { ...attachment, data: { turn: 3 } },
      /`attachment\.data` to be a string/,
    ],
    ['another property', { ...attachment, extra: 1 }, /it has `extra`/],
    [
      'a NUL in the data',
      { ...attachment, data: 'a\u0000b' },
      /`attachment\.data` holds the character U\+0000/,
    ],
  ])('refuses %s with INVALID_REQUEST naming the field', (_name, value, message) => {
    const error = refusal(value);
    expect(isUserInteractionError(error, 'INVALID_REQUEST')).toBe(true);
    expect((error as Error).message).toMatch(message);
  });
});
