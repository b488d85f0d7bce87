import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { createInteractionService, createScriptedProvider } from 'ask-engine';
import { createOtel } from 'ask-engine/otel';

// The host's OpenTelemetry SDK (here one that keeps spans in memory).
const exporter = new InMemorySpanExporter();
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
trace.setGlobalTracerProvider(
  new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }),
);

// The global tracer and meter (whatever the host's SDK registered), or pass { tracer, meter }.
const service = createInteractionService({ otel: createOtel() });
service.registerProvider(
  createScriptedProvider([
    { answer: [{ questionId: 'q1', response: { kind: 'selection', selections: ['Yes'] } }] },
  ]),
);
await service.ask({ question: 'Deploy now?', options: ['Yes', 'No'] });
await service.close();
for (const span of exporter.getFinishedSpans()) {
  console.log(span.name, span.events.map((event) => event.name).join(' → '));
}
