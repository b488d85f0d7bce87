/** A provider that answers from a script: for tests, examples, benchmarks and demos without a person. */
import type { AskUserQuestionAnswer } from '../contracts/answer.js';
import type { ProviderOutcome } from '../contracts/outcome.js';
import type { AskUserRequest } from '../contracts/request.js';
import type { AskProvider, AskProviderContext } from '../engine/provider.js';

/** A scripted step's answers: given as they are, or made from the request asked. */
export type ScriptedAnswers =
  | AskUserQuestionAnswer[]
  | ((request: AskUserRequest) => AskUserQuestionAnswer[]);

/** One step answers one ask. `delayMs` waits first (on `clock` if given); `progress` is reported first. */
export type ScriptStep = { delayMs?: number; progress?: AskUserQuestionAnswer[] } & (
  | { answer: ScriptedAnswers }
  | { cancel: 'user' | 'unavailable'; message?: string }
  | { defer: string; message?: string }
  /** Never answers; rejects with the signal's reason once the ask leaves pending. */
  | { hang: true }
  | { throw: unknown }
  /** Resolves with exactly this value, valid or not: for testing what the engine refuses. */
  | { resolve: unknown }
);

/** Options of `createScriptedProvider`. */
export interface ScriptedProviderOptions {
  /** Timer source for `delayMs`; pass the service's (simulated) clock. */
  clock?: { setTimeout(fn: () => void, ms: number): unknown; clearTimeout(handle: unknown): void };
  /** Start again from the first step when the script runs out (benchmarks, demos). */
  loop?: boolean;
  /** Keep every call in `calls` (default true); off for long-running loops. */
  recordCalls?: boolean;
}

/** A provider that plays its script step by step, one step per ask, and records its calls. */
export interface ScriptedProvider extends AskProvider {
  /** Every call received, in order. */
  readonly calls: { request: AskUserRequest; ctx: AskProviderContext }[];
}

/**
 * @example
 * const provider = createScriptedProvider([
 *   { answer: [{ questionId: 'q1', response: { kind: 'selection', selections: ['Yes'] } }] },
 *   { cancel: 'user' },
 * ]);
 */
export function createScriptedProvider(
  steps: readonly ScriptStep[],
  options: ScriptedProviderOptions = {},
): ScriptedProvider {
  if (!Array.isArray(steps)) {
    throw new TypeError(`Expected \`steps\` to be an array of script steps, got ${typeof steps}.`);
  }
  const calls: ScriptedProvider['calls'] = [];
  let next = 0;
  let asked = 0;
  return {
    calls,
    async ask(request, ctx) {
      if (options.recordCalls !== false) calls.push({ request, ctx });
      asked++;
      if (next >= steps.length && options.loop === true && steps.length > 0) next = 0;
      const step = steps[next++];
      if (step === undefined) {
        throw new Error(`The script has ${steps.length} step(s) and this is ask ${asked}.`);
      }
      if (step.delayMs !== undefined && step.delayMs > 0) {
        await sleep(step.delayMs, ctx.signal, options.clock);
      }
      if (step.progress !== undefined) ctx.reportProgress(step.progress);
      return run(step, request, ctx);
    },
  };
}

function run(
  step: ScriptStep,
  request: AskUserRequest,
  ctx: AskProviderContext,
): Promise<ProviderOutcome> {
  if ('answer' in step) {
    const answers = typeof step.answer === 'function' ? step.answer(request) : step.answer;
    return Promise.resolve({ status: 'answered', answers });
  }
  if ('cancel' in step) {
    return Promise.resolve(
      step.message === undefined
        ? { status: 'cancelled', reason: step.cancel }
        : { status: 'cancelled', reason: step.cancel, message: step.message },
    );
  }
  if ('defer' in step) {
    return Promise.resolve(
      step.message === undefined
        ? { status: 'deferred', interactionId: step.defer }
        : { status: 'deferred', interactionId: step.defer, message: step.message },
    );
  }
  if ('throw' in step) return Promise.reject(step.throw);
  if ('resolve' in step) return Promise.resolve(step.resolve as ProviderOutcome);
  return new Promise((_, reject) => {
    if (ctx.signal.aborted) reject(ctx.signal.reason);
    else ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true });
  });
}

function sleep(
  ms: number,
  signal: AbortSignal,
  clock: ScriptedProviderOptions['clock'] = {
    setTimeout: (fn, delay) => setTimeout(fn, delay),
    clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  },
): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clock.clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = clock.setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
