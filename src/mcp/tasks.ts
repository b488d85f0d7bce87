/**
 * The Tasks extension (`io.modelcontextprotocol/tasks`, MCP 2026-07-28) for `ask_user`: a
 * `tools/call` from a client that declares it returns a task at once, and `tasks/get`,
 * `tasks/update` and `tasks/cancel` read and settle the ask through the store, on any process
 * that shares it.
 */
import { randomUUID } from 'node:crypto';
import {
  type CallToolResult,
  type InputRequest,
  inputResponse,
  ProtocolError,
  ProtocolErrorCode,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { AskOutcome } from '../contracts/outcome.js';
import type { AskProvider } from '../engine/provider.js';
import type { AskInfo, InteractionService } from '../engine/service-contract.js';
import { messageOf } from '../rules/describe.js';
import { isUserInteractionError } from '../rules/errors.js';
import { normalizeAskUserRequest } from '../rules/normalize.js';
import { prepareAskUserArguments } from '../tool/prepare-arguments.js';
import { formatAskUserToolError } from '../tool/tool-result.js';
import { type AskUserCall, readAskUserCall } from './ask-path.js';
import type { CallProviders } from './call-providers.js';
import { readElicitationContent } from './elicitation-answer.js';
import {
  clientAnswerer,
  type ElicitationModes,
  elicitationModes,
  isAnswerRefusal,
  refusalOutcome,
} from './elicitation-rules.js';
import { buildElicitationForm } from './elicitation-schema.js';
import { ASK_USER_INPUT, elicitationFor, toolResult } from './input-required.js';
import { mintTaskId, taskAskRef } from './task-id.js';
import { requireTasks, TASK_PARAMS } from './task-request.js';
import {
  type AskTask,
  failedTask,
  settledOutcome,
  TASK_CANCELLED,
  TASKS_EXTENSION,
  taskOfAsk,
} from './task-state.js';

/** What the Tasks path needs of the `ask_user` server. */
export interface TaskServing {
  service: InteractionService;
  /** The server's call providers: a task's ask is deferred to its task through them. */
  providers: CallProviders;
  /** The answer page's link for an ask, for URL-mode elicitation. */
  urlFor: ((askId: string) => string | undefined | Promise<string | undefined>) | undefined;
  /** The tool's timeout for asks whose caller gives none (the server's `timeoutMs`). */
  timeoutMs: number | undefined;
  /** How often a client should poll `tasks/get`, in milliseconds. */
  pollIntervalMs: number;
}

/**
 * A task created by `tools/call` (the extension's `CreateTaskResult`): the task without what it
 * asks or its result, marked `resultType: 'task'`.
 */
export type AskTaskCreated = Omit<AskTask, 'inputRequests' | 'result' | 'error'> & {
  resultType: 'task';
};

/** The `ask_user` side of the Tasks extension. */
export interface AskUserTasks {
  /**
   * `tools/call` of `ask_user` for a client that declared Tasks: starts the ask, defers it to
   * the task, and returns the task once `tasks/get` finds it. Arguments the tool refuses come
   * back as the tool's error result, as on any call.
   */
  callTool(args: unknown, call: AskUserCall): Promise<AskTaskCreated | CallToolResult>;
  /**
   * Registers `tasks/get`, `tasks/update` and `tasks/cancel` on `server` and declares the
   * extension in its capabilities; before the server connects.
   */
  install(server: Server): void;
}

const DEFERRAL =
  'Asked through the MCP client as a task: tasks/get shows the form, tasks/update brings the answer.';

/**
 * The Tasks path of `ask_user`. A task's id is random and unguessable; the ask holds only its
 * digest (its idempotency key), so the id is a bearer capability for that one ask and every
 * process sharing the store finds the ask from it. The ask is deferred to its task: it lives in
 * the store until `tasks/update`, another surface (the answer page) or its deadline settles it,
 * and everything a task reports is read from the store.
 */
export function createAskUserTasks(serving: TaskServing): AskUserTasks {
  const { service, providers, urlFor, pollIntervalMs } = serving;

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

  /** What the task asks a client with `modes` while its ask is open; nothing once settled. */
  const requestFor = (ask: AskInfo, modes: ElicitationModes): Promise<InputRequest | undefined> =>
    settledOutcome(ask) === undefined
      ? elicitationFor(modes, ask.questions, buildElicitationForm(ask.questions), ask.askId, urlFor)
      : Promise.resolve(undefined);

  const taskOf = async (taskId: string, call: AskUserCall): Promise<AskTask> => {
    let ask: AskInfo;
    try {
      ask = await find(taskId);
    } catch (error) {
      if (error instanceof ProtocolError) throw error;
      // The store has the ask but it fails its check (a corrupt row): the task failed.
      return failedTask(taskId, messageOf(error), pollIntervalMs);
    }
    const request = await requestFor(ask, elicitationModes(call.capabilities));
    return taskOfAsk(taskId, ask, request, pollIntervalMs);
  };

  /** The person's reply through the client: answers, or a decline or dismissal (never answers). */
  const settle = async (
    ask: AskInfo,
    reply: { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> },
    call: AskUserCall,
  ): Promise<void> => {
    if (reply.action !== 'accept') {
      const refusal = refusalOutcome(reply.action);
      if (refusal.status === 'cancelled') {
        await late(service.cancel(ask.askId, refusal.reason, refusal.message));
      }
      return;
    }
    if (reply.content === undefined) {
      // An accepted link only says the person opened the page, where the answer arrives; a
      // settled ask asks nothing any more. A form accepted without content is read as empty.
      const asked = await requestFor(ask, elicitationModes(call.capabilities));
      if (asked === undefined || isLink(asked)) return;
    }
    try {
      const form = buildElicitationForm(ask.questions);
      const answers = readElicitationContent(form, reply.content ?? {});
      const by = clientAnswerer(call.clientName);
      await late(service.answer(ask.askId, answers, by === undefined ? {} : { by }));
    } catch (error) {
      if (!isAnswerRefusal(error)) throw error;
      // Refused like any answer: the ask stays open and the form stays asked.
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `The answer was not recorded (${error.code}): ${error.message}`,
      );
    }
  };

  return {
    async callTool(args, call) {
      const toolCallId = `mcp-${randomUUID()}`;
      const normalized = normalizeAskUserRequest(prepareAskUserArguments(args));
      if (!normalized.ok) return toolResult(formatAskUserToolError(normalized.error, toolCallId));
      const request = normalized.value;
      const taskId = mintTaskId();
      const ref = taskAskRef(taskId)!;
      const wait = request.timeoutMs ?? serving.timeoutMs;
      const deferToTask: AskProvider = {
        ask: (_request, ctx) =>
          Promise.resolve({ status: 'deferred', interactionId: ctx.askId, message: DEFERRAL }),
      };
      try {
        // Resolves at the deferral: the ask is then in the store, and `tasks/get` finds it on
        // any process sharing it.
        await providers.during(
          toolCallId,
          deferToTask,
          () =>
            service.start(request, {
              key: ref.key,
              toolCallId,
              ...(wait === undefined ? {} : { timeoutMs: wait }),
            }).outcome,
        );
      } catch (error) {
        if (!isUserInteractionError(error)) throw error;
        return toolResult(formatAskUserToolError(error, toolCallId, request.questions));
      }
      // A created task is the task alone: what it asks and its result come from `tasks/get`.
      const {
        inputRequests: _asks,
        result: _result,
        error: _error,
        ...task
      } = await taskOf(taskId, call);
      return { resultType: 'task', ...task };
    },

    install(server) {
      server.registerCapabilities({ extensions: { [TASKS_EXTENSION]: {} } });
      const taskCall = (ctx: ServerContext): AskUserCall => {
        const call = readAskUserCall(server, ctx);
        requireTasks(call.capabilities);
        return call;
      };
      server.setRequestHandler('tasks/get', { params: TASK_PARAMS }, async ({ taskId }, ctx) => ({
        ...(await taskOf(taskId, taskCall(ctx))),
      }));
      server.setRequestHandler('tasks/update', { params: TASK_PARAMS }, async ({ taskId }, ctx) => {
        const call = taskCall(ctx);
        const ask = await find(taskId);
        const reply = inputResponse(ctx.mcpReq.inputResponses, ASK_USER_INPUT);
        // Responses to keys the task never asked are ignored, as the extension says.
        if (reply.kind === 'missing') return {};
        if (reply.kind !== 'elicit') {
          throw new ProtocolError(
            ProtocolErrorCode.InvalidParams,
            `inputResponses.${ASK_USER_INPUT} must be the reply to the elicitation the task asked, got a ${reply.kind} result.`,
          );
        }
        await settle(ask, reply, call);
        return {};
      });
      server.setRequestHandler('tasks/cancel', { params: TASK_PARAMS }, async ({ taskId }, ctx) => {
        taskCall(ctx);
        const ask = await find(taskId);
        await late(service.cancel(ask.askId, 'user', TASK_CANCELLED));
        return {};
      });
    },
  };
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

function isLink(request: InputRequest): boolean {
  return request.method === 'elicitation/create' && request.params.mode === 'url';
}
