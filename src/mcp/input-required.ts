/**
 * `ask_user` on the 2026-07-28 era (multi round-trip requests): the call returns
 * `input_required` with the ask's form and a sealed `requestState`; the client's retry brings
 * the person's reply, which settles the ask through the service on whichever process it lands.
 */
import { randomUUID } from 'node:crypto';
import {
  type CallToolResult,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  ProtocolError,
  ProtocolErrorCode,
} from '@modelcontextprotocol/server';
import type { AskOutcome } from '../contracts/outcome.js';
import type { AskUserQuestion } from '../contracts/question.js';
import type { AskProvider, AskProviderContext } from '../engine/provider.js';
import type { InteractionService } from '../engine/service-contract.js';
import { callDigest } from '../rules/call-digest.js';
import { isUserInteractionError } from '../rules/errors.js';
import { normalizeAskUserRequest } from '../rules/normalize.js';
import type { AskUserTool } from '../tool/tool.js';
import { type AskUserToolResult, formatAskUserToolResult } from '../tool/tool-result.js';
import type { CallProviders } from './call-providers.js';
import { readElicitationContent } from './elicitation-answer.js';
import {
  answerPageMessage,
  clientAnswerer,
  DECLINED,
  DISMISSED,
  type ElicitationModes,
  isAnswerRefusal,
  retryMessage,
  wantsAnswerPage,
} from './elicitation-rules.js';
import { buildElicitationForm, type ElicitationForm } from './elicitation-schema.js';
import type { RequestState, RequestStateSeal } from './request-state.js';

/** What the 2026-era path needs of its server. */
export interface InputRequiredServing {
  service: InteractionService;
  tool: AskUserTool;
  providers: CallProviders;
  seal: RequestStateSeal;
  /** The answer page's link for an ask, for URL-mode elicitation. */
  urlFor: ((askId: string) => string | undefined | Promise<string | undefined>) | undefined;
  /** How many forms one ask gets when replies break a rule; then it ends `cancelled`. */
  maxRounds: number;
  /** The tool's timeout for asks whose caller gives none (the server's `timeoutMs`). */
  timeoutMs: number | undefined;
  /** How long a `requestState` lasts past the ask's deadline (or past the call, without one). */
  stateTtlMs: number;
  now(): number;
}

/** The client of one call, as the path needs it. */
export interface InputRequiredCall {
  modes: ElicitationModes;
  clientName: string | undefined;
  /** The `tools/call` request's id, named in the tool result's details. */
  requestId: string | number;
  signal: AbortSignal;
}

/** The key of the one input request an `ask_user` call makes. */
export const ASK_USER_INPUT = 'ask_user';

const DEFERRAL =
  'Asked through the MCP client (input_required); the client’s retry brings the answer.';

/**
 * The first call: starts the ask (deferred: it lives in the store until the retry or another
 * surface answers it) and returns the form, or the tool's result when the ask ended at once (a
 * refused request).
 */
export async function askByInputRequired(
  serving: InputRequiredServing,
  call: InputRequiredCall,
  args: unknown,
): Promise<CallToolResult | InputRequiredResult> {
  const digest = callDigest('ask_user', args);
  const toolCallId = `mcp-${randomUUID()}`;
  let asked: AskProviderContext | undefined;
  const deferToRetry: AskProvider = {
    ask(_request, ctx) {
      asked = ctx;
      return Promise.resolve({ status: 'deferred', interactionId: ctx.askId, message: DEFERRAL });
    },
  };
  // No signal: the ask outlives this request, which ends as soon as the form is returned.
  const result = await serving.providers.during(toolCallId, deferToRetry, () =>
    serving.tool.execute(toolCallId, args),
  );
  if (asked === undefined || result.details.status !== 'deferred') return toolResult(result);
  const state: RequestState = {
    askId: asked.askId,
    round: 1,
    // After the deadline the state can change nothing (the ask is final), so it lasts a while
    // longer: a late retry reads that the ask timed out instead of a refusal.
    expiresAt: (asked.deadlineAt ?? serving.now()) + serving.stateTtlMs,
  };
  const form = buildElicitationForm(result.details.questions);
  const next = await formRound(serving, call, form, result.details.questions, state, digest);
  if (next !== undefined) return next;
  const outcome = await settle(serving.service, state.askId, () =>
    serving.service.cancel(
      state.askId,
      'unavailable',
      'The MCP client supports only URL elicitation and no answer page link is available for this ask (createAskUserMcpServer option urlFor).',
    ),
  );
  return outcomeResult(result.details.questions, outcome, call, state.askId, undefined);
}

/**
 * The retry: opens `sealed` (refused with an MCP error when tampered, foreign or expired, and
 * nothing changes), then settles the ask with the reply. An ask already settled elsewhere
 * gives that outcome; the reply is then refused as late by the service (and audited).
 */
