/** The audit trail: one event per lifecycle transition and per refused late answer. */

export type AskState = 'pending' | 'answered' | 'cancelled' | 'deferred' | 'timedOut' | 'aborted';

export interface AskAuditEvent {
  askId: string;
  /** What happened: `start`, `restore`, the machine event type, or `late-answer`. */
  type: string;
  /** Time on the service's clock, ms since the epoch. */
  at: number;
  /** State before; `null` for `start` and `restore`. */
  from: AskState | null;
  to: AskState;
  /** The event's payload; answers are replaced by `'[redacted]'` when the service redacts. */
  data: Record<string, unknown>;
}
