/**
 * The observer of one service: one span per ask it starts, from `start` until the service
 * hands the outcome out (a final outcome, or `deferred`), with an event per transition it
 * writes or learns of. Whatever this service writes on an ask it holds no span for (an ask
 * started elsewhere, or deferred earlier) becomes a short span in that ask's trace: a child of
 * the span whose context is kept with the ask, linked to the span active here.
 */
import type { Context, Link, Span, Tracer } from '@opentelemetry/api';
import type { AskMachineInput } from '../../machines/ask.machine.js';
import type { PersistedAskState } from '../engine/ask-logic.js';
import type { AskObserver, AskTraceContext } from '../engine/ask-observer.js';
import type { AskAuditEvent } from '../engine/audit.js';
import { otelApi } from './api.js';
import type { AskMetrics } from './ask-metrics.js';
import { ATTR, outcomeAttributes, startAttributes, transitionAttributes } from './attributes.js';
import { contextOf, traceContextOf } from './trace-context.js';

/** The name of an ask's own span; short spans are named `ask-engine.<audit event type>`. */
const ASK_SPAN_NAME = 'ask-engine.ask';

/** Events of a change another process wrote, learned from the store. */
const LEARNED_EVENT_NAME = 'store.changed';

interface Held {
  span: Span;
  /** The state the span last recorded; `undefined` before the first write. */
  state: string | undefined;
}

export class AskSpans implements AskObserver {
  readonly #held = new Map<string, Held>();
  readonly #tracer: Tracer;
  readonly #metrics: AskMetrics;
  readonly #serviceId: string;
  readonly #report: (error: unknown) => void;

  /** `report` hears of a tracer or meter that threw: telemetry never breaks an ask. */
  constructor(
    tracer: Tracer,
    metrics: AskMetrics,
    serviceId: string,
    report: (error: unknown) => void,
  ) {
    this.#tracer = tracer;
    this.#metrics = metrics;
    this.#serviceId = serviceId;
    this.#report = report;
  }

  start(
    input: Readonly<AskMachineInput>,
    questions: number,
    key: string | undefined,
  ): AskTraceContext | undefined {
    try {
      // A child of the caller's active span: the wait shows in the trace of the agent's turn.
      const span = this.#tracer.startSpan(
        ASK_SPAN_NAME,
        { attributes: startAttributes(input, questions, this.#serviceId, key) },
        otelApi.context.active(),
      );
      this.#held.set(input.askId, { span, state: undefined });
      this.#metrics.pending.add(1);
      return traceContextOf(span.spanContext());
    } catch (error) {
      this.#report(error);
      return undefined;
    }
  }

  written(event: AskAuditEvent, snapshot: PersistedAskState): void {
    try {
      const held = this.#held.get(event.askId);
      if (held === undefined) this.#shortSpan(event, snapshot);
      else {
        if (held.span.isRecording()) {
          held.span.addEvent(
            event.type,
            transitionAttributes(event.from ?? undefined, snapshot, event),
          );
        }
        this.#moved(event.askId, held, snapshot);
      }
      const outcome = snapshot.context.outcome;
      if (event.from !== event.to && outcome !== undefined) {
        this.#metrics.outcome(outcome.status, (event.at - snapshot.context.createdAt) / 1000);
      }
      this.#metrics.note(event);
    } catch (error) {
      this.#report(error);
    }
  }

  learned(snapshot: PersistedAskState): void {
    try {
      const askId = snapshot.context.askId;
      const held = this.#held.get(askId);
      if (held === undefined || held.state === snapshot.value) return;
      if (held.span.isRecording()) {
        held.span.addEvent(
          LEARNED_EVENT_NAME,
          transitionAttributes(held.state, snapshot, undefined),
        );
      }
      this.#moved(askId, held, snapshot);
    } catch (error) {
      this.#report(error);
    }
  }

  failed(askId: string, error: unknown): void {
    try {
      const held = this.#held.get(askId);
      if (held === undefined) return;
      held.span.recordException(exceptionOf(error));
      held.span.setStatus({ code: otelApi.SpanStatusCode.ERROR, message: messageOf(error) });
      this.#end(askId, held);
    } catch (thrown) {
      this.#report(thrown);
    }
  }

  swept(claimed: number, error?: unknown): void {
    try {
      this.#metrics.swept(claimed, error);
    } catch (thrown) {
      this.#report(thrown);
    }
  }

  close(): void {
    for (const [askId, held] of this.#held) {
      try {
        held.span.addEvent('service.closed');
        this.#end(askId, held);
      } catch (error) {
        this.#held.delete(askId);
        this.#report(error);
      }
    }
  }

  /** The span records the ask's new state, and ends once the ask has an outcome. */
  #moved(askId: string, held: Held, snapshot: PersistedAskState): void {
    held.state = snapshot.value;
    if (snapshot.context.outcome === undefined) return;
    if (held.span.isRecording()) {
      held.span.setAttributes(outcomeAttributes(snapshot));
      held.span.setAttribute(ATTR.state, snapshot.value);
      if (isError(snapshot)) held.span.setStatus({ code: otelApi.SpanStatusCode.ERROR });
    }
    this.#end(askId, held);
  }

  #end(askId: string, held: Held): void {
    this.#held.delete(askId);
    this.#metrics.pending.add(-1);
    held.span.end();
  }

  /** A write on an ask this service holds no span for: a span of its own in the ask's trace. */
  #shortSpan(event: AskAuditEvent, snapshot: PersistedAskState): void {
    const active = otelApi.context.active();
    const kept = contextOf(snapshot.context.traceparent, snapshot.context.tracestate);
    // Linked to the span live here (a request being served), never to one that ended long
    // ago and is only still current in a timer's inherited context (the sweeper's).
    const here = otelApi.trace.getSpan(active);
    const links: Link[] =
      kept !== undefined && here?.isRecording() === true ? [{ context: here.spanContext() }] : [];
    const attributes = transitionAttributes(event.from ?? undefined, snapshot, event);
    attributes[ATTR.askId] = event.askId;
    attributes[ATTR.serviceId] = this.#serviceId;
    const parent: Context = kept ?? active;
    const span = this.#tracer.startSpan(`ask-engine.${event.type}`, { attributes, links }, parent);
    if (isError(snapshot) && event.from !== event.to) {
      span.setStatus({ code: otelApi.SpanStatusCode.ERROR });
    }
    span.end();
  }
}

/** An outcome that means something failed: the provider erred or answered invalidly. */
function isError(snapshot: PersistedAskState): boolean {
  const outcome = snapshot.context.outcome;
  return (
    outcome?.status === 'cancelled' &&
    (outcome.reason === 'provider-error' || outcome.reason === 'invalid-answer')
  );
}

function exceptionOf(error: unknown): Error | string {
  return error instanceof Error ? error : String(error);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
