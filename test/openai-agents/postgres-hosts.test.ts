/**
 * An OpenAI Agents run across hosts on PostgreSQL: one host stops for approvals and closes, a
 * second host answers them, a third continues the run from the state kept in the schema. Each
 * host has its own store (its own connections) on the same schema.
 */
import { run } from '@openai/agents';
import { type AskProvider, createInteractionService, type InteractionService } from 'ask-engine';
import { askRunApprovals, resumeRunApprovals } from 'ask-engine/openai-agents';
import { createPostgresAskStore } from 'ask-engine/postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type PostgresCluster,
  postgresMissing,
  startPostgresCluster,
} from '../support/postgres-cluster.js';
import { decide, done, janitor, removes } from './janitor.js';

let cluster: PostgresCluster | undefined;
beforeAll(async () => {
  if (postgresMissing === undefined) cluster = await startPostgresCluster();
}, 60_000);
afterAll(async () => {
  await cluster?.destroy();
});

const linkProvider: AskProvider = {
  ask: async (_request, ctx) => ({ status: 'deferred', interactionId: `link-${ctx.askId}` }),
};

/** A host: a service on its own store over the shared schema. */
function host(): { service: InteractionService; close(): Promise<void> } {
  const store = createPostgresAskStore(
    { connectionString: (cluster as PostgresCluster).url },
    { schema: 'openai_agents', max: 2 },
  );
  const service = createInteractionService({ store, retention: false });
  service.registerProvider(linkProvider);
  return {
    service,
    close: async () => {
      await service.close();
      await store.close();
    },
  };
}

describe.skipIf(postgresMissing !== undefined)(
  `an OpenAI Agents run across PostgreSQL hosts${postgresMissing ?? ''}`,
  () => {
    it('stops on one host, is answered on another and continues on a third, from the schema', async () => {
      const first = host();
      const interrupted = janitor([removes('/tmp/a', '/tmp/b')]);
      const round = await askRunApprovals(first.service, await run(interrupted.agent, 'clean up'), {
        runId: 'job-pg',
        always: { reject: ['remove_file'] },
      });
      await first.close();
      if (round.status !== 'waiting') throw new Error('expected a waiting run');

      const third = host();
      const resumer = janitor([done]);
      const resumed = resumeRunApprovals(third.service, resumer.agent, round.askIds[0] as string);

      const second = host();
      for (const [index, askId] of round.askIds.entries()) {
        const ask = await second.service.get(askId);
        await second.service.answer(
          askId,
          decide({ questions: ask?.questions ?? [] }, index === 0),
        );
      }
      await second.close();

      const { state, decisions } = await resumed;
      expect(decisions.map(({ applied, sticky }) => [applied, sticky ?? false])).toEqual([
        ['approve', false],
        ['reject', true],
      ]);
      const finished = await run(resumer.agent, state);
      expect(finished.finalOutput).toBe('done');
      expect(resumer.removed).toEqual(['/tmp/a']);
      expect(interrupted.removed).toEqual([]);
      await third.close();
    }, 60_000);
  },
);
