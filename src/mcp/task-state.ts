/**
 * An ask as an MCP task (the `io.modelcontextprotocol/tasks` extension, 2026-07-28): its status,
 * what the client is asked while it waits, and the tool result once it has one, all read from
 * the ask as the store has it, so every process sharing the store reports the same task.
 */
import type { AskOutcome } from '../contracts/outcome.js';
import type { AskUserQuestion } from '../contracts/question.js';
import type { AskInfo } from '../engine/service-contract.js';
import { formatAskUserToolResult } from '../tool/tool-result.js';
import { buildElicitationForm, prefersAnswerPage } from './elicitation-schema.js';

/** The extension's identifier, in client and server capabilities. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/**
 * The one key of a task's `inputRequests`: a task asks its questions once, in one form, so the
 * key never names another request over the task's life.
 */
export const TASK_INPUT_KEY = 'ask_user';

/**
 * The `cancelled` / `user` message of an ask whose task the client cancelled (`tasks/cancel`);
 * such an ask is the one a task reports as `cancelled`.
 */
export const TASK_CANCELLED = 'The MCP client cancelled the task (tasks/cancel).';

/** A task's status, as the extension names them. */
export type AskTaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** The elicitation request a task shows while it waits for the person. */
export type AskTaskInputRequest = {
  method: 'elicitation/create';
  params:
    | { mode: 'form'; message: string; requestedSchema: Record<string, unknown> }
    | { mode: 'url'; elicitationId: string; url: string; message: string };
};

/** A task as `tasks/get` reports it (the extension's `DetailedTask`). */
export interface AskTask {
  taskId: string;
  status: AskTaskStatus;
  statusMessage?: string;
  /** ISO 8601: when the ask was started. */
  createdAt: string;
  /** ISO 8601: the ask's last stored change. */
  lastUpdatedAt: string;
  /** `null`: a task lives as long as its ask (until a purge deletes it). */
  ttlMs: number | null;
  pollIntervalMs: number;
  /** `input_required` only. */
  inputRequests?: Record<string, AskTaskInputRequest>;
  /** `completed` only: the `ask_user` tool's result. */
  result?: { content: { type: 'text'; text: string }[]; isError?: boolean };
  /** `failed` only: the JSON-RPC error. */
  error?: { code: number; message: string };
}

/**
 * How the client that polls can be asked, from the capabilities it declared on that request:
 * a form, a link to the answer page (when it declares URL elicitation and a link exists), or
 * neither (the task then reports `working` while people answer elsewhere).
 */
export interface TaskAudience {
  form: boolean;
  /** The ask's answer page, when the client declares URL elicitation and the server has one. */
  url?: string;
}

/**
 * The task of `ask`: `input_required` (with the form, or the answer page's link) or `working`
 * while the ask is open (pending or deferred: a deferred ask is a task still waiting);
 * `completed` with the tool's result once it has an outcome, `cancelled` when the client
 * cancelled it. A stored ask that cannot be read is `failed` (see `failedTask`).
 */
export function taskOfAsk(
  taskId: string,
  ask: AskInfo,
  audience: TaskAudience,
  pollIntervalMs: number,
): AskTask {
  const base = {
    taskId,
    createdAt: new Date(ask.createdAt).toISOString(),
    lastUpdatedAt: new Date(ask.updatedAt).toISOString(),
    ttlMs: null,
    pollIntervalMs,
  };
  const outcome = settledOutcome(ask);
  if (outcome === undefined) {
    const request = inputRequestFor(ask.askId, ask.questions, audience);
    if (request === undefined) {
      return {
        ...base,
        status: 'working',
        statusMessage:
          'Waiting for the person to answer on another surface (this client declared no elicitation it can be asked through).',
      };
    }
    return {
      ...base,
      status: 'input_required',
      statusMessage: 'Waiting for the person to answer.',
      inputRequests: { [TASK_INPUT_KEY]: request },
    };
  }
  if (isCancelledByClient(outcome)) {
    return { ...base, status: 'cancelled', statusMessage: TASK_CANCELLED };
  }
  // The task carries the text the model reads; the result's details stay on the server.
  const { content, isError } = formatAskUserToolResult(ask.questions, outcome, {
    toolCallId: taskId,
    askId: ask.askId,
    // The wait the ask was started with, as the tool's own result states a timeout.
    timeoutMs: ask.deadlineAt === undefined ? undefined : ask.deadlineAt - ask.createdAt,
  });
  return {
    ...base,
    status: 'completed',
    result: isError === true ? { content, isError } : { content },
  };
}

/**
 * The ask's final outcome, or `undefined` while it waits for its answer (pending, or deferred: a
 * deferred ask is a task still waiting); only then does its task ask the client anything.
 */
export function settledOutcome(ask: AskInfo): AskOutcome | undefined {
  return ask.final ? ask.outcome : undefined;
}

/** The task of an ask the store holds but cannot read: `failed`, with the reason. */
export function failedTask(taskId: string, message: string, pollIntervalMs: number): AskTask {
  const now = new Date().toISOString();
  return {
    taskId,
    status: 'failed',
    statusMessage: message,
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs: null,
    pollIntervalMs,
    error: { code: -32603, message },
  };
}

/**
 * The elicitation that asks `questions`: a link to the answer page where the client takes one
 * and either shows no forms or the questions fit a form poorly (pick or type on one question),
 * else the form where the client shows forms; nothing when it can do neither.
 */
export function inputRequestFor(
  askId: string,
  questions: readonly AskUserQuestion[],
  audience: TaskAudience,
): AskTaskInputRequest | undefined {
  const form = buildElicitationForm(questions);
  if (audience.url !== undefined && (!audience.form || prefersAnswerPage(questions))) {
    return {
      method: 'elicitation/create',
      params: {
        mode: 'url',
        elicitationId: askId,
        url: audience.url,
        message: `${form.subject}\n\nAnswer on the page the link opens.`,
      },
    };
  }
  if (!audience.form) return undefined;
  return {
    method: 'elicitation/create',
    params: { mode: 'form', message: form.message, requestedSchema: form.requestedSchema },
  };
}

function isCancelledByClient(outcome: AskOutcome): boolean {
  return outcome.status === 'cancelled' && outcome.message === TASK_CANCELLED;
}
