/**
 * The attributes ask-engine puts on spans, span events and metrics: named once here. Answers
 * never go to telemetry (traces usually leave the host's trust boundary): an event carries how
 * many questions were answered, never what. Every other value comes from the audit event or
 * the stored snapshot, which are redacted where they are written.
 */
import type { Attributes } from '@opentelemetry/api';
import type { AskMachineInput } from '../../machines/ask.machine.js';
import type { PersistedAskState } from '../engine/ask-logic.js';
import type { AskAuditEvent } from '../engine/audit.js';

export const ATTR = {
  askId: 'ask_engine.ask.id',
  key: 'ask_engine.ask.key',
  questions: 'ask_engine.ask.questions',
  deadlineAt: 'ask_engine.ask.deadline_at',
  toolCallId: 'ask_engine.tool_call.id',
  sessionId: 'ask_engine.session.id',
  agent: 'ask_engine.agent',
  redact: 'ask_engine.redact',
  serviceId: 'ask_engine.service.id',
  state: 'ask_engine.state',
  stateFrom: 'ask_engine.state.from',
  outcomeStatus: 'ask_engine.outcome.status',
  outcomeReason: 'ask_engine.outcome.reason',
  outcomeMessage: 'ask_engine.outcome.message',
  interactionId: 'ask_engine.interaction.id',
  answeredByRecipient: 'ask_engine.answered_by.recipient',
  answeredByChannel: 'ask_engine.answered_by.channel',
  /** Prefix of an audit event's own data fields (`ask_engine.event.reason`, …). */
  event: 'ask_engine.event.',
  refusalReason: 'ask_engine.refusal.reason',
  refusalSource: 'ask_engine.refusal.source',
} as const;

/** The attributes of a new ask's span. */
export function startAttributes(
  input: Readonly<AskMachineInput>,
  questions: number,
  serviceId: string,
  key: string | undefined,
): Attributes {
  const attributes: Attributes = {
    [ATTR.askId]: input.askId,
    [ATTR.questions]: questions,
    [ATTR.serviceId]: serviceId,
  };
  if (key !== undefined) attributes[ATTR.key] = key;
  if (input.deadlineAt !== undefined) attributes[ATTR.deadlineAt] = input.deadlineAt;
  if (input.toolCallId !== undefined) attributes[ATTR.toolCallId] = input.toolCallId;
  if (input.sessionId !== undefined) attributes[ATTR.sessionId] = input.sessionId;
  if (input.agent !== undefined) attributes[ATTR.agent] = input.agent;
  if (input.redact === true) attributes[ATTR.redact] = true;
  return attributes;
}

/**
 * The attributes of a transition: the state it left and reached, the outcome (status, reason,
 * message, who answered), and the audit event's own data when this process wrote it.
 */
export function transitionAttributes(
  from: string | undefined,
  snapshot: PersistedAskState,
  event: AskAuditEvent | undefined,
): Attributes {
  const attributes: Attributes = { [ATTR.state]: snapshot.value };
  if (from !== undefined) attributes[ATTR.stateFrom] = from;
  Object.assign(attributes, outcomeAttributes(snapshot));
  if (event !== undefined) {
    for (const [name, value] of Object.entries(event.data as Record<string, unknown>)) {
      const attribute = dataAttribute(name, value);
      if (attribute !== undefined) attributes[`${ATTR.event}${name}`] = attribute;
    }
  }
  return attributes;
}

/** The outcome of the ask as the snapshot has it, if any. */
export function outcomeAttributes(snapshot: PersistedAskState): Attributes {
  const outcome = snapshot.context.outcome as Record<string, unknown> | undefined;
  if (outcome === undefined) return {};
  const attributes: Attributes = { [ATTR.outcomeStatus]: outcome.status as string };
  if (typeof outcome.reason === 'string') attributes[ATTR.outcomeReason] = outcome.reason;
  if (typeof outcome.message === 'string') attributes[ATTR.outcomeMessage] = outcome.message;
  if (typeof outcome.interactionId === 'string') {
    attributes[ATTR.interactionId] = outcome.interactionId;
  }
  // Read loosely: `{ recipient, channel? }`, or a bare recipient string.
  const by = outcome.answeredBy as { recipient?: unknown; channel?: unknown } | string | undefined;
  if (typeof by === 'string') attributes[ATTR.answeredByRecipient] = by;
  else if (typeof by === 'object' && by !== null) {
    if (typeof by.recipient === 'string') attributes[ATTR.answeredByRecipient] = by.recipient;
    if (typeof by.channel === 'string') attributes[ATTR.answeredByChannel] = by.channel;
  }
  return attributes;
}

/** One field of an audit event's data as an attribute: answers become how many were answered. */
function dataAttribute(name: string, value: unknown): string | number | boolean | undefined {
  if (name === 'answers') {
    // `'[redacted]'` under redaction: the count is not known, and nothing is said.
    return Array.isArray(value)
      ? value.filter((answer) => (answer as { response?: unknown }).response != null).length
      : undefined;
  }
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? value
    : undefined;
}
