/** A row someone tampered with or broke in PostgreSQL is refused with a clear error, never used. */
import { createInteractionService } from 'ask-engine';
import { createPostgresAskStore } from 'ask-engine/postgres';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type PostgresCluster,
  postgresMissing,
  startPostgresCluster,
} from '../support/postgres-cluster.js';

let cluster: PostgresCluster;
let admin: postgres.Sql;
const closing: { close(): Promise<unknown> }[] = [];
const ANSWERS = [
  { questionId: 'q1', response: { kind: 'selection' as const, selections: ['Yes'] } },
];

/** A service with a provider that defers every ask, and the id of one deferred ask. */
async function deferredAsk(schema: string) {
  const store = createPostgresAskStore({ connectionString: cluster.url }, { schema, max: 2 });
  const service = createInteractionService({ store, sweepIntervalMs: Number.POSITIVE_INFINITY });
  closing.push(store, service);
  service.registerProvider({
    ask: async (_request, ctx) => ({ status: 'deferred', interactionId: `i-${ctx.askId}` }),
  });
  const handle = service.start({ question: 'Ship it?', options: ['Yes', 'No'] });
  expect(await handle.outcome).toMatchObject({ status: 'deferred' });
  return { service, askId: handle.id };
}

describe.skipIf(postgresMissing !== undefined)(
  `bad rows in PostgreSQL${postgresMissing ? ` (skipped: ${postgresMissing})` : ''}`,
  () => {
    beforeAll(async () => {
      cluster = await startPostgresCluster();
      admin = postgres(cluster.url, { onnotice: () => {} });
    });
    afterAll(async () => {
      for (const each of closing.reverse()) await each.close();
      await admin?.end();
      await cluster?.destroy();
    });

    it('refuses a column that does not parse, naming the ask and the column', async () => {
      const { service, askId } = await deferredAsk('broken');
      await admin`update broken.asks set questions = '{"not": "a list"}' where id = ${askId}`;
      const refusal = `Ask ${askId} in the PostgreSQL store has a corrupt "questions" column`;
      await expect(service.get(askId)).rejects.toThrow(refusal);
      await expect(service.resume(`i-${askId}`, ANSWERS)).rejects.toThrow(refusal);
      await expect(service.answer(askId, ANSWERS)).rejects.toThrow(refusal);
      const [row] = await admin`select state, version from broken.asks where id = ${askId}`;
      expect(row).toEqual({ state: 'deferred', version: 2 });
    });

    it('refuses a row whose state was edited by hand to contradict its snapshot', async () => {
      const { service, askId } = await deferredAsk('tampered');
      await admin`update tampered.asks set state = 'answered' where id = ${askId}`;
      await expect(service.resume(`i-${askId}`, ANSWERS)).rejects.toThrow(
        `Refused the stored ask for ask "${askId}": its state "answered" differs from its snapshot's "deferred".`,
      );
      const events =
        await admin`select type from tampered.ask_events where ask_id = ${askId} order by id`;
      expect(events.map((event) => event.type)).toEqual(['start', 'provider.deferred']);
    });

    it('leaves a history event that does not parse out, reports it, and reads the rest', async () => {
      const errors: unknown[] = [];
      const store = createPostgresAskStore(
        { connectionString: cluster.url },
        { schema: 'history', max: 2, onError: (error) => errors.push(error) },
      );
      const service = createInteractionService({
        store,
        sweepIntervalMs: Number.POSITIVE_INFINITY,
      });
      closing.push(store, service);
      service.registerProvider({
        ask: async (_request, ctx) => ({ status: 'deferred', interactionId: `i-${ctx.askId}` }),
      });
      const handle = service.start({ question: 'Ship it?', options: ['Yes', 'No'] });
      await handle.outcome;
      const askId = handle.id;
      await admin`update history.ask_events set to_state = 'maybe' where ask_id = ${askId} and type = 'start'`;
      const types: string[] = [];
      for await (const event of service.history(askId)) types.push(event.type);
      expect(types).toEqual(['provider.deferred']);
      expect(errors.map((error) => (error as Error).message)).toEqual([
        `Ask ${askId} in the PostgreSQL store has a corrupt "ask_events.to_state" column (not an ask state, got "maybe"); it was not used. Repair or delete the row.`,
      ]);
    });
  },
);
