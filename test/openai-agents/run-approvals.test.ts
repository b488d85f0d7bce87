/**
 * ask-engine/openai-agents against the real SDK (@openai/agents 0.20) and its ScriptedModel:
 * each approval interruption is one keyed ask, decisions go back into the run as the SDK's
 * approve / reject, and a run handed elsewhere is continued from the store by another service.
 */
import { run } from '@openai/agents';
import {
  type AskProvider,
  type AskUserRequest,
  createInteractionService,
  createMemoryAskStore,
  type InteractionService,
} from 'ask-engine';
import {
  askRunApprovals,
  RUN_STATE_KIND,
  RunResumeError,
  resumeRunApprovals,
} from 'ask-engine/openai-agents';
import { afterEach, describe, expect, it } from 'vitest';
import { decide, done, janitor, removes, removesFrom } from './janitor.js';

const services: InteractionService[] = [];
afterEach(async () => {
  await Promise.all(services.splice(0).map((service) => service.close()));
});

function serviceWith(provider: AskProvider, store = createMemoryAskStore()): InteractionService {
  const service = createInteractionService({ store, retention: false });
  service.registerProvider(provider);
  services.push(service);
  return service;
}

/** Answers each approval at once: approve unless its question names a path in `keep`. */
function person(
  keep: readonly string[] = [],
  comment?: string,
): AskProvider & { asked: AskUserRequest[] } {
  const asked: AskUserRequest[] = [];
  return {
    asked,
    ask: async (request) => {
      asked.push(request);
      const shown = JSON.stringify(request.questions);
      const approve = !keep.some((path) => shown.includes(path));
      return {
        status: 'answered',
        answers: decide(request, approve, approve ? undefined : comment),
      };
    },
  };
}

/** Hands every approval to a link: the person answers later, anywhere. */
const linkProvider: AskProvider = {
  ask: async (_request, ctx) => ({ status: 'deferred', interactionId: `link-${ctx.askId}` }),
};

