/** The ask_user tool: a framework-neutral tool definition that asks through the service. */
import type { AskUserQuestion } from '../contracts/question.js';
import type { AskUserToolInput } from '../contracts/tool-input.js';
import { AskUserToolInputSchema } from '../contracts/tool-input.js';
import type { AskHandle, InteractionService } from '../engine/service-contract.js';
import { isUserInteractionError, UserInteractionError } from '../rules/errors.js';
import { normalizeAskUserRequest } from '../rules/normalize.js';
import { prepareAskUserArguments } from './prepare-arguments.js';
import {
  type AskUserToolProgressDetails,
  type AskUserToolResult,
  formatAskUserToolError,
  formatAskUserToolProgress,
  formatAskUserToolResult,
} from './tool-result.js';

export interface AskUserToolOptions {
  /** Milliseconds to wait when the model gives no `timeout`; without it an ask waits for ever. */
  timeoutMs?: number;
  /** The asking agent's name, handed to the provider; the model cannot set it. */
  agent?: string;
}

/** What the host passes as the last argument of `execute`. */
export interface AskUserToolContext {
  sessionId?: string;
}

export type AskUserToolUpdate = (update: AskUserToolResult<AskUserToolProgressDetails>) => void;

export interface AskUserTool {
  readonly name: 'ask_user';
  readonly label: string;
  readonly description: string;
  readonly promptSnippet: string;
  readonly promptGuidelines: string[];
  readonly parameters: typeof AskUserToolInputSchema;
  readonly executionMode: 'sequential';
  prepareArguments(raw: unknown): AskUserToolInput;
  execute(
    toolCallId: string,
    params: unknown,
    signal?: AbortSignal,
    onUpdate?: AskUserToolUpdate,
    ctx?: AskUserToolContext,
  ): Promise<AskUserToolResult>;
}

const DESCRIPTION = [
  'Ask the user and wait for the answer. Use it when you cannot go on without a decision only the user can make.',
  'Send one question as `question` (with `options` to choose from, or none for a typed answer), or 2-4 related questions as `questions` (a wizard the user steps through; top-level fields are defaults for every entry).',
  'Options are objects { title, description? } with distinct titles. The result states exactly what the user chose, typed or skipped; a timeout, a dismissal or a deferral means nothing was chosen.',
].join(' ');

const PROMPT_GUIDELINES = [
  'Call ask_user only when the work cannot continue well without the user: a preference, a trade-off, an approval or missing information you cannot find yourself. Do not ask what you can look up or decide safely.',
  'Ask one focused decision per question, with 2-6 concrete options whose titles are short and distinct; put the explanation in each option’s description and supporting material (a plan, a diff summary) in `context`, never in an option.',
  'When 2-4 related decisions are needed at once, send them together as `questions` (a wizard) instead of calling ask_user several times.',
  'For approving a plan, put the plan in `context` and set `intent: { kind: "plan-review", approve: "<title of the approving option>" }`.',
  'Never guess on the user’s behalf: if the result says the question timed out, was dismissed or was skipped, nothing was chosen. Continue only with what is safe without that decision, or stop and say what you need.',
  'If the result says the question was deferred, end your turn immediately and wait for the user’s next message; do not proceed on that decision.',
];

/**
 * Creates the `ask_user` tool over an interaction service. Register it with your agent loop;
 * `execute` resolves with a result for every outcome and never rejects.
 *
 * @example
 * const tool = createAskUserTool(service, { timeoutMs: 10 * 60_000 });
 * const result = await tool.execute('call-1', tool.prepareArguments(rawArgs), signal);
 */
export function createAskUserTool(
  service: InteractionService,
  options: AskUserToolOptions = {},
): AskUserTool {
  if (typeof service !== 'object' || service === null || typeof service.start !== 'function') {
    throw new TypeError('Expected an interaction service (createInteractionService()).');
  }
  const { timeoutMs: defaultTimeoutMs, agent } = options;
  if (
    defaultTimeoutMs !== undefined &&
    !(
      typeof defaultTimeoutMs === 'number' &&
      Number.isFinite(defaultTimeoutMs) &&
      defaultTimeoutMs > 0
    )
  ) {
    throw new TypeError(
      `Expected \`timeoutMs\` to be a finite number of milliseconds > 0, got ${String(defaultTimeoutMs)}.`,
    );
  }

  if (agent !== undefined && (typeof agent !== 'string' || agent.trim() === '')) {
    throw new TypeError(`Expected \`agent\` to be a non-empty string, got ${String(agent)}.`);
  }

  return {
    name: 'ask_user',
    label: 'Ask user',
    description: DESCRIPTION,
    promptSnippet: 'ask_user: ask the user a question (or 2-4 as a wizard) and wait for the answer',
    promptGuidelines: PROMPT_GUIDELINES,
    parameters: AskUserToolInputSchema,
    executionMode: 'sequential',
    prepareArguments: prepareAskUserArguments,

    async execute(toolCallId, params, signal, onUpdate, ctx) {
      let handle: AskHandle;
      let normalizedQuestions: AskUserQuestion[] = [];
      let timeoutMs: number | undefined;
      try {
        // Repair again: a host that never calls prepareArguments still gets the tolerant input,
        // and on input it already repaired this is a cheap no-op.
        const normalized = normalizeAskUserRequest(prepareAskUserArguments(params));
        if (!normalized.ok) return formatAskUserToolError(normalized.error, toolCallId);
        const { questions, hints, timeoutMs: requested } = normalized.value;
        normalizedQuestions = questions;
        timeoutMs = requested ?? defaultTimeoutMs;
        handle = service.start(
          { questions, ...hints, ...(agent === undefined ? {} : { agent }) },
          {
            ...(signal === undefined ? {} : { signal }),
            ...(timeoutMs === undefined ? {} : { timeoutMs }),
            toolCallId,
            ...(ctx?.sessionId === undefined ? {} : { sessionId: ctx.sessionId }),
          },
        );
      } catch (error) {
        return formatAskUserToolError(
          asUserInteractionError(error),
          toolCallId,
          normalizedQuestions,
        );
      }

      const subscription =
        onUpdate === undefined
          ? undefined
          : handle.events$.subscribe((event) => {
              if (event.type !== 'provider.progress') return;
              const { answered, total } = event.data;
              if (typeof answered !== 'number' || typeof total !== 'number') return;
              onUpdate(
                formatAskUserToolProgress({ askId: handle.id, toolCallId, answered, total }),
              );
            });
      try {
        const outcome = await handle.outcome;
        return formatAskUserToolResult(normalizedQuestions, outcome, {
          toolCallId,
          askId: handle.id,
          timeoutMs,
        });
      } finally {
        subscription?.unsubscribe();
      }
    },
  };
}

function asUserInteractionError(error: unknown): UserInteractionError {
  if (isUserInteractionError(error)) return error;
  return new UserInteractionError(
    'INVALID_REQUEST',
    `The question could not be started: ${error instanceof Error ? error.message : String(error)}`,
  );
}
