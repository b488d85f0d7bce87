/**
 * Intake: a caller's request and options become a new open ask (normalized, frozen questions,
 * its id, its start snapshot), and a second request under a key is checked to be the same one.
 */
import type { AskMachineInput } from '../../machines/ask.machine.js';
import type { AskUserQuestion } from '../contracts/question.js';
import type { AskUserRequest } from '../contracts/request.js';
import type { AskUserRequestInput } from '../contracts/tool-input.js';
import { UserInteractionError } from '../rules/errors.js';
import { readAskRequest } from '../rules/normalize.js';
import { readQuorumOption } from '../rules/quorum.js';
import { checkTimeoutMs, deadlineFrom } from '../rules/timeout.js';
import type { StoredAsk } from '../stores/ask-store.js';
import { askIdForKey } from './ask-ids.js';
import type { AskTraceContext } from './ask-observer.js';
import { deliversIn, initialAskState } from './ask-table.js';
import { basisOf } from './ask-write.js';
import { OpenAsk } from './open-ask.js';
import { deepFreeze } from './outcome-copy.js';
import type { AskOptions } from './service-contract.js';
import { checkAskOptions, readAttachment } from './service-options.js';

/** Whether a new ask goes to the provider at once: the tag of the machine's initial state. */
export const DELIVERS_AT_START = deliversIn(initialAskState({ askId: 'a', createdAt: 0 }).value);

/**
 * A new ask from a caller's request: throws for a request that can never be delivered.
 * `admit` runs once the request passed its checks, before the ask exists: it may still refuse
 * it (by throwing), and returns the trace context to keep with the ask, if any.
 */
export function intakeAsk(
  request: AskUserRequestInput,
  options: AskOptions,
  now: number,
  nextId: () => string,
  redact: boolean,
  admit: (
    input: Readonly<AskMachineInput>,
    questions: number,
    key: string | undefined,
  ) => AskTraceContext | undefined,
): OpenAsk {
  checkAskOptions(options);
  const normalized = readAskRequest(request, { allowIds: true });
  if (!normalized.ok) throw normalized.error;
  const { questions, agent, hints, timeoutMs: requestTimeout } = normalized.value;
  // Kept per pending ask: a literal, not a rest copy (see createAskContext on hidden classes).
  // Frozen: the provider, every handle and the store share it.
  const askRequest: AskUserRequest = { questions: deepFreeze(questions) };
  if (agent !== undefined) askRequest.agent = agent;
  if (hints !== undefined) askRequest.hints = deepFreeze(hints);
  Object.freeze(askRequest);
  const timeoutMs =
    options.timeoutMs === undefined
      ? requestTimeout
      : checkTimeoutMs(options.timeoutMs, 'timeoutMs');
  const askId = options.key === undefined ? nextId() : askIdForKey(options.key);
  const input: AskMachineInput = { askId, createdAt: now };
  const deadlineAt = deadlineFrom(now, timeoutMs);
  if (deadlineAt !== undefined) input.deadlineAt = deadlineAt;
  if (options.toolCallId !== undefined) input.toolCallId = options.toolCallId;
  if (options.sessionId !== undefined) input.sessionId = options.sessionId;
  if (askRequest.agent !== undefined) input.agent = askRequest.agent;
  if (redact) input.redact = true;
  if (options.quorum !== undefined) input.quorum = readQuorumOption(options.quorum, questions);
  const trace = admit(input, questions.length, options.key);
  if (trace !== undefined) {
    input.traceparent = trace.traceparent;
    if (trace.tracestate !== undefined) input.tracestate = trace.tracestate;
  }
  return new OpenAsk(
    askId,
    askRequest,
    options.key,
    initialAskState(input),
    options.attachment === undefined ? undefined : readAttachment(options.attachment),
  );
}

/** A second `start` with the key of an ask this service has open: that ask, if it is the same. */
export function checkSameKey(open: OpenAsk, request: OpenAsk): OpenAsk {
  if (
    open.key === undefined ||
    !sameQuestions(open.questions, request.questions) ||
    !sameData(open.state.context.quorum, request.state.context.quorum)
  ) {
    throw otherQuestions(open.key, open.id);
  }
  return open;
}

/** `start` with a key whose ask is in the store already: it must be that key's same request. */
export function checkStoredKey(open: OpenAsk, stored: StoredAsk): void {
  if (open.key === undefined || stored.key !== open.key) {
    throw new UserInteractionError(
      'INVALID_REQUEST',
      `Ask id ${open.id} is taken by another ask in the store; choose ids (or keys) that are unique.`,
      { askId: open.id },
    );
  }
  if (
    !sameQuestions(stored.questions, open.questions) ||
    !sameData(basisOf(stored).snapshot.context.quorum, open.state.context.quorum)
  ) {
    throw otherQuestions(open.key, open.id);
  }
}

/**
 * The error for a start whose ask id belonged to a purged ask: ids are never reused, so a link
 * or token signed for the purged ask can never name a new one. A keyed id is the key's hash,
 * so the key itself cannot be used again.
 */
export function retiredIdError(open: OpenAsk): UserInteractionError {
  if (open.key === undefined) {
    return new UserInteractionError(
      'INVALID_REQUEST',
      `Ask id ${open.id} belonged to an ask that was purged; an ask id is never used again. Choose ids that are unique.`,
      { askId: open.id },
    );
  }
  return new UserInteractionError(
    'INVALID_REQUEST',
    `Key ${JSON.stringify(open.key)} named ask ${open.id}, which was purged; a purged ask's id (and so its key) is never used again, so links to it cannot open a new ask. Start with a new key.`,
    { askId: open.id, key: open.key },
  );
}

function otherQuestions(key: string | undefined, askId: string): UserInteractionError {
  return new UserInteractionError(
    'INVALID_REQUEST',
    `Key ${JSON.stringify(key)} already belongs to ask ${askId} with other questions (or another quorum); a key names one request.`,
    { askId, key },
  );
}

/** Questions compared as data: the order of object keys does not count (a JSON column may reorder them). */
export function sameQuestions(
  a: readonly AskUserQuestion[],
  b: readonly AskUserQuestion[],
): boolean {
  return sameData(a, b);
}

/** Deep equality of JSON data, object keys in any order; an `undefined` property counts as absent. */
export function sameData(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    if (a.length !== other.length) return false;
    for (let index = 0; index < a.length; index++) {
      if (!sameData(a[index], other[index])) return false;
    }
    return true;
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const leftKeys = Object.keys(left).filter((key) => left[key] !== undefined);
  const rightKeys = Object.keys(right).filter((key) => right[key] !== undefined);
  if (leftKeys.length !== rightKeys.length) return false;
  for (const key of leftKeys) {
    if (!Object.hasOwn(right, key) || !sameData(left[key], right[key])) return false;
  }
  return true;
}