describe('askRunApprovals', () => {
  it('asks once per interruption of a turn and applies each decision: the approved call runs, the rejected one does not and the model reads why', async () => {
    const { agent, model, removed } = janitor([removes('/tmp/a', '/tmp/keep'), done]);
    const provider = person(['/tmp/keep'], 'That one is still in use.');
    const service = serviceWith(provider);

    const result = await run(agent, 'clean up');
    expect(result.interruptions).toHaveLength(2);
    const round = await askRunApprovals(service, result, { runId: 'job-1' });
    expect(round.status).toBe('decided');
    if (round.status !== 'decided') return;
    expect(provider.asked).toHaveLength(2);
    expect(round.decisions.map(({ callId, applied }) => [callId, applied])).toEqual([
      ['call-1', 'approve'],
      ['call-2', 'reject'],
    ]);
    expect(round.decisions[1]?.message).toContain('That one is still in use.');

    const finished = await run(agent, round.state);
    expect(finished.finalOutput).toBe('done');
    expect(removed).toEqual(['/tmp/a']);
    const outputs = JSON.stringify(model.lastCall?.request.input);
    expect(outputs).toContain('removed /tmp/a');
    expect(outputs).toContain('That one is still in use.');
  });

  it('attaches to the same asks when the same run is asked about again', async () => {
    const { agent } = janitor([removes('/tmp/a', '/tmp/b')]);
    const provider = person();
    const service = serviceWith(provider);
    const result = await run(agent, 'clean up');

    const first = await askRunApprovals(service, result, { runId: 'job-2' });
    const second = await askRunApprovals(service, result, { runId: 'job-2' });
    expect(provider.asked).toHaveLength(2);
    if (first.status !== 'decided') throw new Error('expected decisions');
    // The round is the first call's to run: the second is told so, with the same asks.
    if (second.status !== 'claimed') throw new Error('expected the round claimed by the first');
    expect(second.askIds).toEqual(first.decisions.map((decision) => decision.askId));
    expect(second.claim).toMatchObject({ status: 'held', holder: first.claim.holder });
    expect((await service.list({})).items).toHaveLength(2);
  });

  it('applies a sticky approval only for the tools named in always, says so in the question, and records it', async () => {
    const { agent, removed } = janitor([removes('/tmp/a'), removesFrom(2, '/tmp/b'), done]);
    const provider = person();
    const service = serviceWith(provider);

    const first = await run(agent, 'clean up');
    const round = await askRunApprovals(service, first, {
      runId: 'job-3',
      always: { approve: ['remove_file'] },
    });
    if (round.status !== 'decided') throw new Error('expected decisions');
    expect(round.decisions[0]?.sticky).toBe(true);
    expect(JSON.stringify(provider.asked[0]?.questions)).toContain(
      'Approving this call approves every later call of this tool in this run.',
    );
    // The model's next call of the tool runs without another interruption.
    const finished = await run(agent, round.state);
    expect(finished.interruptions).toEqual([]);
    expect(removed).toEqual(['/tmp/a', '/tmp/b']);
  });

  it('rejects without a sticky decision unless always names the tool', async () => {
    const { agent } = janitor([removes('/tmp/a'), removesFrom(2, '/tmp/b')]);
    const service = serviceWith(person());
    const round = await askRunApprovals(service, await run(agent, 'clean up'), { runId: 'job-4' });
    if (round.status !== 'decided') throw new Error('expected decisions');
    expect(round.decisions[0]).not.toHaveProperty('sticky');
    const next = await run(agent, round.state);
    expect(next.interruptions).toHaveLength(1);
  });

  it('turns an approval with edits into a rejection that gives the model the edited input, and the edited call is asked about again', async () => {
    const { agent, model, removed } = janitor([
      removes('/tmp/all'),
      removesFrom(2, '/tmp/all/cache'),
      done,
    ]);
    const asked: AskUserRequest[] = [];
    const service = serviceWith({
      ask: async (request) => {
        asked.push(request);
        const answers = decide(request, true);
        // The person narrows the first call before approving it, and approves the second as is.
        const [answer] = answers;
        if (asked.length === 1 && answer?.response?.kind === 'selection') {
          answer.response.input = { path: '/tmp/all/cache' };
        }
        return { status: 'answered', answers };
      },
    });

    const round = await askRunApprovals(service, await run(agent, 'clean up'), {
      runId: 'job-edit',
    });
    if (round.status !== 'decided') throw new Error('expected decisions');
    const [edited] = round.decisions;
    expect(edited?.applied).toBe('reject');
    expect(edited?.edited).toMatchObject({ fields: ['path'], input: { path: '/tmp/all/cache' } });
    expect(edited?.edited?.from).not.toBe(edited?.edited?.to);
    expect(edited?.message).toContain('{"path":"/tmp/all/cache"}');

    // The model reads the edited input and makes that call; it is asked about like any other.
    const next = await run(agent, round.state);
    expect(JSON.stringify(model.lastCall?.request.input)).toContain('/tmp/all/cache');
    expect(removed).toEqual([]);
    const again = await askRunApprovals(service, next, { runId: 'job-edit' });
    if (again.status !== 'decided') throw new Error('expected decisions');
    await run(agent, again.state);
    expect(asked).toHaveLength(2);
    expect(removed).toEqual(['/tmp/all/cache']);
  });

  it('rejects a call whose ask ends without an answer, with the reason', async () => {
    const { agent, removed } = janitor([removes('/tmp/a'), done]);
    const service = serviceWith({
      ask: async () => ({ status: 'cancelled', reason: 'unavailable' }),
    });
    const round = await askRunApprovals(service, await run(agent, 'clean up'), { runId: 'job-5' });
    if (round.status !== 'decided') throw new Error('expected decisions');
    expect(round.decisions[0]?.applied).toBe('reject');
    expect(round.decisions[0]?.message).toMatch(/not approved/i);
    await run(agent, round.state);
    expect(removed).toEqual([]);
  });

  it('refuses options it cannot use, naming them', async () => {
    const { agent } = janitor([removes('/tmp/a')]);
    const service = serviceWith(person());
    const result = await run(agent, 'clean up');
    await expect(askRunApprovals(service, result, { runId: '' })).rejects.toThrow(/`runId`/);
    await expect(
      askRunApprovals(service, result, { runId: 'r', always: { approve: 'remove_file' } as never }),
    ).rejects.toThrow(/`always\.approve` to be an array of tool names/);
  });
});

