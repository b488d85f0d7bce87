/** Traces of asks with the real OpenTelemetry SDK: one span per ask, and its trace afterwards. */

import { metrics, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import {
  type AskStore,
  createInteractionService,
  createMemoryAskStore,
  createScriptedProvider,
} from 'ask-engine';
import { createOtel } from 'ask-engine/otel';
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { manualProvider, tick, yesNo } from '../engine/helpers.js';
import { recordTelemetry, spanJson } from './sdk.js';

const yes = [{ questionId: 'q1', response: { kind: 'selection' as const, selections: ['Yes'] } }];
const secret = [
  { questionId: 'q1', response: { kind: 'freeform' as const, text: 'hunter2-secret-text' } },
];

function setUp(options: { redact?: boolean; store?: AskStore } = {}) {
  const telemetry = recordTelemetry();
  const provider = manualProvider();
  const service = createInteractionService({
    ...options,
    otel: createOtel({ tracer: telemetry.tracer, meter: telemetry.meter }),
  });
  service.registerProvider(provider);
  return { telemetry, provider, service };
}

const named = (spans: ReturnType<typeof spanJson>[], name: string) =>
  spans.filter((span) => span.name === name);

describe('a span per ask', () => {
  it('is a child of the caller’s active span, with an event per transition, ended at the outcome', async () => {
    const { telemetry, provider, service } = setUp();
    const outcome = await telemetry.tracer.startActiveSpan('agent turn', async (turn) => {
      const handle = service.start(yesNo, { toolCallId: 'call-1', sessionId: 's-1', key: 'k-1' });
      await handle.stored;
      expect(telemetry.spans()).toEqual([]);
      provider.calls[0]?.resolve({ status: 'answered', answers: yes });
      const result = await handle.outcome;
      turn.end();
      return result;
    });
    expect(outcome.status).toBe('answered');
    const spans = telemetry.spans().map(spanJson);
    const [ask] = named(spans, 'ask-engine.ask');
    const [turn] = named(spans, 'agent turn');
    expect(ask?.parentSpanId).toBe(turn?.spanId);
    expect(ask?.traceId).toBe(turn?.traceId);
    expect(ask?.attributes).toMatchObject({
      'ask_engine.ask.key': 'k-1',
      'ask_engine.tool_call.id': 'call-1',
      'ask_engine.session.id': 's-1',
      'ask_engine.ask.questions': 1,
      'ask_engine.state': 'answered',
      'ask_engine.outcome.status': 'answered',
    });
    expect(ask?.events.map((event) => event.name)).toEqual(['start', 'provider.answered']);
    expect(ask?.events[1]?.attributes).toMatchObject({
      'ask_engine.state.from': 'pending',
      'ask_engine.state': 'answered',
      'ask_engine.outcome.status': 'answered',
      'ask_engine.event.answers': 1,
    });
    await service.close();
  });

  it('keeps the span’s W3C trace context with the stored ask', async () => {
    const store = createMemoryAskStore();
    const { telemetry, provider, service } = setUp({ store });
    const handle = service.start(yesNo);
    await handle.stored;
    const stored = await store.get(handle.id);
    const context = stored?.snapshot.context as { traceparent?: string };
    provider.calls[0]?.resolve({ status: 'cancelled', reason: 'user' });
    await handle.outcome;
    const [ask] = telemetry.spans();
    const { traceId, spanId } = ask!.spanContext();
    expect(context.traceparent).toBe(`00-${traceId}-${spanId}-01`);
    // The history says where the ask's trace is, for an auditor reading it.
    const history = service.history(handle.id)[Symbol.asyncIterator]();
    expect((await history.next()).value).toMatchObject({
      type: 'start',
      data: { traceparent: context.traceparent },
    });
    await service.close();
  });

  it('never records answers; under redaction, not even an invalid one a refusal is about', async () => {
    for (const redact of [false, true]) {
      const { telemetry, provider, service } = setUp({ redact });
      const first = service.start({ question: 'Password?' });
      await first.stored;
      provider.calls[0]?.ctx.reportProgress(secret);
      await tick();
      provider.calls[0]?.resolve({ status: 'answered', answers: secret });
      await first.outcome;
      const deferred = service.start({
        question: 'Password again?',
        options: ['Yes', 'No'],
        allowFreeform: true,
      });
      await deferred.stored;
      provider.calls[1]?.resolve({ status: 'deferred', interactionId: 'thread-1' });
      await deferred.outcome;
      const invalid = [
        { questionId: 'q1', response: { kind: 'selection' as const, selections: ['hunter3'] } },
      ];
      await expect(service.resume('thread-1', invalid)).rejects.toMatchObject({
        code: 'INVALID_ANSWER',
      });
      await service.resume('thread-1', secret);
      const text = JSON.stringify(telemetry.spans().map(spanJson));
      expect(text).toContain('provider.progress');
      expect(text).toContain('ask-engine.answer.refused');
      expect(text).toContain('ask-engine.resume');
      expect(text).not.toContain('hunter2');
      // Messages are recorded as the audit trail keeps them: quoting the input only unredacted.
      expect(text.includes('hunter3')).toBe(!redact);
      await service.close();
    }
  });

  it('ends at a deferral; the resume later is a span of its own in the ask’s trace, linked to the span active then', async () => {
    const { telemetry, provider, service } = setUp();
    const handle = service.start(yesNo);
    await handle.stored;
    provider.calls[0]?.resolve({ status: 'deferred', interactionId: 'thread-9' });
    expect(await handle.outcome).toMatchObject({ status: 'deferred' });
    const [ask] = telemetry.spans().map(spanJson);
    expect(ask).toMatchObject({
      name: 'ask-engine.ask',
      attributes: {
        'ask_engine.outcome.status': 'deferred',
        'ask_engine.interaction.id': 'thread-9',
      },
    });
    await telemetry.tracer.startActiveSpan('chat message', async (message) => {
      await service.resume('thread-9', yes, { askId: handle.id });
      message.end();
    });
    const spans = telemetry.spans().map(spanJson);
    const [resume] = named(spans, 'ask-engine.resume');
    const [message] = named(spans, 'chat message');
    expect(resume).toMatchObject({
      traceId: ask?.traceId,
      parentSpanId: ask?.spanId,
      links: [message?.spanId],
      attributes: {
        'ask_engine.ask.id': handle.id,
        'ask_engine.state.from': 'deferred',
        'ask_engine.state': 'answered',
        'ask_engine.outcome.status': 'answered',
      },
    });
    await service.close();
  });

  it('records a sweep’s timeout of a deferred ask in the ask’s trace, linked to no stale span', async () => {
    const telemetry = recordTelemetry();
    const provider = manualProvider();
    const clock = new SimulatedClock();
    const otel = createOtel({ tracer: telemetry.tracer, meter: telemetry.meter });
    // Created inside a span that ends at once: the sweeper's timers inherit its context.
    const service = telemetry.tracer.startActiveSpan('startup', (startup) => {
      const created = createInteractionService({ otel, clock, sweepIntervalMs: 5 });
      startup.end();
      return created;
    });
    service.registerProvider(provider);
    const handle = service.start(yesNo, { timeoutMs: 1_000 });
    await handle.stored;
    provider.calls[0]?.resolve({ status: 'deferred', interactionId: 'thread-2' });
    await handle.outcome;
    clock.increment(5_000);
    for (let n = 0; n < 200 && (await service.get(handle.id))?.state !== 'timedOut'; n++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const spans = telemetry.spans().map(spanJson);
    const [ask] = named(spans, 'ask-engine.ask');
    expect(named(spans, 'ask-engine.deadline')).toEqual([
      expect.objectContaining({
        traceId: ask?.traceId,
        parentSpanId: ask?.spanId,
        links: [],
        attributes: expect.objectContaining({ 'ask_engine.outcome.status': 'timedOut' }),
      }),
    ]);
    await service.close();
  });

  it('marks a provider failure as an error, and a caller who gets an error instead of an outcome', async () => {
    const { telemetry, provider, service } = setUp();
    const handle = service.start(yesNo);
    await handle.stored;
    provider.calls[0]?.reject(new Error('the page crashed'));
    expect(await handle.outcome).toMatchObject({ status: 'cancelled', reason: 'provider-error' });
    const failing = createMemoryAskStore();
    failing.create = async () => {
      throw new Error('disk full');
    };
    const broken = setUp({ store: failing });
    await expect(broken.service.ask(yesNo)).rejects.toThrow('disk full');
    await tick();
    const [failed] = telemetry.spans();
    const [stored] = broken.telemetry.spans();
    expect(failed?.status.code).toBe(SpanStatusCode.ERROR);
    expect(failed?.attributes['ask_engine.outcome.reason']).toBe('provider-error');
    expect(stored?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'disk full' });
    expect(stored?.events.map((event) => event.name)).toEqual(['exception']);
    await service.close();
    await broken.service.close();
  });

  it('never lets a tracer that throws break an ask: the service’s onError hears of it', async () => {
    const telemetry = recordTelemetry();
    const provider = manualProvider();
    const errors: unknown[] = [];
    const broken = {
      startSpan: () => {
        throw new Error('exporter misconfigured');
      },
    } as unknown as Tracer;
    const service = createInteractionService({
      otel: createOtel({ tracer: broken, meter: telemetry.meter }),
      onError: (error) => errors.push(error),
    });
    service.registerProvider(provider);
    const handle = service.start(yesNo);
    await handle.stored;
    provider.calls[0]?.resolve({ status: 'answered', answers: yes });
    expect(await handle.outcome).toMatchObject({ status: 'answered' });
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.map((error) => (error as Error).message)).toEqual(
      errors.map(() => 'exporter misconfigured'),
    );
    await service.close();
  });

  it('ends the spans of asks still pending when the service closes', async () => {
    const { telemetry, service } = setUp();
    const handle = service.start(yesNo);
    await handle.stored;
    await service.close();
    await expect(handle.outcome).rejects.toThrow(/closed/);
    const [ask] = telemetry.spans().map(spanJson);
    expect(ask?.events.map((event) => event.name)).toEqual(['start', 'service.closed']);
    expect(await telemetry.points('ask_engine.asks.pending')).toMatchObject([{ value: 0 }]);
  });

  it('gives a second start of the same key no span of its own', async () => {
    const { telemetry, provider, service } = setUp();
    const first = service.start(yesNo, { key: 'same' });
    const second = service.start(yesNo, { key: 'same' });
    expect(second.id).toBe(first.id);
    await first.stored;
    provider.calls[0]?.resolve({ status: 'answered', answers: yes });
    await second.outcome;
    expect(telemetry.spans().map((span) => span.name)).toEqual(['ask-engine.ask']);
    await service.close();
  });
});

