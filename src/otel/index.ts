/**
 * `ask-engine/otel`: traces and metrics of asks with OpenTelemetry. Needs `@opentelemetry/api`
 * (an optional peer dependency; importing this subpath without it fails with an error that
 * says so); the engine itself never loads it.
 *
 * @module ask-engine/otel
 */
import type { Meter, Tracer } from '@opentelemetry/api';
import type { AskTelemetry } from '../engine/ask-observer.js';
import { describe } from '../rules/describe.js';
import { otelApi } from './api.js';
import { AskMetrics } from './ask-metrics.js';
import { AskSpans } from './ask-spans.js';

export type { AskObserver, AskTelemetry, AskTraceContext } from '../engine/ask-observer.js';

/** Where `createOtel` records: a tracer and a meter, each the global provider's by default. */
export interface OtelOptions {
  /** Where spans go. Default: the global tracer provider's tracer `ask-engine`. */
  tracer?: Tracer;
  /** Where metrics go. Default: the global meter provider's meter `ask-engine`. */
  meter?: Meter;
}

/**
 * Traces and metrics for `createInteractionService({ otel })`. Each ask is a span
 * (`ask-engine.ask`, a child of the caller's active span) from start until its outcome is
 * handed out, with an event per transition; its trace context is kept with the ask, so a
 * process that moves the ask on later records a span in the same trace. Metrics:
 * `ask_engine.asks.pending`, `ask_engine.ask.duration` (by outcome status),
 * `ask_engine.sweeps`, `ask_engine.sweep.timeouts`, `ask_engine.refusals`. Answers are never
 * recorded.
 *
 * @example
 * import { createOtel } from 'ask-engine/otel';
 * const service = createInteractionService({ store, otel: createOtel() });
 */
export function createOtel(options: OtelOptions = {}): AskTelemetry {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`Expected createOtel options to be an object, got ${describe(options)}.`);
  }
  const { tracer, meter } = options;
  if (tracer !== undefined && typeof tracer?.startSpan !== 'function') {
    throw new TypeError(
      `Expected \`tracer\` to be an OpenTelemetry Tracer (with startSpan), got ${describe(tracer)}.`,
    );
  }
  if (meter !== undefined && typeof meter?.createCounter !== 'function') {
    throw new TypeError(
      `Expected \`meter\` to be an OpenTelemetry Meter (with createCounter), got ${describe(meter)}.`,
    );
  }
  const spansTo = tracer ?? otelApi.trace.getTracer('ask-engine');
  const metrics = new AskMetrics(meter ?? otelApi.metrics.getMeter('ask-engine'));
  return Object.freeze({
    observe: (serviceId: string, report: (error: unknown) => void) =>
      new AskSpans(spansTo, metrics, serviceId, report),
  });
}
