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
  if (unfrozen(value)) freezeAll(value);
  return value;
}

function unfrozen(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Object.isFrozen(value);
}

// The walk tests each value before descending into it: most of what a row holds is a string,
// a number or a part frozen already, and a call per value cost more than the test.
function freezeAll(value: object): void {
  Object.freeze(value);
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      if (unfrozen(item)) freezeAll(item);
    }
  } else {
    for (const key in value) {
      const item: unknown = (value as Record<string, unknown>)[key];
      if (unfrozen(item)) freezeAll(item);
    }
  }
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
