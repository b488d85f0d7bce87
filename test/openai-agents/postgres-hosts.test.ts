/**
 * An OpenAI Agents run across hosts on PostgreSQL: one host stops for approvals and closes, a
 * second host answers them, and of two hosts waiting to continue the run from the state kept in
 * the schema, one does (it claimed the round) and the other is told so. Each host has its own
 * store (its own connections) on the same schema.
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
import { decide, done, type Janitor, janitor, removes } from './janitor.js';

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
    it('stops on one host, is answered on another and continues on one of two waiting, from the schema', async () => {
      const first = host();
      const interrupted = janitor([removes('/tmp/a', '/tmp/b')]);
      const round = await askRunApprovals(first.service, await run(interrupted.agent, 'clean up'), {
        runId: 'job-pg',
        always: { reject: ['remove_file'] },
      });
      await first.close();
      if (round.status !== 'waiting') throw new Error('expected a waiting run');

      // Two hosts wait to continue the run (two workers woken for one job).
      const third = host();
      const fourth = host();
      const resumers = [janitor([done]), janitor([done])];
      const resumed = Promise.all(
        [third, fourth].map((each, index) =>
          resumeRunApprovals(
            each.service,
            (resumers[index] as Janitor).agent,
            round.askIds[index] as string,
          ),
        ),
      );

      const second = host();
      for (const [index, askId] of round.askIds.entries()) {
        const ask = await second.service.get(askId);
        await second.service.answer(
          askId,
          decide({ questions: ask?.questions ?? [] }, index === 0),
        );
      }
      await second.close();

      // One of them claimed the round in the schema; the other is told who holds it.
      const rounds = await resumed;
      const decided = rounds.findIndex((each) => each.status === 'decided');
      const winner = rounds[decided];
      const loser = rounds[1 - decided];
      if (winner?.status !== 'decided' || loser?.status !== 'claimed') {
        throw new Error(
          `expected one decided round and one claimed, got ${JSON.stringify(rounds)}`,
        );
      }
      expect(loser.claim).toMatchObject({ status: 'held', holder: winner.claim.holder });
      expect(winner.claim.holder).toContain([third, fourth][decided]?.service.id);
      const { state, decisions, claim } = winner;
      expect(decisions.map(({ applied, sticky }) => [applied, sticky ?? false])).toEqual([
        ['approve', false],
        ['reject', true],
      ]);
      const resumer = resumers[decided] as Janitor;
      const finished = await run(resumer.agent, state, { signal: claim.signal });
      await claim.finish();
      expect(finished.finalOutput).toBe('done');
      // The approved call ran once, on the host that holds the round.
      expect(resumer.removed).toEqual(['/tmp/a']);
      expect((resumers[1 - decided] as Janitor).removed).toEqual([]);
      expect(interrupted.removed).toEqual([]);
      // Finished: no host ever continues this round again.
      const late = await resumeRunApprovals(
        fourth.service,
        janitor([done]).agent,
        round.askIds[1] as string,
      );
      expect(late).toMatchObject({
        status: 'claimed',
        claim: { status: 'done', holder: claim.holder },
      });
      await third.close();
      await fourth.close();
    }, 60_000);
  },
);
