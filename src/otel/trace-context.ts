/**
 * The W3C trace context kept with an ask (`traceparent`, `tracestate` in its snapshot), so a
 * process that moves the ask on later, here or on another host, puts its spans in the ask's
 * trace. Written and read here, independent of the host's propagators: the store is ours.
 */
import type { Context, SpanContext } from '@opentelemetry/api';
import type { AskTraceContext } from '../engine/ask-observer.js';
import { otelApi } from './api.js';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The trace context to keep for a span, or `undefined` for an invalid (no-op) span. */
export function traceContextOf(span: SpanContext): AskTraceContext | undefined {
  if (!otelApi.trace.isSpanContextValid(span)) return undefined;
  const flags = (span.traceFlags & 0xff).toString(16).padStart(2, '0');
  const kept: AskTraceContext = { traceparent: `00-${span.traceId}-${span.spanId}-${flags}` };
  const state = span.traceState?.serialize();
  if (state !== undefined && state !== '') kept.tracestate = state;
  return kept;
}

/** The context whose parent is the kept span (remote), or `undefined` when none is kept. */
export function contextOf(
  traceparent: string | undefined,
  tracestate: string | undefined,
): Context | undefined {
  const match = traceparent === undefined ? null : TRACEPARENT.exec(traceparent);
  if (match === null) return undefined;
  const span: SpanContext = {
    traceId: match[1] as string,
    spanId: match[2] as string,
    traceFlags: Number.parseInt(match[3] as string, 16),
    isRemote: true,
  };
  if (tracestate !== undefined) span.traceState = otelApi.createTraceState(tracestate);
  if (!otelApi.trace.isSpanContextValid(span)) return undefined;
  return otelApi.trace.setSpanContext(otelApi.ROOT_CONTEXT, span);
}
