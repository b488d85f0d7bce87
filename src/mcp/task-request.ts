/**
 * The Tasks extension as a request declares it: whether the client's capabilities on this
 * request include it, the refusal when they do not, and the params of the task methods.
 */
import {
  type ClientCapabilities,
  MissingRequiredClientCapabilityError,
  type StandardSchemaV1,
} from '@modelcontextprotocol/server';
import { describe } from '../rules/describe.js';
import { TASKS_EXTENSION } from './task-state.js';

/** True when `capabilities` (a 2026-era request's own) declare the Tasks extension. */
export function declaresTasks(capabilities: ClientCapabilities | undefined): boolean {
  return capabilities?.extensions?.[TASKS_EXTENSION] !== undefined;
}

/** Refuses a request whose capabilities do not declare the Tasks extension (-32021). */
export function requireTasks(capabilities: ClientCapabilities | undefined): void {
  if (declaresTasks(capabilities)) return;
  throw new MissingRequiredClientCapabilityError(
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    `Tasks need the ${TASKS_EXTENSION} extension in the request's client capabilities.`,
  );
}

/** `params` of `tasks/get`, `tasks/update` and `tasks/cancel`: the task id. */
export const TASK_PARAMS: StandardSchemaV1<unknown, { taskId: string }> = {
  '~standard': {
    version: 1,
    vendor: 'ask-engine',
    validate(value) {
      const taskId =
        typeof value === 'object' && value !== null
          ? (value as { taskId?: unknown }).taskId
          : undefined;
      if (typeof taskId === 'string') return { value: { taskId } };
      return {
        issues: [
          {
            message: `Expected taskId to be the string a tools/call of ask_user returned, got ${describe(taskId)}.`,
            path: ['taskId'],
          },
        ],
      };
    },
  },
};
