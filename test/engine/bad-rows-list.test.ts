/**
 * One stored row that fails its check does not hide the others: `service.list` lists the rest,
 * reports the bad one through `onError` and names it in the page's `unreadable`, and `/asks`
 * shows it as a marked row. In SQLite and PostgreSQL, with a row edited by hand.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AskStore, createInteractionService } from 'ask-engine';
import { createPostgresAskStore } from 'ask-engine/postgres';
import { createSqliteAskStore } from 'ask-engine/sqlite';
import Database from 'better-sqlite3';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type PostgresCluster,
  postgresMissing,
  startPostgresCluster,
} from '../support/postgres-cluster.js';
import { OPERATOR_TOKEN, startAnswerApp } from '../web/web-fixture.js';

const dir = mkdtempSync(join(tmpdir(), 'ask-bad-rows-'));
let cluster: PostgresCluster | undefined;
let admin: postgres.Sql | undefined;

beforeAll(async () => {
  if (postgresMissing !== undefined) return;
  cluster = await startPostgresCluster();
  admin = postgres(cluster.url, { onnotice: () => {} });
});
afterAll(async () => {
  await admin?.end();
  await cluster?.destroy();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * A store, and how to break one of its rows by hand: its outcome (the row then fails the
 * service's check) or its questions column (the store cannot read the row).
 */
interface Target {
  store(): AskStore;
  breakOutcome(askId: string): Promise<void>;
  breakQuestions(askId: string): Promise<void>;
}

const targets: [string, () => Target][] = [
  [
    'SQLite',
    () => {
      const path = join(dir, `asks-${Math.random().toString(36).slice(2)}.db`);
      return {
        store: () => createSqliteAskStore({ path }),
        async breakOutcome(askId) {
          const db = new Database(path);
          db.prepare(`UPDATE asks SET outcome = '{"status":"answered"}' WHERE id = ?`).run(askId);
          db.close();
        },
        async breakQuestions(askId) {
          const db = new Database(path);
          db.prepare(`UPDATE asks SET questions = '{}' WHERE id = ?`).run(askId);
          db.close();
        },
      };
    },
  ],
];
if (postgresMissing === undefined) {
  targets.push([
    'PostgreSQL',
    () => {
      const schema = `bad_list_${Math.random().toString(36).slice(2)}`;
      return {
        store: () => createPostgresAskStore({ connectionString: cluster!.url }, { schema, max: 2 }),
        async breakOutcome(askId) {
          await admin!.unsafe(
            `update "${schema}".asks set outcome = '{"status":"answered"}' where id = $1`,
            [askId],
          );
        },
        async breakQuestions(askId) {
          await admin!.unsafe(
            `update "${schema}".asks set questions = '{"not": "a list"}' where id = $1`,
            [askId],
          );
        },
      };
    },
  ]);
}

const ship = (n: number) => ({ question: `Ship build ${n}?`, options: ['Yes', 'No'] });
const yes = [{ questionId: 'q1', response: { kind: 'selection' as const, selections: ['Yes'] } }];

describe.each(targets)('a row that fails its check, in %s', (_name, make) => {
  it('is left out of service.list, reported through onError and named; the others are listed', async () => {
    const target = make();
    const store = target.store();
    const errors: unknown[] = [];
    const service = createInteractionService({ store, onError: (error) => errors.push(error) });
    service.registerProvider({ ask: () => new Promise(() => undefined) });
    const ids: string[] = [];
    for (let n = 1; n <= 3; n++) {
      const handle = service.start(ship(n));
      await handle.stored;
      await service.answer(handle.id, yes);
      ids.push(handle.id);
    }
    const [first, broken, last] = ids as [string, string, string];
    await target.breakOutcome(broken);

    const page = await service.list();
    expect(page.items.map((ask) => ask.askId)).toEqual([last, first]);
    expect(page.unreadable).toEqual([
      { askId: broken, problem: expect.stringContaining(`for ask "${broken}"`) },
    ]);
    expect(errors).toEqual([expect.objectContaining({ code: 'INVALID_REQUEST' })]);
    expect((errors[0] as Error).message).toBe(page.unreadable?.[0]?.problem);

    // The operator's /asks lists the others and marks the bad row, instead of a 400.
    const reported: unknown[] = [];
    const web = startAnswerApp({ store, service: { onError: (error) => reported.push(error) } });
    const response = await web.request(`asks?token=${OPERATOR_TOKEN}`);
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain(`<tr class="unreadable" data-ask="${broken}">`);
    for (const askId of [first, last]) expect(html).toContain(`<tr data-ask="${askId}">`);
    expect(reported).toHaveLength(1);
    await web.close();
    await service.close();
    await store.close();
  });

  it('lists the others when the store cannot read one row, and names that one', async () => {
    const target = make();
    const store = target.store();
    const errors: unknown[] = [];
    const service = createInteractionService({ store, onError: (error) => errors.push(error) });
    service.registerProvider({ ask: () => new Promise(() => undefined) });
    const ids: string[] = [];
    for (let n = 1; n <= 3; n++) {
      const handle = service.start(ship(n));
      await handle.stored;
      ids.push(handle.id);
    }
    const [first, broken, last] = ids as [string, string, string];
    await target.breakQuestions(broken);
    // A page of two ends at the broken row: the next page starts after it.
    const page = await service.list({}, { limit: 2 });
    expect(page.items.map((ask) => ask.askId)).toEqual([last]);
    expect(page.unreadable).toEqual([
      { askId: broken, problem: expect.stringContaining('corrupt "questions" column') },
    ]);
    expect(errors).toHaveLength(1);
    const next = await service.list({}, { limit: 2, cursor: page.cursor });
    expect(next.items.map((ask) => ask.askId)).toEqual([first]);
    expect(next.unreadable).toBeUndefined();
    await service.close();
    await store.close();
  });
});
