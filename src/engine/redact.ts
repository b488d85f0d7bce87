/** Keeps what a person answered out of audit and inspection events unless the host allows it. */
import type { InspectionEvent } from 'xstate';

/** What stands in for answers in audit and inspection events when the service redacts. */
export const REDACTED = '[redacted]';

const ANSWER_KEYS = new Set(['answers', 'progress']);

/**
 * Returns a copy of `value` in which every `answers` / `progress` field (at any depth, in
 * plain objects and arrays) is replaced by `'[redacted]'`. Other values are shared, not copied.
 */
export function redactAnswers<T>(value: T): T {
  return redactValue(value, 0) as T;
}

function redactValue(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null) return value;
  // Fail closed: past any depth an ask's data has, nothing is passed on unread.
  if (depth > 16) return REDACTED;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1));
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    // defineProperty: an own `__proto__` key must stay data, never become the prototype.
    Object.defineProperty(copy, key, {
      value: ANSWER_KEYS.has(key) ? REDACTED : redactValue(item, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}

/**
 * A copy of an xstate inspection event with every answer replaced by `'[redacted]'`. The actor
 * references are redacted too: inspectors read `actorRef.getSnapshot()` later, on their own
 * schedule (@statelyai/inspect does so for `@xstate.actor`), and would see the live context.
 */
export function redactInspection(event: InspectionEvent): InspectionEvent {
  const refs = {
    actorRef: redactedRef(event.actorRef),
    ...('sourceRef' in event && event.sourceRef !== undefined
      ? { sourceRef: redactedRef(event.sourceRef) }
      : {}),
  };
  switch (event.type) {
    case '@xstate.event':
      return { ...event, ...refs, event: redactAnswers(event.event) };
    case '@xstate.snapshot':
    case '@xstate.microstep':
      return {
        ...event,
        ...refs,
        event: redactAnswers(event.event),
        snapshot: redactAnswers(event.snapshot),
      };
    case '@xstate.action':
      return { ...event, ...refs, action: redactAnswers(event.action) };
    default:
      return { ...event, ...refs };
  }
}

// Delegates everything to the real actor but its snapshots, which come out redacted.
const redactedRefs = new WeakMap<object, object>();
function redactedRef<T extends object>(ref: T): T {
  let view = redactedRefs.get(ref);
  if (view === undefined) {
    const { getSnapshot } = ref as { getSnapshot?: () => unknown };
    view = Object.create(ref, {
      getSnapshot: { value: () => redactAnswers(getSnapshot?.call(ref)) },
    }) as object;
    redactedRefs.set(ref, view);
  }
  return view as T;
}
