/** The options of the OpenAI Agents approvals, each checked up front with the value received. */
import { isAbortSignalLike } from '../engine/abortable.js';
import { describe } from '../rules/describe.js';
import { checkStoreText } from '../rules/store-text.js';
import { isTimeoutMs, MIN_TIMEOUT_MS } from '../rules/timeout.js';
import type { AlwaysOption } from './approval-call.js';
import { DEFAULT_ROUND_LEASE_MS } from './round-claim.js';
import type { ResumeRunOptions, RunApprovalOptions } from './run-types.js';

/** The checked options, with their defaults. */
export interface CheckedRunOptions extends CheckedWaitOptions {
  runId: string;
  allowEdits: boolean;
  always: AlwaysOption;
}

/** The checked options both functions share, with their defaults. */
export interface CheckedWaitOptions {
  leaseMs: number;
}

/** Checks `askRunApprovals`' options; throws a `TypeError` naming the option and the value. */
export function checkRunOptions(options: RunApprovalOptions): CheckedRunOptions {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`Expected options { runId, ... }, got ${describe(options)}.`);
  }
  const { runId, allowEdits = true, always = {}, timeoutMs, sessionId } = options;
  if (typeof runId !== 'string' || runId === '') {
    throw new TypeError(
      `Expected \`runId\` to be a non-empty string naming the run (a job or conversation turn id), got ${describe(runId)}.`,
    );
  }
  checkStoreText(runId, 'runId');
  if (typeof allowEdits !== 'boolean') {
    throw new TypeError(`Expected \`allowEdits\` to be a boolean, got ${describe(allowEdits)}.`);
  }
  if (timeoutMs !== undefined && !isTimeoutMs(timeoutMs)) {
    throw new TypeError(
      `Expected \`timeoutMs\` to be a number of milliseconds, at least ${MIN_TIMEOUT_MS}, got ${describe(timeoutMs)}.`,
    );
  }
  if (sessionId !== undefined && (typeof sessionId !== 'string' || sessionId === '')) {
    throw new TypeError(
      `Expected \`sessionId\` to be a non-empty string, got ${describe(sessionId)}.`,
    );
  }
  const { leaseMs } = checkWaitOptions(options);
  return { runId, allowEdits, always: checkAlways(always), leaseMs };
}

/** Checks the `signal` and `leaseMs` of either function. */
export function checkWaitOptions(options: ResumeRunOptions): CheckedWaitOptions {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`Expected options to be an object, got ${describe(options)}.`);
  }
  if (options.signal !== undefined && !isAbortSignalLike(options.signal)) {
    throw new TypeError(
      `Expected \`signal\` to be an AbortSignal, got ${describe(options.signal)}.`,
    );
  }
  const { leaseMs = DEFAULT_ROUND_LEASE_MS } = options;
  if (typeof leaseMs !== 'number' || !Number.isSafeInteger(leaseMs) || leaseMs < 100) {
    throw new TypeError(
      `Expected \`leaseMs\` to be whole milliseconds from 100 up (the round's claim is renewed every third of it), got ${describe(leaseMs)}.`,
    );
  }
  return { leaseMs };
}

/** `always`: tool names, as plain lists; anything else names the field. */
export function checkAlways(always: unknown): AlwaysOption {
  if (typeof always !== 'object' || always === null || Array.isArray(always)) {
    throw new TypeError(
      `Expected \`always\` to be an object { approve?, reject? } of tool names, got ${describe(always)}.`,
    );
  }
  const checked: AlwaysOption = {};
  for (const [field, names] of Object.entries(always)) {
    if (field !== 'approve' && field !== 'reject') {
      throw new TypeError(
        `Expected \`always\` to have only \`approve\` and \`reject\`, got \`${field}\`.`,
      );
    }
    if (names === undefined) continue;
    if (!Array.isArray(names) || !names.every((name) => typeof name === 'string' && name !== '')) {
      throw new TypeError(
        `Expected \`always.${field}\` to be an array of tool names, got ${describe(names)}.`,
      );
    }
    checked[field] = [...new Set(names as string[])].sort();
  }
  return checked;
}
