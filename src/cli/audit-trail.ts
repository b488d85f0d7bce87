/** Formats the audit trail (every lifecycle transition) as aligned text lines. */
import type { AskAuditEvent } from '../engine/audit.js';

/**
 * One line per event: seconds since the first event, the ask, the event, `from → to`.
 *
 * @example
 * formatAuditTrail(events) // => ['+0.000s  ask 1  start            → pending', ...]
 */
export function formatAuditTrail(events: readonly AskAuditEvent[]): string[] {
  const first = events[0]?.at ?? 0;
  const numbers = new Map<string, number>();
  return events.map((event) => {
    let number = numbers.get(event.askId);
    if (number === undefined) {
      number = numbers.size + 1;
      numbers.set(event.askId, number);
    }
    const elapsed = `+${((event.at - first) / 1000).toFixed(3)}s`.padStart(10);
    const time = new Date(event.at).toISOString().slice(11, 23);
    const transition = `${event.from ?? '·'} → ${event.to}`;
    return `${elapsed}  ${time}  ask ${number}  ${event.type.padEnd(18)} ${transition}${detail(event)}`;
  });
}

function detail(event: AskAuditEvent): string {
  const { reason, message, answered, total } = event.data as Record<string, unknown>;
  if (typeof answered === 'number' && typeof total === 'number') return `  (${answered}/${total})`;
  if (typeof reason === 'string') return `  (${reason})`;
  if (typeof message === 'string') return `  (${message})`;
  return '';
}
