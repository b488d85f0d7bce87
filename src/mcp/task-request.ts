/**
 * What a 2026-07-28 request says about its client (the per-request `_meta` envelope): the
 * capabilities it declared on this request, whether that includes the Tasks extension, and
 * who it is; and the params of the task methods.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  MissingRequiredClientCapabilityError,
  type ServerContext,
  type StandardSchemaV1,
} from '@modelcontextprotocol/server';
import type { AnsweredBy } from '../contracts/outcome.js';
import { answeredByOrNothing } from '../rules/answered-by.js';
import { describe } from '../rules/describe.js';
import { TASKS_EXTENSION } from './task-state.js';

/** `params` of `tasks/get`, `tasks/update` and `tasks/cancel`: the task id. */
export const TASK_PARAMS: StandardSchemaV1<unknown, { taskId: string }> = {
  '~standard': {
    version: 1,
    vendor: 'ask-engine',
    validate(value) {
      const taskId = readRecord(value)?.taskId;
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

/** True when the request's own capabilities declare the Tasks extension. */
export function declaresTasks(ctx: ServerContext): boolean {
  return readRecord(readRecord(capabilitiesOf(ctx))?.extensions)?.[TASKS_EXTENSION] !== undefined;
}

/** Refuses a request whose capabilities do not declare the Tasks extension (-32021). */
export function requireTasks(ctx: ServerContext): void {
  if (declaresTasks(ctx)) return;
  throw new MissingRequiredClientCapabilityError(
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    `Tasks need the ${TASKS_EXTENSION} extension in the request's client capabilities.`,
  );
}

/** The capabilities the client declared on this request (2026-07-28 per-request envelope). */
export function capabilitiesOf(ctx: ServerContext): unknown {
  return readRecord(ctx.mcpReq.envelope)?.[CLIENT_CAPABILITIES_META_KEY];
}

/** The client as who answered: the name it gave on this request, when the byline rules take it. */
export function clientOf(ctx: ServerContext): AnsweredBy | undefined {
  const name = readRecord(readRecord(ctx.mcpReq.envelope)?.[CLIENT_INFO_META_KEY])?.name;
  return name === undefined ? undefined : answeredByOrNothing({ recipient: name, channel: 'mcp' });
}

/** `value` as a plain object, or `undefined` for anything else. */
export function readRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
