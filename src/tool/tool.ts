/** The ask_user tool: a framework-neutral tool definition that asks through the service. */

import type { AskUserQuestion } from '../contracts/question.js';
import type { AskUserToolInput } from '../contracts/tool-input.js';
import { AskUserToolInputSchema } from '../contracts/tool-input.js';
import { recordCallbackFailure } from '../engine/callback-audit.js';
import type { AskHandle, InteractionService } from '../engine/service-contract.js';
import { describe, messageOf } from '../rules/describe.js';
import { isUserInteractionError, UserInteractionError } from '../rules/errors.js';
import { normalizeAskUserRequest } from '../rules/normalize.js';
import { hasVisibleCharacter } from '../rules/question-rules.js';
import type { QuorumOption } from '../rules/quorum.js';
import { isTimeoutMs, MIN_TIMEOUT_MS } from '../rules/timeout.js';
import { prepareAskUserArguments } from './prepare-arguments.js';
import {
  type AskUserToolProgressDetails,
  type AskUserToolResult,
  formatAskUserToolError,
  formatAskUserToolProgress,
  formatAskUserToolResult,
} from './tool-result.js';

/**
 * Options of `createAskUserTool`: the default timeout, the asking agent, a quorum and an error
 * hook.
 */
export interface AskUserToolOptions {
  /**
   * Milliseconds to wait when the model gives no `timeout` (at least `MIN_TIMEOUT_MS`); without
   * it an ask waits for ever.
   */
  timeoutMs?: number;
  /** The asking agent's name, handed to the provider; the model cannot set it. */
  agent?: string;
  /**
   * Every ask of this tool needs several people (`service.start`'s `quorum`); the model cannot
   * set it. Checked per ask against its questions: a `veto` title must be an option the model
   * offered, or the call returns an error naming it.
   */
  quorum?: QuorumOption;
  /**
   * Called with what a host callback threw (today: `onUpdate`). The ask goes on either way, and
   * the result's `details.callbackErrors` lists the messages; use it to log or audit them.
   */
  onError?: (error: unknown, context: AskUserToolErrorContext) => void;
}

/** Where a host callback failed. */
export interface AskUserToolErrorContext {
  callback: 'onUpdate';
  toolCallId: string;
  askId: string;
}

/** What the host passes as the last argument of `execute`. */
export interface AskUserToolContext {
  sessionId?: string;
}

/** The `onUpdate` callback of `execute`: receives progress while the person answers a wizard. */
export type AskUserToolUpdate = (update: AskUserToolResult<AskUserToolProgressDetails>) => void;

/**
 * The framework-neutral ask_user tool: name, description, prompt guidance, the JSON Schema
 * parameters and `execute`. pi takes it as it is; the AI SDK and MCP adapters wrap it.
 */
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
  `\`timeout\` is in milliseconds, at least ${MIN_TIMEOUT_MS} (30 seconds is 30000); leave it out to let the host decide.`,
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
  const { timeoutMs: defaultTimeoutMs, agent, onError, quorum } = options;
  if (defaultTimeoutMs !== undefined && !isTimeoutMs(defaultTimeoutMs)) {
    throw new TypeError(
      `Expected \`timeoutMs\` to be a finite number of milliseconds >= ${MIN_TIMEOUT_MS}, got ${describe(defaultTimeoutMs)}.`,
    );
  }
  if (agent !== undefined && (typeof agent !== 'string' || !hasVisibleCharacter(agent))) {
    throw new TypeError(`Expected \`agent\` to be a non-empty string, got ${describe(agent)}.`);
  }
  if (onError !== undefined && typeof onError !== 'function') {
    throw new TypeError(`Expected \`onError\` to be a function, got ${describe(onError)}.`);
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
        const normalized = normalizeAskUserRequest(
          prepareAskUserArguments(params),
          agent === undefined ? {} : { agent },
        );
        if (!normalized.ok) return formatAskUserToolError(normalized.error, toolCallId);
        const request = normalized.value;
        normalizedQuestions = request.questions;
        timeoutMs = request.timeoutMs ?? defaultTimeoutMs;
        // The normalized request itself: the service recognises it and does not normalize again.
        handle = service.start(request, {
          ...(signal === undefined ? {} : { signal }),
          ...(timeoutMs === undefined ? {} : { timeoutMs }),
          toolCallId,
          ...(ctx?.sessionId === undefined ? {} : { sessionId: ctx.sessionId }),
          ...(quorum === undefined ? {} : { quorum }),
        });
      } catch (error) {
        return formatAskUserToolError(
          asUserInteractionError(error),
          toolCallId,
          normalizedQuestions,
        );
      }

      const callbackErrors: string[] = [];
      const subscription =
        onUpdate === undefined
          ? undefined
          : handle.events$.subscribe((event) => {
              if (event.type !== 'provider.progress') return;
              const { answered, total } = event.data;
              if (typeof answered !== 'number' || typeof total !== 'number') return;
              const update = formatAskUserToolProgress({
                askId: handle.id,
                toolCallId,
                answered,
                total,
              });
              try {
                onUpdate(update);
              } catch (error) {
                // A host's broken callback must not end the ask, nor escape into the event
                // stream (where it would surface as an uncaught exception): report it and go on.
                callbackErrors.push(`onUpdate threw: ${messageOf(error)}`);
                recordCallbackFailure(service, handle.id, 'onUpdate', messageOf(error));
                reportCallbackError(onError, error, {
                  callback: 'onUpdate',
                  toolCallId,
                  askId: handle.id,
                });
              }
            });
      try {
        const outcome = await handle.outcome;
        const result = formatAskUserToolResult(normalizedQuestions, outcome, {
          toolCallId,
          askId: handle.id,
          timeoutMs,
        });
        if (callbackErrors.length > 0) result.details.callbackErrors = callbackErrors;
        return result;
      } finally {
        subscription?.unsubscribe();
      }
    },
  };
}

function reportCallbackError(
  onError: AskUserToolOptions['onError'],
  error: unknown,
  context: AskUserToolErrorContext,
): void {
  if (onError === undefined) return;
  try {
    onError(error, context);
  } catch {
    // The error handler failed too; the message is already in `details.callbackErrors`.
  }
}

function asUserInteractionError(error: unknown): UserInteractionError {
  if (isUserInteractionError(error)) return error;
  return new UserInteractionError(
    'INVALID_REQUEST',
    `The question could not be started: ${messageOf(error)}`,
  );
}
