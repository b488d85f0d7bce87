/**
 * The metrics of asks: made once per `createOtel()` and shared by the services that use it.
 * Each figure is counted by the process that wrote what it counts (one write, one count), so
 * the figures of several processes sharing a store add up; the pending gauge counts the asks
 * each service holds.
 */
import type { Attributes, Counter, Histogram, Meter, UpDownCounter } from '@opentelemetry/api';
import type { AskAuditEvent } from '../engine/audit.js';
import { ATTR } from './attributes.js';

/** Buckets for a person's answer: from a fraction of a second to a day, in seconds. */
const DURATION_BUCKETS = [
  0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 7200, 14400, 28800, 86400,
];

export class AskMetrics {
  /** Asks a service started (or attached to) that have no outcome yet. */
  readonly pending: UpDownCounter;
  readonly #duration: Histogram;
  readonly #sweeps: Counter;
  readonly #timeouts: Counter;
  readonly #refusals: Counter;

  constructor(meter: Meter) {
    this.pending = meter.createUpDownCounter('ask_engine.asks.pending', {
      description: 'Asks a service started that wait for their first outcome.',
      unit: '{ask}',
    });
    this.#duration = meter.createHistogram('ask_engine.ask.duration', {
      description: "Time from an ask's start to each outcome it reaches, by outcome status.",
      unit: 's',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
    this.#sweeps = meter.createCounter('ask_engine.sweeps', {
      description:
        'Polls of the store for asks whose deadline passed; failed ones carry error.type.',
      unit: '{sweep}',
    });
    this.#timeouts = meter.createCounter('ask_engine.sweep.timeouts', {
      description: 'Asks a sweep of the store timed out.',
      unit: '{ask}',
    });
    this.#refusals = meter.createCounter('ask_engine.refusals', {
      description:
        'Answers refused: invalid ones (the ask stays open) and ones for an ask that already had its outcome.',
      unit: '{attempt}',
    });
  }

  /** An outcome this process wrote, `seconds` after the ask started. */
  outcome(status: string, seconds: number): void {
    this.#duration.record(seconds, { [ATTR.outcomeStatus]: status });
  }

  /** A note this process wrote: refusals are counted. */
  note(event: AskAuditEvent): void {
    if (event.type === 'answer.refused') {
      this.#refusals.add(1, {
        [ATTR.refusalReason]: 'invalid-answer',
        [ATTR.refusalSource]: event.data.source,
      });
    } else if (event.type === 'late-answer') {
      this.#refusals.add(1, {
        [ATTR.refusalReason]: 'settled',
        [ATTR.refusalSource]: event.data.source,
      });
    }
  }

  swept(claimed: number, error: unknown): void {
    const attributes: Attributes = {};
    if (error !== undefined) attributes['error.type'] = errorType(error);
    this.#sweeps.add(1, attributes);
    if (claimed > 0) this.#timeouts.add(claimed);
  }
}

/** `error.type` as OpenTelemetry's conventions have it: the error's class or code. */
export function errorType(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    const name = (error as { name?: unknown }).name;
    if (typeof name === 'string' && name !== '') return name;
  }
  return '_OTHER';
}
