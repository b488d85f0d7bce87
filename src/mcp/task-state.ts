/**
 * An ask as an MCP task (the `io.modelcontextprotocol/tasks` extension, 2026-07-28): its status,
 * what the client is asked while it waits, and the tool result once it has one, all read from
 * the ask as the store has it, so every process sharing the store reports the same task.
 */
import type { InputRequest } from '@modelcontextprotocol/server';
import type { AskOutcome } from '../contracts/outcome.js';
import type { AskInfo } from '../engine/service-contract.js';
import { formatAskUserToolResult } from '../tool/tool-result.js';
import { ASK_USER_INPUT } from './input-required.js';

/** The extension's identifier, in client and server capabilities. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/**
 * The `cancelled` / `user` message of an ask whose task the client cancelled (`tasks/cancel`);
 * such an ask is the one a task reports as `cancelled`.
 */
export const TASK_CANCELLED = 'The MCP client cancelled the task (tasks/cancel).';

/** A task's status, as the extension names them. */
export type AskTaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

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
  inputRequests?: Record<string, InputRequest>;
  /** `completed` only: the `ask_user` tool's result. */
  result?: { content: { type: 'text'; text: string }[]; isError?: boolean };
  /** `failed` only: the JSON-RPC error. */
  error?: { code: number; message: string };
}

/**
 * The task of `ask`: while it is open (pending or deferred: a deferred ask is a task still
 * waiting), `input_required` with `request` (the form, or the answer page's link: what the
 * polling client can be asked), or `working` when it can be asked neither way;
 * `completed` with the tool's result once it has an outcome, `cancelled` when the client
 * cancelled it. A stored ask that cannot be read is `failed` (see `failedTask`).
 */
export function taskOfAsk(
  taskId: string,
  ask: AskInfo,
  request: InputRequest | undefined,
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
      inputRequests: { [ASK_USER_INPUT]: request },
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

function isCancelledByClient(outcome: AskOutcome): boolean {
  return outcome.status === 'cancelled' && outcome.message === TASK_CANCELLED;
}