describe('resumeRunApprovals', () => {
  it('continues on another service once every ask of the run is settled, from the state kept in the store', async () => {
    const store = createMemoryAskStore();
    const interrupted = janitor([removes('/tmp/a', '/tmp/keep')]);
    const first = serviceWith(linkProvider, store);
    const round = await askRunApprovals(first, await run(interrupted.agent, 'clean up'), {
      runId: 'job-6',
    });
    expect(round.status).toBe('waiting');
    if (round.status !== 'waiting') return;
    await first.close();

    // Another host, with the same agent and no memory of the run.
    const host = janitor([done]);
    const second = serviceWith(linkProvider, store);
    const resumed = resumeRunApprovals(second, host.agent, round.askIds[1] as string);
    for (const [index, askId] of round.askIds.entries()) {
      const ask = await second.get(askId);
      expect(ask?.attachment?.kind).toBe(RUN_STATE_KIND);
      await second.answer(askId, decide({ questions: ask?.questions ?? [] }, index === 0));
    }
    const round2 = await resumed;
    if (round2.status !== 'decided') throw new Error('expected decisions');
    const { state, decisions, claim } = round2;
    expect(decisions.map((decision) => decision.applied)).toEqual(['approve', 'reject']);
    const finished = await run(host.agent, state, { signal: claim.signal });
    await claim.finish();
    expect(finished.finalOutput).toBe('done');
    expect(host.removed).toEqual(['/tmp/a']);
    expect(interrupted.removed).toEqual([]);
  });

  it('stops waiting when its signal aborts, and the asks go on', async () => {
    const store = createMemoryAskStore();
    const { agent } = janitor([removes('/tmp/a')]);
    const service = serviceWith(linkProvider, store);
    const round = await askRunApprovals(service, await run(agent, 'clean up'), { runId: 'job-8' });
    if (round.status !== 'waiting') throw new Error('expected a waiting run');
    const stop = new AbortController();
    const resumed = resumeRunApprovals(service, janitor([done]).agent, round.askIds[0] as string, {
      signal: stop.signal,
    });
    stop.abort(new Error('the worker shuts down'));
    await expect(resumed).rejects.toThrow('the worker shuts down');
    expect((await service.get(round.askIds[0] as string))?.state).toBe('deferred');
  });

  it('refuses a run state from an SDK whose run-state schema this one cannot read, naming both', async () => {
    const { agent } = janitor([removes('/tmp/a')]);
    const store = createMemoryAskStore();
    const service = serviceWith(linkProvider, store);
    const round = await askRunApprovals(service, await run(agent, 'clean up'), { runId: 'job-7' });
    if (round.status !== 'waiting') throw new Error('expected a waiting run');
    const saved = await service.get(round.askIds[0] as string);
    const attachment = saved?.attachment;
    if (attachment === undefined) throw new Error('no attachment');
    // The same run, as a newer SDK would have saved it.
    const newer = service.start(
      { questions: saved?.questions ?? [] },
      {
        key: 'from-a-newer-sdk',
        attachment: {
          ...attachment,
          version: '1.99',
          data: attachment.data.replace(/"\$schemaVersion":"[^"]+"/, '"$schemaVersion":"1.99"'),
        },
      },
    );
    await newer.stored;
    const refusal = resumeRunApprovals(service, agent, newer.id);
    await expect(refusal).rejects.toBeInstanceOf(RunResumeError);
    await expect(refusal).rejects.toThrow(
      /saved by an OpenAI Agents SDK writing run-state schema 1\.99, which the SDK here \(schema 1\.\d+\) cannot read/,
    );
  });

  it('refuses a saved run it cannot read, naming what is wrong', async () => {
    const service = serviceWith(linkProvider);
    const handle = service.start(
      { questions: [{ question: 'Lunch?', options: ['Yes', 'No'] }] },
      { attachment: { kind: RUN_STATE_KIND, version: '1.22', data: '{"runId":"r","state":{}}' } },
    );
    await handle.stored;
    await expect(resumeRunApprovals(service, janitor([]).agent, handle.id)).rejects.toThrow(
      /holds an OpenAI Agents run that cannot be read \(no allowEdits flag\)/,
    );
  });

  it('refuses an ask that holds no run', async () => {
    const service = serviceWith(linkProvider);
    const handle = service.start({ questions: [{ question: 'Lunch?', options: ['Yes', 'No'] }] });
    await handle.stored;
    const { agent } = janitor([]);
    await expect(resumeRunApprovals(service, agent, handle.id)).rejects.toThrow(
      /holds no OpenAI Agents run \(its attachment is absent\)/,
    );
  });
});
