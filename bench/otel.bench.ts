/**
 * (o) What tracing costs a durable ask: start, then `service.answer`, in SQLite, with
 * `otel: createOtel()` on the real OpenTelemetry SDK (spans through a batch processor to an
 * exporter that drops them, metrics through a reader, the AsyncLocalStorage context manager a
 * Node host registers), against the same durable ask without the option, in the same run.
 * Goal <= 1.3x. First with the store's defaults (an fsync per commit), then, labelled, both
 * sides with `synchronous: 'normal'`, where the disk costs less and tracing's own cost shows
 * more.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { context, type Meter, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor, type SpanExporter, TracerProvider } from '@opentelemetry/sdk-trace';
import { createInteractionService } from '../src/index.js';
import { createOtel } from '../src/otel/index.js';
import { createSqliteAskStore } from '../src/sqlite.js';
import { yesAnswer, yesNoRequest } from './fixtures.js';
import { timeRatio } from './ratio.js';

const dir = mkdtempSync(join(tmpdir(), 'ask-engine-bench-otel-'));
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());

/** Takes every batch and keeps nothing, as a collector on the other end of a socket would. */
const dropping: SpanExporter = {
  export: (_spans, done) => done({ code: 0 }),
  shutdown: async () => undefined,
};

class Reader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

try {
  const tracerProvider = new TracerProvider({
    spanProcessors: [new BatchSpanProcessor({ exporter: dropping })],
  });
  const reader = new Reader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const tracer = tracerProvider.getTracer('ask-engine-bench');
  const meter = meterProvider.getMeter('ask-engine-bench');
  await traced(undefined, tracer, meter);
  await traced('normal', tracer, meter);
  // The reader saw the figures: the subject recorded metrics all along.
  const { resourceMetrics } = await reader.collect();
  const names = resourceMetrics.scopeMetrics.flatMap((scope) =>
    scope.metrics.map((metric) => metric.descriptor.name),
  );
  if (!names.includes('ask_engine.ask.duration')) throw new Error('no metrics were recorded');
  await tracerProvider.shutdown();
  await meterProvider.shutdown();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(process.exitCode ?? 0);

async function traced(
  synchronous: 'normal' | undefined,
  tracer: Tracer,
  meter: Meter,
): Promise<void> {
  const name = synchronous ?? 'default';
  const durableAsk = (otel: boolean) => {
    const store = createSqliteAskStore(
      { path: join(dir, `${otel ? 'traced' : 'plain'}-${name}.db`) },
      synchronous === undefined ? {} : { synchronous },
    );
    const service = createInteractionService(
      otel ? { store, otel: createOtel({ tracer, meter }) } : { store },
    );
    service.registerProvider({ ask: () => new Promise(() => undefined) });
    // As in (d): the answer is applied once the ask is stored, as a person's is.
    const ask = async () => {
      const handle = service.start(yesNoRequest, { timeoutMs: 60_000 });
      const outcome = await service.answer(handle.id, yesAnswer);
      if (outcome.status !== 'answered') throw new Error(`not answered: ${outcome.status}`);
      return outcome;
    };
    const close = async () => {
      await service.close();
      await store.close();
    };
    return { ask, close };
  };
  const plain = durableAsk(false);
  const subject = durableAsk(true);
  for (let n = 0; n < 200; n++) {
    await plain.ask();
    await subject.ask();
  }
  await timeRatio(
    '(o) durable SQLite ask (start -> answer) traced with createOtel() vs the same ask untraced',
    1.3,
    plain.ask,
    subject.ask,
    // More rounds than the default: the difference is a few percent of a disk-bound ask.
    synchronous === undefined
      ? { rounds: 41 }
      : { rounds: 41, config: `synchronous: '${synchronous}'` },
  );
  await plain.close();
  await subject.close();
}
