/**
 * A round of an OpenAI Agents run is continued once, whichever hosts resume it: the round is
 * claimed in the store before it is handed back decided, held while the run goes on, given
 * back by `release()`, never again after `finish()`, and the claim's signal aborts when the
 * claim is lost (its renewals failed until its lease ran out), so the run stops then and another
 * host may continue it. Real SDK, ScriptedModel, the memory store shared by the services.
 */
import { run } from '@openai/agents';
import {
  type AskProvider,
  type AskStore,
  createInteractionService,
  createMemoryAskStore,
  type InteractionService,
} from 'ask-engine';
import { askRunApprovals, resumeRunApprovals } from 'ask-engine/openai-agents';
import { afterEach, describe, expect, it } from 'vitest';
import { ASK_STORE_METHODS } from '../../src/stores/store-ports.js';
import { decide, done, janitor, removes } from './janitor.js';

const services: InteractionService[] = [];
afterEach(async () => {
  await Promise.all(services.splice(0).map((service) => service.close()));
});

const linkProvider: AskProvider = {
  ask: async (_request, ctx) => ({ status: 'deferred', interactionId: `link-${ctx.askId}` }),
};

function host(store: AskStore): InteractionService {
  const service = createInteractionService({ store, retention: false });
  service.registerProvider(linkProvider);
  services.push(service);
  return service;
}

/** A run stopped for one approval on `store`, approved on the link: its ask id. */
async function approvedRun(store: AskStore, runId: string): Promise<string> {
  const first = host(store);
  const round = await askRunApprovals(first, await run(janitor([removes('/tmp/a')]).agent, 'go'), {
    runId,
  });
  if (round.status !== 'waiting') throw new Error('expected a waiting run');
  const [askId = ''] = round.askIds;
  const ask = await first.get(askId);
  await first.answer(askId, decide({ questions: ask?.questions ?? [] }, true));
  return askId;
}

describe('a round resumed by several hosts', () => {
  it('is decided on one host; the others are told who holds it until when, then that it was done', async () => {
    const store = createMemoryAskStore();
    const askId = await approvedRun(store, 'job-once');
    const [a, b] = [janitor([done]), janitor([done])];
    const [first, second] = await Promise.all([
      resumeRunApprovals(host(store), a.agent, askId),
      resumeRunApprovals(host(store), b.agent, askId),
    ]);
    if (first?.status !== 'decided') throw new Error('expected the first host to hold the round');
    expect(second).toMatchObject({
      status: 'claimed',
      runId: 'job-once',
      askIds: [askId],
      claim: { status: 'held', holder: first.claim.holder },
    });
    const until = (second as { claim: { until: number } }).claim.until;
    expect(until).toBeGreaterThan(Date.now());

    const finished = await run(a.agent, first.state, { signal: first.claim.signal });
    await first.claim.finish();
    expect(finished.finalOutput).toBe('done');
    expect([a.removed, b.removed]).toEqual([['/tmp/a'], []]);
    expect(await resumeRunApprovals(host(store), b.agent, askId)).toMatchObject({
      status: 'claimed',
      claim: { status: 'done', holder: first.claim.holder },
    });
  });

  it('is given to another host once released undone', async () => {
    const store = createMemoryAskStore();
    const askId = await approvedRun(store, 'job-release');
    const first = await resumeRunApprovals(host(store), janitor([done]).agent, askId);
    if (first.status !== 'decided') throw new Error('expected decisions');
    await first.claim.release();

    const later = janitor([done]);
    const second = await resumeRunApprovals(host(store), later.agent, askId);
    if (second.status !== 'decided') throw new Error('expected the released round to be decided');
    await run(later.agent, second.state, { signal: second.claim.signal });
    await second.claim.finish();
    expect(later.removed).toEqual(['/tmp/a']);
  });

  it('aborts the claim’s signal when its renewals fail until its lease runs out, and another host may then continue', async () => {
    const shared = createMemoryAskStore();
    // This host's store cannot reach the database for renewals (everything else works).
    const cut = Object.fromEntries(
      ASK_STORE_METHODS.map((method) => [method, shared[method].bind(shared)]),
    ) as unknown as AskStore;
    cut.renewWork = async () => {
      throw new Error('connection refused');
    };
    const askId = await approvedRun(shared, 'job-lost');
    const first = await resumeRunApprovals(host(cut), janitor([done]).agent, askId, {
      leaseMs: 300,
    });
    if (first.status !== 'decided') throw new Error('expected decisions');
    const reason = await new Promise<unknown>((resolve) =>
      first.claim.signal.addEventListener('abort', () => resolve(first.claim.signal.reason)),
    );
    expect(String(reason)).toMatch(/Lost the claim "openai-agents\.round:.+": its lease ran out/);
    expect((reason as Error).cause).toMatchObject({ message: 'connection refused' });
    await expect(
      run(janitor([done]).agent, first.state, { signal: first.claim.signal }),
    ).rejects.toThrow();
    await expect(first.claim.finish()).rejects.toThrow(/was lost before it was finished/);

    const later = janitor([done]);
    const second = await resumeRunApprovals(host(shared), later.agent, askId);
    if (second.status !== 'decided') throw new Error('expected the lost round to be decided');
    await run(later.agent, second.state, { signal: second.claim.signal });
    await second.claim.finish();
    expect(later.removed).toEqual(['/tmp/a']);
  });

  it('keeps a lease that its renewals keep, past the lease time', async () => {
    const store = createMemoryAskStore();
    const askId = await approvedRun(store, 'job-renewed');
    const first = await resumeRunApprovals(host(store), janitor([done]).agent, askId, {
      leaseMs: 600,
    });
    if (first.status !== 'decided') throw new Error('expected decisions');
    // Two lease times and more: held all along by its renewals.
    await new Promise((resolve) => setTimeout(resolve, 1_300));
    expect(first.claim.signal.aborted).toBe(false);
    expect(await resumeRunApprovals(host(store), janitor([done]).agent, askId)).toMatchObject({
      status: 'claimed',
      claim: { status: 'held', holder: first.claim.holder },
    });
    await first.claim.finish();
  });

  it('refuses a result without interruptions and a lease shorter than 100 ms, naming them', async () => {
    const store = createMemoryAskStore();
    const service = host(store);
    const finished = await run(janitor([done]).agent, 'go');
    await expect(askRunApprovals(service, finished, { runId: 'r' })).rejects.toThrow(
      /without interruptions: there is nothing to ask/,
    );
    const stopped = await run(janitor([removes('/tmp/a')]).agent, 'go');
    await expect(askRunApprovals(service, stopped, { runId: 'r', leaseMs: 10 })).rejects.toThrow(
      /`leaseMs`.*from 100 up.*got 10/,
    );
  });
});
