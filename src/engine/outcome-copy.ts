/** Outcomes handed out are frozen copies: a caller that mutates one changes nothing else. */
import type { AskOutcome } from '../contracts/outcome.js';

/**
 * A deep frozen copy of `outcome`. For an aborted ask in the process that aborted it, the
 * caller's original cause (`localCause`) replaces the stored JSON copy; a cause is the
 * caller's own object and is passed on as it is, not copied.
 */
export function freezeOutcome(outcome: AskOutcome, localCause: unknown): AskOutcome {
  if (outcome.status === 'aborted') {
    return Object.freeze({
      status: 'aborted',
      cause: localCause === undefined ? frozenCopy(outcome.cause) : localCause,
      message: outcome.message,
    });
  }
  return frozenCopy(outcome) as AskOutcome;
}

function frozenCopy(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return Object.freeze(value.map(frozenCopy));
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    copy[key] = frozenCopy((value as Record<string, unknown>)[key]);
  }
  return Object.freeze(copy);
}
