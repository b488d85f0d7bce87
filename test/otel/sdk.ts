/**
 * The real OpenTelemetry SDK, recording in memory: spans through an in-memory exporter, metrics
 * through a reader collected on demand, and the AsyncLocalStorage context manager a Node host
 * registers, so `startActiveSpan` makes a caller's span active across awaits.
 */
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  type DataPoint,
  type Histogram,
  MeterProvider,
  MetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';

let contextManager: AsyncLocalStorageContextManager | undefined;

/** Registers the context manager once per process (a second registration would be refused). */
function registerContextManager(): void {
  if (contextManager !== undefined) return;
  contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
}

class CollectingReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

export function recordTelemetry() {
  registerContextManager();
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new TracerProvider({
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  });
  const reader = new CollectingReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  return {
    tracerProvider,
    meterProvider,
    tracer: tracerProvider.getTracer('ask-engine-test'),
    meter: meterProvider.getMeter('ask-engine-test'),
    /** Finished spans, in the order they ended. */
    spans: (): ReadableSpan[] => exporter.getFinishedSpans(),
    /** The data points of one metric, collected now. */
    async points(name: string): Promise<DataPoint<number | Histogram>[]> {
      const { resourceMetrics } = await reader.collect();
      for (const scope of resourceMetrics.scopeMetrics) {
        for (const metric of scope.metrics) {
          if (metric.descriptor.name === name) {
            return metric.dataPoints as DataPoint<number | Histogram>[];
          }
        }
      }
      return [];
    },
  };
}

/** A span as plain JSON, for comparing across processes and for searching its text. */
export function spanJson(span: ReadableSpan) {
  return {
    name: span.name,
    traceId: span.spanContext().traceId,
    spanId: span.spanContext().spanId,
    parentSpanId: span.parentSpanContext?.spanId,
    status: span.status.code,
    attributes: span.attributes,
    events: span.events.map((event) => ({ name: event.name, attributes: event.attributes ?? {} })),
    links: span.links.map((link) => link.context.spanId),
  };
}