describe('the trace context kept with an ask', () => {
  it('is checked where a row is read: a malformed traceparent is refused, naming it', async () => {
    const store = createMemoryAskStore();
    const { provider, service } = setUp({ store });
    const handle = service.start(yesNo);
    await handle.stored;
    const row = structuredClone(await store.get(handle.id));
    const first = await service.history(handle.id)[Symbol.asyncIterator]().next();
    (row!.snapshot.context as { traceparent: string }).traceparent = 'not-a-trace';
    const tampered = createMemoryAskStore();
    await tampered.create({ ask: row!, event: first.value });
    const reader = createInteractionService({ store: tampered });
    await expect(reader.get(handle.id)).rejects.toThrow(
      /snapshot\/context\/traceparent Expected string to match/,
    );
    provider.calls[0]?.resolve({ status: 'cancelled', reason: 'user' });
    await service.close();
    await reader.close();
  });
});

describe('ask-engine/otel', () => {
  it('exports createOtel and nothing else', async () => {
    expect(Object.keys(await import('ask-engine/otel'))).toEqual(['createOtel']);
  });

  it('records through the global tracer and meter providers when given none', async () => {
    const telemetry = recordTelemetry();
    expect(trace.setGlobalTracerProvider(telemetry.tracerProvider)).toBe(true);
    expect(metrics.setGlobalMeterProvider(telemetry.meterProvider)).toBe(true);
    try {
      const service = createInteractionService({ otel: createOtel() });
      service.registerProvider(createScriptedProvider([{ cancel: 'user' }]));
      await service.ask(yesNo);
      await service.close();
      expect(telemetry.spans().map((span) => span.name)).toEqual(['ask-engine.ask']);
      expect(await telemetry.points('ask_engine.ask.duration')).toHaveLength(1);
    } finally {
      trace.disable();
      metrics.disable();
    }
  });

  it('refuses an otel option that is not what createOtel returns', () => {
    expect(() => createInteractionService({ otel: {} as never })).toThrow(
      /Expected `otel` to be what createOtel\(\) of ask-engine\/otel returns, got/,
    );
    expect(() => createOtel({ tracer: 'jaeger' as never })).toThrow(
      /Expected `tracer` to be an OpenTelemetry Tracer/,
    );
    expect(() => createOtel({ meter: {} as never })).toThrow(
      /Expected `meter` to be an OpenTelemetry Meter/,
    );
  });
});
