/** Metrics of asks with the real OpenTelemetry SDK, read through a metric reader. */
import { createInteractionService, createMemoryAskStore } from 'ask-engine';
import { createOtel } from 'ask-engine/otel';
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { manualProvider, tick, yesNo } from '../engine/helpers.js';
import { recordTelemetry } from './sdk.js';

const yes = [{ questionId: 'q1', response: { kind: 'selection' as const, selections: ['Yes'] } }];
const nonsense = [
  { questionId: 'q1', response: { kind: 'selection' as const, selections: ['Maybe'] } },
];

async function until(check: () => Promise<boolean>): Promise<void> {
  for (let n = 0; n < 200; n++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('waited 2 s in vain');
}

describe('ask metrics', () => {
  it('counts the asks waiting for their first outcome', async () => {
    const telemetry = recordTelemetry();
    const provider = manualProvider();
    const otel = createOtel({ tracer: telemetry.tracer, meter: telemetry.meter });
    const service = createInteractionService({ otel });
    service.registerProvider(provider);
    const pending = async () => (await telemetry.points('ask_engine.asks.pending'))[0]?.value;
    const first = service.start(yesNo);
    const second = service.start(yesNo);
    expect(await pending()).toBe(2);
    await Promise.all([first.stored, second.stored]);
    provider.calls[0]?.resolve({ status: 'answered', answers: yes });
    await first.outcome;
    expect(await pending()).toBe(1);
    provider.calls[1]?.resolve({ status: 'deferred', interactionId: 'later' });
    await second.outcome;
    expect(await pending()).toBe(0);
    await service.close();
  });

  it('records the time from start to each outcome, by status, on the service’s clock', async () => {
    const telemetry = recordTelemetry();
    const provider = manualProvider();
    const clock = new SimulatedClock();
    const otel = createOtel({ tracer: telemetry.tracer, meter: telemetry.meter });
    const service = createInteractionService({ otel, clock, sweepIntervalMs: 5 });
    service.registerProvider(provider);
    const answered = service.start(yesNo);
    const deferred = service.start(yesNo, { timeoutMs: 10_000 });
    await Promise.all([answered.stored, deferred.stored]);
    clock.increment(1_500);
    provider.calls[0]?.resolve({ status: 'answered', answers: yes });
    provider.calls[1]?.resolve({ status: 'deferred', interactionId: 'thread-1' });
    await Promise.all([answered.outcome, deferred.outcome]);
    clock.increment(60_000);
    // Deferred, so no timer of this service holds it: only a sweep of the store times it out.
    await until(async () => (await service.get(deferred.id))?.state === 'timedOut');
    const byStatus = Object.fromEntries(
      (await telemetry.points('ask_engine.ask.duration')).map((point) => [
        point.attributes['ask_engine.outcome.status'],
        point.value as { count: number; sum: number },
      ]),
    );
    expect(byStatus).toEqual({
      answered: expect.objectContaining({ count: 1, sum: 1.5 }),
      deferred: expect.objectContaining({ count: 1, sum: 1.5 }),
      timedOut: expect.objectContaining({ count: 1, sum: 61.5 }),
    });
    expect((await telemetry.points('ask_engine.sweep.timeouts'))[0]?.value).toBe(1);
    expect((await telemetry.points('ask_engine.sweeps'))[0]?.value).toBeGreaterThanOrEqual(1);
    await service.close();
  });

  it('counts refused answers: invalid ones and ones for an ask that has its outcome', async () => {
    const telemetry = recordTelemetry();
    const provider = manualProvider();
    const otel = createOtel({ tracer: telemetry.tracer, meter: telemetry.meter });
    const service = createInteractionService({ otel });
    service.registerProvider(provider);
    const handle = service.start(yesNo);
    await handle.stored;
    await expect(service.answer(handle.id, nonsense)).rejects.toMatchObject({
      code: 'INVALID_ANSWER',
    });
    await service.answer(handle.id, yes);
    await expect(service.answer(handle.id, yes)).rejects.toMatchObject({ code: 'ASK_SETTLED' });
    provider.calls[0]?.resolve({ status: 'answered', answers: yes });
    await tick();
    const refusals = (await telemetry.points('ask_engine.refusals')).map((point) => ({
      ...point.attributes,
      value: point.value,
    }));
    expect(refusals).toEqual(
      expect.arrayContaining([
        {
          'ask_engine.refusal.reason': 'invalid-answer',
          'ask_engine.refusal.source': 'answer',
          value: 1,
        },
        { 'ask_engine.refusal.reason': 'settled', 'ask_engine.refusal.source': 'answer', value: 1 },
        {
          'ask_engine.refusal.reason': 'settled',
          'ask_engine.refusal.source': 'provider',
          value: 1,
        },
      ]),
    );
    expect(refusals).toHaveLength(3);
    await service.close();
  });

  it('counts a sweep the store failed, with its error type', async () => {
    const telemetry = recordTelemetry();
    const store = createMemoryAskStore();
    store.claimDue = async () => {
      throw Object.assign(new Error('connection lost'), { code: 'ECONNRESET' });
    };
    const errors: unknown[] = [];
    const otel = createOtel({ tracer: telemetry.tracer, meter: telemetry.meter });
    const service = createInteractionService({
      otel,
      store,
      sweepIntervalMs: 5,
      onError: (error) => errors.push(error),
    });
    await until(async () => errors.length >= 2);
    const [failed] = await telemetry.points('ask_engine.sweeps');
    expect(failed?.attributes).toEqual({ 'error.type': 'ECONNRESET' });
    expect(failed?.value).toBeGreaterThanOrEqual(2);
    await service.close();
  });
});
