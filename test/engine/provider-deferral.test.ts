/**
 * What rides in a deferral's write comes back in the provider's result (issue 36 §4): the
 * outbox messages and a routed quorum are written with the deferral and only with it; a bad one
 * ends the ask `provider-error` naming it, and nothing of it is stored.
 */
import { describe, expect, it } from 'vitest';
import {
  type AskProvider,
  createInteractionService,
  createMemoryAskStore,
  type ProviderDeferral,
} from '../../src/index.js';
import { yesNo } from './helpers.js';

function serviceWith(result: (askId: string) => unknown) {
  const store = createMemoryAskStore();
  const service = createInteractionService({ store });
  const provider: AskProvider = {
    ask: async (_request, ctx) => result(ctx.askId) as ProviderDeferral,
  };
  service.registerProvider(provider);
  return { service, store };
}

const entry = (askId: string) => ({
  deliveryId: `m-${askId}`,
  askId,
  channel: 'sms',
  due: 0,
  payload: { hello: 1 },
});

describe('a deferral with its writes', () => {
  it('stores the outbox and the quorum with the deferral, in one write', async () => {
    const { service, store } = serviceWith((askId) => ({
      status: 'deferred',
      interactionId: `t-${askId}`,
      outbox: [entry(askId)],
      quorum: { required: 2 },
    }));
    const handle = service.start(yesNo);
    expect(await handle.outcome).toMatchObject({ status: 'deferred' });
    const claimed = await store.claimOutbox(Date.now(), 10, 1_000, ['sms']);
    expect(claimed.map((one) => one.deliveryId)).toEqual([`m-${handle.id}`]);
    const deferred = [];
    for await (const event of service.history(handle.id)) {
      if (event.type === 'provider.deferred') deferred.push(event.data);
    }
    expect(deferred).toEqual([
      expect.objectContaining({ quorum: expect.objectContaining({ required: 2 }) }),
    ]);
  });

  const refusals: [string, (askId: string) => unknown, RegExp][] = [
    [
      'an outbox with an answer',
      (askId) => ({
        status: 'answered',
        answers: [{ questionId: 'q1', response: { kind: 'selection', selections: ['Yes'] } }],
        outbox: [entry(askId)],
      }),
      /returned `outbox` or `quorum` with the status "answered"; they ride only with a deferral/,
    ],
    [
      'an outbox that is no array',
      (askId) => ({ status: 'deferred', interactionId: `t-${askId}`, outbox: 'mail' }),
      /Expected the deferral's `outbox` to be an array of outbox entries, got "mail"/,
    ],
    [
      'a quorum that is not one',
      (askId) => ({ status: 'deferred', interactionId: `t-${askId}`, quorum: { required: 0 } }),
      /quorum\.required/,
    ],
  ];
  for (const [what, result, message] of refusals) {
    it(`ends the ask provider-error for ${what}, storing none of it`, async () => {
      const { service, store } = serviceWith(result);
      const outcome = await service.ask(yesNo);
      expect(outcome).toMatchObject({ status: 'cancelled', reason: 'provider-error' });
      expect(outcome.status === 'cancelled' && outcome.message).toMatch(message);
      expect(await store.claimOutbox(Date.now(), 10, 1_000, ['sms'])).toEqual([]);
    });
  }

  it('ends the ask provider-error when reading `outbox` throws, as for any hostile getter', async () => {
    const { service } = serviceWith((askId) => ({
      status: 'deferred',
      interactionId: `t-${askId}`,
      get outbox(): never {
        throw new Error('no outbox today');
      },
    }));
    const outcome = await service.ask(yesNo);
    expect(outcome).toMatchObject({ status: 'cancelled', reason: 'provider-error' });
    expect(outcome.status === 'cancelled' && outcome.message).toMatch(/no outbox today/);
  });

  it('refuses a quorum for an ask started with its own', async () => {
    const { service } = serviceWith((askId) => ({
      status: 'deferred',
      interactionId: `t-${askId}`,
      quorum: { required: 1 },
    }));
    const outcome = await service.ask(yesNo, { quorum: { required: 2 } });
    expect(outcome.status === 'cancelled' && outcome.message).toMatch(
      /was started with a quorum of its own; a provider cannot set another/,
    );
  });
});
