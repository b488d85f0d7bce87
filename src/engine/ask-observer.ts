/**
 * What a service tells an observer of its asks (the `otel` option; ask-engine/otel implements
 * it): plain data only, so the engine never loads a telemetry library. Each service makes one
 * observer of its own with `observe`; the service calls it from three seams: intake (a new
 * ask), the audit trail (every audit event this service writes, the sweeper's included) and
 * settlement (a change another process wrote, learned from the store).
 */
import type { AskMachineInput } from '../../machines/ask.machine.js';
import type { PersistedAskState } from './ask-logic.js';
import type { AskAuditEvent } from './audit.js';

/** The W3C trace context kept with an ask, in its snapshot's context. */
export interface AskTraceContext {
  traceparent: string;
  tracestate?: string;
}

/** What the `otel` option holds: a factory of one observer per service. */
export interface AskTelemetry {
  /**
   * The observer of the service `serviceId`; called once, when the service is created.
   * `report` is the service's `onError`: an observer reports its own failures there and never
   * throws into the service.
   */
  observe(serviceId: string, report: (error: unknown) => void): AskObserver;
}

/** One service's observer of its asks: told of each new ask, each write and each change learned. */
export interface AskObserver {
  /**
   * A new ask of this service, about to be written: returns the trace context to keep with
   * it, if any. Runs in the caller's own `start` / `ask` call, so the caller's active context
   * is current.
   */
  start(
    input: Readonly<AskMachineInput>,
    questions: number,
    key: string | undefined,
  ): AskTraceContext | undefined;
  /** This service wrote `event` (a transition or a note); the ask is now `snapshot`. */
  written(event: AskAuditEvent, snapshot: PersistedAskState): void;
  /** Another process moved the ask on: the store now holds `snapshot`. */
  learned(snapshot: PersistedAskState): void;
  /** The caller of an ask this service started gets `error` instead of an outcome. */
  failed(askId: string, error: unknown): void;
  /** One sweep of the store ran: `claimed` asks timed out, or it failed with `error`. */
  swept(claimed: number, error?: unknown): void;
  /** The service closed: whatever the observer holds for its asks ends here. */
  close(): void;
}

/** The method names of an observer factory, for checking the `otel` option. */
export const ASK_TELEMETRY_METHODS = ['observe'] as const satisfies readonly (keyof AskTelemetry)[];
