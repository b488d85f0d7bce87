/** Which audit events record a message about an open ask reaching someone: one rule for all. */
import type { AskAuditEvent } from '../engine/audit.js';

type SentEvent = Extract<AskAuditEvent, { type: 'notified' | 'reminded' | 'escalated' }>;

/**
 * The delivery an audit event records when it is a message about the open ask sent to someone
 * (the first notification, a reminder, an escalation: the person was told of the ask), else
 * `undefined`. A settled notice is not one: it tells how the ask ended.
 */
export function openAskMessageOf(event: AskAuditEvent): SentEvent['data'] | undefined {
  if (event.type === 'reminded' || event.type === 'escalated') return event.data;
  return event.type === 'notified' && event.data.kind === 'created' ? event.data : undefined;
}
