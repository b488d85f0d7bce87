/**
 * The Tasks extension (`io.modelcontextprotocol/tasks`, MCP 2026-07-28) for `ask_user`: a
 * `tools/call` from a client that declares it returns a task at once, and `tasks/get`,
 * `tasks/update` and `tasks/cancel` read and settle the ask through the store, on any process
 * that shares it.
 */
import {
  type CallToolResult,
  inputResponse,
  ProtocolError,
  ProtocolErrorCode,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { AskOutcome } from '../contracts/outcome.js';
import type { AskInfo, InteractionService } from '../engine/service-contract.js';
import { describe, messageOf } from '../rules/describe.js';
import { isUserInteractionError } from '../rules/errors.js';
import { normalizeAskUserRequest } from '../rules/normalize.js';
import { isTimeoutMs, MIN_TIMEOUT_MS } from '../rules/timeout.js';
import { prepareAskUserArguments } from '../tool/prepare-arguments.js';
import { formatAskUserToolError } from '../tool/tool-result.js';
import { readElicitationContent } from './elicitation-answer.js';
import { DECLINED, DISMISSED } from './elicitation-provider.js';
import { buildElicitationForm } from './elicitation-schema.js';
import { mintTaskId, taskAskRef } from './task-id.js';
import {
  capabilitiesOf,
  clientOf,
  declaresTasks,
  readRecord,
  requireTasks,
  TASK_PARAMS,
} from './task-request.js';
import {
  type AskTask,
  failedTask,
  inputRequestFor,
  settledOutcome,
  TASK_CANCELLED,
  TASK_INPUT_KEY,
  TASKS_EXTENSION,
  type TaskAudience,
  taskOfAsk,
} from './task-state.js';

/** Options of `createAskUserTasks`. */
export interface AskUserTasksOptions {
  /** The service whose asks the tasks are; its provider delivers them as it delivers any ask. */
  service: InteractionService;
  /** Milliseconds an ask waits when the model sets no timeout (at least `MIN_TIMEOUT_MS`). */
  timeoutMs?: number;
  /** How often a client should poll `tasks/get`, in milliseconds; default 1000. */
  pollIntervalMs?: number;
  /**
   * The answer page's link for an ask (e.g. the web answer server's `linkFor`), offered as a
   * URL elicitation to a client that declares URL elicitation and shows no forms, or when a
   * question fits a flat form poorly.
   */
  urlFor?(askId: string): string | undefined | Promise<string | undefined>;
}

/**
 * A task created by `tools/call` (the extension's `CreateTaskResult`): the task without what it
 * asks or its result, marked `resultType: 'task'`.
 */
export type AskTaskCreated = Omit<AskTask, 'inputRequests' | 'result' | 'error'> & {
  resultType: 'task';
};

/** The `ask_user` side of the Tasks extension, made by `createAskUserTasks`. */
export interface AskUserTasks {
  /** True when the request's own capabilities declare the Tasks extension. */
  declaredBy(ctx: ServerContext): boolean;
  /**
   * `tools/call` of `ask_user` for a client that declared Tasks: starts the ask, and once it is
   * in the store returns its task. Arguments the tool refuses come back as the tool's error
   * result, as on any call.
   */
  callTool(args: unknown, ctx: ServerContext): Promise<AskTaskCreated | CallToolResult>;
  /**
   * Registers `tasks/get`, `tasks/update` and `tasks/cancel` on `server` and declares the
   * extension in its capabilities. Call it before the server connects.
   */
  install(server: Server): void;
}

const DEFAULT_POLL_INTERVAL_MS = 1000;

/**
 * The Tasks extension for `ask_user`. A task's id is random and unguessable; the ask holds only
 * its digest, so the id is a bearer capability for that one ask. Everything a task reports is
 * read from the store: an ask answered on the web page, in a terminal or by another process
 * completes its task, and a deferred ask is a task still waiting, pollable tomorrow from
 * another process that shares the store.
 *
 * @example
 * const tasks = createAskUserTasks({ service });
 * tasks.install(mcp.server);
 * mcp.server.setRequestHandler('tools/call', (request, ctx) =>
 *   tasks.declaredBy(ctx) ? tasks.callTool(request.params.arguments, ctx) : callAskUser(request, ctx),
 * );
 */
export function createAskUserTasks(options: AskUserTasksOptions): AskUserTasks {
  const { service, timeoutMs, pollIntervalMs = DEFAULT_POLL_INTERVAL_MS, urlFor } = options;
  if (typeof service !== 'object' || service === null || typeof service.start !== 'function') {
    throw new TypeError(
      `Expected \`service\` to be an interaction service, got ${describe(service)}.`,
    );
  }
  if (timeoutMs !== undefined && !isTimeoutMs(timeoutMs)) {
    throw new TypeError(
      `Expected \`timeoutMs\` to be a finite number of milliseconds >= ${MIN_TIMEOUT_MS}, got ${describe(timeoutMs)}.`,
    );
  }
  if (!Number.isSafeInteger(pollIntervalMs) || pollIntervalMs < 1) {
    throw new TypeError(
      `Expected \`pollIntervalMs\` to be a positive integer of milliseconds, got ${describe(pollIntervalMs)}.`,
    );
  }
  if (urlFor !== undefined && typeof urlFor !== 'function') {
    throw new TypeError(
      `Expected \`urlFor\` to be a function (askId) => string | undefined, got ${describe(urlFor)}.`,
    );
  }

  /** The task's ask; a malformed, foreign or unknown id is the same clear error. */
  const find = async (taskId: string): Promise<AskInfo> => {
    const ref = taskAskRef(taskId);
    const ask = ref === undefined ? undefined : await service.get(ref.askId);
    if (ask === undefined) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown task ${JSON.stringify(taskId)}: no ask of this server's store has that task id (it was never issued here, or its ask was purged). Use the taskId a tools/call of ask_user returned.`,
      );
    }
    return ask;
  };

  const audienceOf = async (ctx: ServerContext, askId: string): Promise<TaskAudience> => {
    const elicitation = readRecord(readRecord(capabilitiesOf(ctx))?.elicitation);
    // An empty `elicitation: {}` (older clients) means form mode.
    const form =
      elicitation !== undefined &&
      (elicitation.form !== undefined || elicitation.url === undefined);
    const url = elicitation?.url === undefined ? undefined : await urlFor?.(askId);
    return url === undefined ? { form } : { form, url };
  };

  const taskOf = async (taskId: string, ctx: ServerContext): Promise<AskTask> => {
    let ask: AskInfo;
    try {
      ask = await find(taskId);
    } catch (error) {
      if (error instanceof ProtocolError) throw error;
      // The store has the ask but it fails its check (a corrupt row): the task failed.
      return failedTask(taskId, messageOf(error), pollIntervalMs);
    }
    // Only an open ask asks the client (a settled ask has no answer page any more).
    const audience =
      settledOutcome(ask) === undefined ? await audienceOf(ctx, ask.askId) : { form: false };
    return taskOfAsk(taskId, ask, audience, pollIntervalMs);
  };

  return {
    declaredBy: (ctx) => declaresTasks(ctx),

    async callTool(args, ctx) {
      const toolCallId = `mcp-${String(ctx.mcpReq.id)}`;
      const normalized = normalizeAskUserRequest(prepareAskUserArguments(args));
      if (!normalized.ok) return toolResult(formatAskUserToolError(normalized.error, toolCallId));
      const request = normalized.value;
      const taskId = mintTaskId();
      const ref = taskAskRef(taskId)!;
      const wait = request.timeoutMs ?? timeoutMs;
      let handle: ReturnType<InteractionService['start']>;
      try {
        handle = service.start(request, {
          key: ref.key,
          toolCallId,
          ...(wait === undefined ? {} : { timeoutMs: wait }),
        });
      } catch (error) {
        if (!isUserInteractionError(error)) throw error;
        return toolResult(formatAskUserToolError(error, toolCallId, request.questions));
      }
      // The task outlives this call: its outcome is read from the store, never awaited here.
      handle.outcome.catch(() => undefined);
      // A task is returned only once `tasks/get` finds it, on any process sharing the store.
      await handle.stored;
      // A created task is the task alone: what it asks and its result come from `tasks/get`.
      const {
        inputRequests: _asks,
        result: _result,
        error: _error,
        ...task
      } = await taskOf(taskId, ctx);
      return { resultType: 'task', ...task };
    },

    install(server) {
      server.registerCapabilities({ extensions: { [TASKS_EXTENSION]: {} } });
      server.setRequestHandler('tasks/get', { params: TASK_PARAMS }, async ({ taskId }, ctx) => {
        requireTasks(ctx);
        return { ...(await taskOf(taskId, ctx)) };
      });
      server.setRequestHandler('tasks/update', { params: TASK_PARAMS }, async ({ taskId }, ctx) => {
        requireTasks(ctx);
        const ask = await find(taskId);
        const reply = inputResponse(ctx.mcpReq.inputResponses, TASK_INPUT_KEY);
        // Responses to keys the task never asked are ignored, as the extension says.
        if (reply.kind === 'missing') return {};
        if (reply.kind !== 'elicit') {
          throw new ProtocolError(
            ProtocolErrorCode.InvalidParams,
            `inputResponses["${TASK_INPUT_KEY}"] must be the elicitation result ({ action, content }) for the form the task asked, got a ${reply.kind} result.`,
          );
        }
        await settle(ask, reply.action, reply.content, ctx);
        return {};
      });
      server.setRequestHandler('tasks/cancel', { params: TASK_PARAMS }, async ({ taskId }, ctx) => {
        requireTasks(ctx);
        const ask = await find(taskId);
        await late(service.cancel(ask.askId, 'user', TASK_CANCELLED));
        return {};
      });
    },
  };

  /** True when the task asks this client (by the capabilities of this request) with its form. */
  async function asksForm(ask: AskInfo, ctx: ServerContext): Promise<boolean> {
    if (settledOutcome(ask) !== undefined) return false;
    const asked = inputRequestFor(ask.askId, ask.questions, await audienceOf(ctx, ask.askId));
    return asked?.params.mode === 'form';
  }

  /** The person's reply through the client: answers, or a decline or dismissal (never answers). */
  async function settle(
    ask: AskInfo,
    action: 'accept' | 'decline' | 'cancel',
    content: Record<string, unknown> | undefined,
    ctx: ServerContext,
  ): Promise<void> {
    if (action !== 'accept') {
      await late(service.cancel(ask.askId, 'user', action === 'decline' ? DECLINED : DISMISSED));
      return;
    }
    // An accepted link only says the person opened the page, where the answer arrives; a
    // settled ask asks nothing any more. A form accepted without content is read as empty.
    if (content === undefined && !(await asksForm(ask, ctx))) return;
    try {
      const answers = readElicitationContent(buildElicitationForm(ask.questions), content ?? {});
      const by = clientOf(ctx);
      await late(service.answer(ask.askId, answers, by === undefined ? {} : { by }));
    } catch (error) {
      if (!isUserInteractionError(error)) throw error;
      // Refused like any answer: the ask stays open and the form stays asked.
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `The answer was not recorded (${error.code}): ${error.message}`,
      );
    }
  }
}

/**
 * Settles through the store once: an ask that already has its outcome (answered on the web
 * page, by another process, or by this same update sent twice) refuses with `ASK_SETTLED`,
 * which the service has audited, and the task reports the outcome that stands.
 */
async function late(settling: Promise<AskOutcome>): Promise<void> {
  try {
    await settling;
  } catch (error) {
    if (!isUserInteractionError(error, 'ASK_SETTLED')) throw error;
  }
}

function toolResult(result: { content: CallToolResult['content']; isError?: boolean }) {
  return {
    content: result.content,
    ...(result.isError === true ? { isError: true } : {}),
  } satisfies CallToolResult;
}
