/**
 * What the engine hands out can never change what it keeps: rows and audit events are frozen
 * deeply where they are written (so the store's own objects are immutable), and an outcome is
 * handed out as that frozen object, or as a frozen copy where it is not frozen yet.
 */
import type { AskOutcome } from '../contracts/outcome.js';

/**
 * `outcome` as the caller gets it: frozen all the way down. For an aborted ask in the process
 * that aborted it, the caller's original cause (`localCause`) replaces the stored JSON copy; a
 * cause is the caller's own object and is passed on as it is.
 */
export function freezeOutcome(outcome: AskOutcome, localCause: unknown): AskOutcome {
  if (outcome.status === 'aborted' && localCause !== undefined) {
    return Object.freeze({ status: 'aborted', cause: localCause, message: outcome.message });
  }
  return Object.isFrozen(outcome) ? outcome : (frozenCopy(outcome) as AskOutcome);
}

/**
 * Freezes `value` and everything it holds, in place. A frozen object is taken as frozen all
 * the way down (everything the engine freezes, it freezes deeply), so shared parts such as an
 * ask's questions are walked once.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  if (Array.isArray(value)) {
    for (const item of value) deepFreeze(item);
  } else {
    for (const key in value) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

/** A deep frozen copy of plain data. */
export function frozenCopy<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return Object.freeze(value.map(frozenCopy)) as T;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    copy[key] = frozenCopy((value as Record<string, unknown>)[key]);
  }
  return Object.freeze(copy) as T;
}