export async function answerInputRequired(
  serving: InputRequiredServing,
  call: InputRequiredCall,
  args: unknown,
  sealed: string,
  inputResponses: Record<string, unknown> | undefined,
): Promise<CallToolResult | InputRequiredResult> {
  const { service } = serving;
  const digest = callDigest('ask_user', args);
  const state = serving.seal.open(sealed, digest, serving.now());
  const normalized = normalizeAskUserRequest(serving.tool.prepareArguments(args));
  if (!normalized.ok) {
    // Sealed for these very arguments, which were asked once: only a changed engine gets here.
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, normalized.error.message);
  }
  const { questions, timeoutMs } = normalized.value;
  const form = buildElicitationForm(questions);
  const reply = inputResponse(inputResponses, ASK_USER_INPUT);
  const { askId } = state;
  let outcome: AskOutcome;
  switch (reply.kind) {
    case 'missing': {
      // The client retried without the person's reply (or in a shape the SDK dropped): the
      // same form again, same round, unless the ask was settled meanwhile.
      const settled = await settledOutcome(service, askId);
      if (settled !== undefined) {
        outcome = settled;
        break;
      }
      const again = await formRound(serving, call, form, questions, state, digest);
      if (again !== undefined) return again;
      outcome = await service.outcome(askId, { signal: call.signal });
      break;
    }
    case 'elicit':
      if (reply.action === 'decline' || reply.action === 'cancel') {
        const message = reply.action === 'decline' ? DECLINED : DISMISSED;
        outcome = await settle(service, askId, () => service.cancel(askId, 'user', message));
        break;
      }
      if (reply.content === undefined && isUrlRound(call.modes, questions, serving)) {
        // URL mode: the person agreed to open the page; the answer arrives there, on any
        // process sharing the store.
        outcome = await service.outcome(askId, { signal: call.signal });
        break;
      }
      try {
        // The boundary parse: every rule the form's schema states (offered values, types, what
        // is required) and those it cannot, each refusal naming the question. No JSON Schema
        // compile per reply: that was most of a round trip's cost (bench/mcp-input-required).
        const answers = readElicitationContent(form, reply.content ?? {});
        const by = clientAnswerer(call.clientName);
        outcome = await settle(service, askId, () =>
          service.answer(askId, answers, by === undefined ? {} : { by }),
        );
      } catch (error) {
        if (!isAnswerRefusal(error)) throw error;
        const settled = await settledOutcome(service, askId);
        if (settled !== undefined) {
          // Answered elsewhere (or timed out) while the person filled the form in.
          outcome = settled;
          break;
        }
        if (state.round < serving.maxRounds) {
          const retry = { ...state, round: state.round + 1 };
          const again = await formRound(
            serving,
            call,
            form,
            questions,
            retry,
            digest,
            retryMessage(form, error),
          );
          if (again !== undefined) return again;
        }
        outcome = await settle(service, askId, () =>
          service.cancel(
            askId,
            'unavailable',
            `No valid answer after ${state.round} form${state.round === 1 ? '' : 's'} (maxRounds ${serving.maxRounds}); the last reply was refused: ${error.message}`,
          ),
        );
      }
      break;
    default:
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `inputResponses.${ASK_USER_INPUT} must be the reply to the elicitation ask_user sent, got a ${reply.kind} result.`,
      );
  }
  return outcomeResult(questions, outcome, call, askId, timeoutMs ?? serving.timeoutMs);
}

/** The `input_required` result of one round, or `undefined` when the client cannot be asked. */
async function formRound(
  serving: InputRequiredServing,
  call: InputRequiredCall,
  form: ElicitationForm,
  questions: readonly AskUserQuestion[],
  state: RequestState,
  digest: string,
  message = form.message,
): Promise<InputRequiredResult | undefined> {
  const link = wantsAnswerPage(call.modes, questions)
    ? await serving.urlFor?.(state.askId)
    : undefined;
  let request: ReturnType<typeof inputRequired.elicit>;
  if (link !== undefined) {
    request = inputRequired.elicitUrl({ url: link, message: answerPageMessage(form) });
  } else if (call.modes.form) {
    request = inputRequired.elicit({ message, requestedSchema: form.requestedSchema });
  } else {
    return undefined;
  }
  return inputRequired({
    inputRequests: { [ASK_USER_INPUT]: request },
    requestState: serving.seal.seal(state, digest),
  });
}

/** Whether this client was sent the answer page rather than the form (see `formRound`). */
function isUrlRound(
  modes: ElicitationModes,
  questions: readonly AskUserQuestion[],
  serving: InputRequiredServing,
): boolean {
  return serving.urlFor !== undefined && wantsAnswerPage(modes, questions);
}

/** The ask's final outcome when it has one already, else `undefined` (still open). */
async function settledOutcome(
  service: InteractionService,
  askId: string,
): Promise<AskOutcome | undefined> {
  const ask = await service.get(askId);
  if (ask === undefined || ask.state === 'pending' || ask.state === 'deferred') return undefined;
  return service.outcome(askId);
}

/** Runs a settle; an ask that already has its outcome gives that outcome instead. */
async function settle(
  service: InteractionService,
  askId: string,
  act: () => Promise<AskOutcome>,
): Promise<AskOutcome> {
  try {
    return await act();
  } catch (error) {
    if (isUserInteractionError(error, 'ASK_SETTLED')) return service.outcome(askId);
    throw error;
  }
}

function outcomeResult(
  questions: readonly AskUserQuestion[],
  outcome: AskOutcome,
  call: InputRequiredCall,
  askId: string,
  timeoutMs: number | undefined,
): CallToolResult {
  return toolResult(
    formatAskUserToolResult([...questions], outcome, {
      toolCallId: `mcp-${String(call.requestId)}`,
      askId,
      timeoutMs,
    }),
  );
}

/** The MCP shape of the tool's result: the text the model reads, and whether the call failed. */
export function toolResult(result: AskUserToolResult): CallToolResult {
  return { content: result.content, ...(result.isError === true ? { isError: true } : {}) };
}
