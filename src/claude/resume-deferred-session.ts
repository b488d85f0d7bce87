/**
 * Continues a Claude session whose tool call a `PreToolUse` hook deferred, once the ask about
 * it has settled on any surface. The process that ran the session may have exited meanwhile:
 * the ask lives in the store, keyed by the tool-use id, so any host sharing it can wait and
 * resume.
 */
import {
  type Options,
  type Query,
  type SDKUserMessage,
  query as sdkQuery,
} from '@anthropic-ai/claude-agent-sdk';
import type { AskOutcome } from '../contracts/outcome.js';
import type { InteractionService } from '../engine/service-contract.js';
import { describe } from '../rules/describe.js';
import { toolUseAskId } from './decide-tool-call.js';

/** The deferred call a run ended on: its session and tool use. */
export interface DeferredToolCall {
  sessionId: string;
  toolUseId: string;
  toolName: string;
}

/**
 * The deferred call of a run's result message (`terminal_reason: 'tool_deferred'`, with
 * `deferred_tool_use`), or `undefined` when the run did not end on one.
 */
export function readDeferredToolCall(result: unknown): DeferredToolCall | undefined {
  if (typeof result !== 'object' || result === null) return undefined;
  const {
    type,
    session_id: sessionId,
    deferred_tool_use: deferred,
  } = result as Record<string, unknown>;
  if (type !== 'result' || typeof deferred !== 'object' || deferred === null) return undefined;
  const { id, name } = deferred as Record<string, unknown>;
  if (typeof sessionId !== 'string' || typeof id !== 'string' || typeof name !== 'string') {
    throw new TypeError(
      `A result with deferred_tool_use must carry session_id, deferred_tool_use.id and .name as strings, got ${describe(sessionId)}, ${describe(id)}, ${describe(name)}.`,
    );
  }
  return { sessionId, toolUseId: id, toolName: name };
}

/**
 * Resolves the final outcome of the ask about the deferred call, whichever host settles it
 * (rejects when `signal` aborts; the ask goes on).
 */
export function waitForDeferredAsk(
  service: InteractionService,
  deferred: DeferredToolCall,
  options: { signal?: AbortSignal } = {},
): Promise<AskOutcome> {
  return service.outcome(toolUseAskId(deferred.toolUseId), options);
}

/** Options of `resumeDeferredSession`. */
export interface ResumeDeferredSessionOptions {
  /**
   * The SDK options of the resumed run; `resume` is set to the deferred session. Its
   * `hooks.PreToolUse` must hold the hook (`createPreToolUseHook`) on the same store: Claude
   * Code runs the deferred call's hook again on resume, and the hook reads the settled ask.
   */
  options: Options;
  /** Aborting it stops the wait for the ask (the ask goes on). */
  signal?: AbortSignal;
  /** The SDK's `query`, for a host that wraps it; default the SDK's own. */
  query?: typeof sdkQuery;
}

/**
 * Waits for the ask about the deferred call to settle, then resumes the session with no new
 * prompt (the deferred call runs first, as the person decided) and returns the SDK's `Query`.
 * Returns `undefined` when `result` did not end on a deferred call.
 *
 * @example
 * let result: SDKMessage | undefined;
 * for await (const message of query({ prompt, options })) if (message.type === 'result') result = message;
 * // later, on any host sharing the store (the hook in options.hooks.PreToolUse):
 * const resumed = await resumeDeferredSession(service, result, { options });
 * for await (const message of resumed ?? []) console.log(message.type);
 */
export async function resumeDeferredSession(
  service: InteractionService,
  result: unknown,
  { options, signal, query = sdkQuery }: ResumeDeferredSessionOptions,
): Promise<Query | undefined> {
  const deferred = readDeferredToolCall(result);
  if (deferred === undefined) return undefined;
  if ((options.hooks?.PreToolUse ?? []).length === 0) {
    throw new TypeError(
      'resumeDeferredSession needs the PreToolUse hook in options.hooks (createPreToolUseHook): on resume Claude Code runs the deferred call through its hooks again, and without this one the call would take the normal permission path instead of the decision the person made.',
    );
  }
  await waitForDeferredAsk(service, deferred, signal === undefined ? {} : { signal });
  const held = holdOpen();
  const run = query({ prompt: held.prompt, options: { ...options, resume: deferred.sessionId } });
  return releasedOnResult(run, held.release);
}

/**
 * A streamed prompt with no message that stays open until released. The resumed session
 * continues with its deferred call and needs no prompt; but the SDK closes Claude Code's stdin
 * as soon as a prompt stream ends, and an empty one ends at once, which would leave the
 * resumed call's hook (answered over stdin) without its answer.
 */
function holdOpen(): { prompt: AsyncIterable<SDKUserMessage>; release: () => void } {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const prompt: AsyncIterable<SDKUserMessage> = {
    [Symbol.asyncIterator]: () => ({
      next: async (): Promise<IteratorResult<SDKUserMessage>> => {
        await released;
        return { done: true, value: undefined };
      },
    }),
  };
  return { prompt, release };
}

/**
 * The run, releasing the held prompt at its first result (or when the caller stops reading).
 * Iterating it goes through its own `next`, which the SDK's iterator would bypass.
 */
function releasedOnResult(run: Query, release: () => void): Query {
  const next = run.next.bind(run);
  const stop = run.return.bind(run);
  const fail = run.throw.bind(run);
  return Object.assign(run, {
    [Symbol.asyncIterator]() {
      return run;
    },
    async next(...args: [] | [unknown]) {
      const step = await next(...args);
      if (step.done === true || step.value.type === 'result') release();
      return step;
    },
    return(value: unknown) {
      release();
      return stop(value as never);
    },
    throw(error: unknown) {
      release();
      return fail(error);
    },
  });
}
