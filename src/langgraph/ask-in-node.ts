/** Asking from inside a LangGraph node without asking twice when the node runs again. */
import { getConfig, interrupt, type LangGraphRunnableConfig } from '@langchain/langgraph';
import type { AskUserQuestionAnswer } from '../contracts/answer.js';
import type { AskOutcome } from '../contracts/outcome.js';
import type { AskUserQuestion } from '../contracts/question.js';
import type { AskUserRequestInput } from '../contracts/tool-input.js';
import type { AskOptions, InteractionService } from '../engine/service-contract.js';
import { isUserInteractionError } from '../rules/errors.js';
import { validateAskUserAnswers } from '../rules/validate-answers.js';
import { nextNodeAskKey } from './node-ask-key.js';

/** Options of `askInNode` and `askOrInterrupt`. */
export interface NodeAskOptions {
  /** Milliseconds until the ask times out (at least `MIN_TIMEOUT_MS`); without it an ask waits for ever. */
  timeoutMs?: number;
  /** The node's config (its second argument); by default LangGraph's `getConfig()`. */
  config?: LangGraphRunnableConfig;
}

/** What a graph run stops with when a deferred ask becomes an interrupt. */
export interface AskInterrupt {
  askId: string;
  questions: AskUserQuestion[];
  /**
   * Why the previous resume value was refused (the graph stopped again for a corrected one). It
   * names the question and what was wrong, never what the person typed or picked: the
   * checkpointer keeps this value, outside the service's redaction.
   */
  error?: string;
}

/**
 * Asks from inside a node and resolves the outcome. The ask's key comes from the thread, the
 * node's task and this call's order within the node run, so when LangGraph runs the node again
 * (after an interrupt, a failure, or in a fresh process from its checkpoint) the same call
 * attaches to the same ask and the person is not asked again. The run's abort signal aborts it.
 *
 * @example
 * graph.addNode('pick', async (state, config) => {
 *   const outcome = await askInNode(service, { question: 'Which database?', options: ['PostgreSQL', 'SQLite'] }, { config });
 *   return { database: outcome.status === 'answered' ? outcome.answers[0]?.response : undefined };
 * });
 */
export async function askInNode(
  service: InteractionService,
  request: AskUserRequestInput,
  options: NodeAskOptions = {},
): Promise<AskOutcome> {
  const config = options.config ?? getConfig();
  return service.ask(request, askOptions(config, options));
}

/**
 * Interrupt mode: asks like `askInNode`, and when the ask is deferred (the provider handed it
 * elsewhere) stops the graph with `interrupt({ askId, questions })`. Resume the thread with
 * `new Command({ resume: answers })`: the node runs again, attaches to the same ask and gives the
 * answers through `service.answer`. Answers that do not fit the questions stop the graph again
 * with `error` saying why (without quoting the answers), and the ask stays open. `new Command({ resume: { askId } })` means the
 * answer went in elsewhere (a web page calling `service.answer`): the stored outcome is returned,
 * still `deferred` if nobody has answered yet. LangGraph keeps a resume value in its checkpointer
 * as given, so with a redacting service prefer this form: the answers then never reach it.
 */
export async function askOrInterrupt(
  service: InteractionService,
  request: AskUserRequestInput,
  options: NodeAskOptions = {},
): Promise<AskOutcome> {
  return askWithInterrupts(service, request, options, {
    pause: (pause) => pause,
    // Never quoting the person: the interrupt value is written to the checkpointer.
    answers: (resume, questions) =>
      validateAskUserAnswers(questions, resume, { quoteInput: false }),
  });
}

/** How an interrupt mode speaks to the graph's caller: its interrupt value and its resume values. */
export interface InterruptProtocol {
  /** The value the graph stops with, from the ask (and why the last resume value was refused). */
  pause(pause: AskInterrupt): unknown;
  /** The answers a resume value stands for; throws `UserInteractionError` when it fits none. */
  answers(resume: unknown, questions: readonly AskUserQuestion[]): AskUserQuestionAnswer[];
}

/**
 * Asks keyed like `askInNode`; when the ask is (or was) deferred, stops the graph with the
 * protocol's interrupt value until a resume value gives answers (through `service.answer`) or
 * names the ask (`{ askId }`: answered elsewhere).
 */
export async function askWithInterrupts(
  service: InteractionService,
  request: AskUserRequestInput,
  options: NodeAskOptions,
  protocol: InterruptProtocol,
): Promise<AskOutcome> {
  const config = options.config ?? getConfig();
  const handle = service.start(request, askOptions(config, options));
  const outcome = await handle.outcome;
  const stored = await service.get(handle.id);
  // Interrupt whenever the ask was ever deferred, even if it has been answered since: LangGraph
  // matches resume values to interrupts by their order in the node, so skipping one would hand
  // its resume value to the next interrupt. For the same reason a refused resume value is
  // checked by a pure function of the questions, never by the store's current state.
  if (stored?.interactionId === undefined && outcome.status !== 'deferred') return outcome;
  const askId = handle.id;
  const questions = stored?.questions ?? handle.getSnapshot().questions;
  let pause: AskInterrupt = { askId, questions };
  for (;;) {
    const resume: unknown = interrupt<unknown, unknown>(protocol.pause(pause));
    if (isRecord(resume) && !Array.isArray(resume) && 'askId' in resume) {
      if (resume.askId === askId) break;
      pause = {
        askId,
        questions,
        error: `The resume value names the ask ${JSON.stringify(resume.askId)}, but this interrupt is for ${JSON.stringify(askId)}.`,
      };
      continue;
    }
    let answers: AskUserQuestionAnswer[];
    try {
      answers = protocol.answers(resume, questions);
    } catch (error) {
      if (!isUserInteractionError(error)) throw error;
      pause = { askId, questions, error: error.message };
      continue;
    }
    try {
      return await service.answer(askId, answers);
    } catch (error) {
      // Answered already (elsewhere, or by an earlier run of this node): that outcome stands.
      if (!isUserInteractionError(error, 'ASK_SETTLED')) throw error;
      break;
    }
  }
  return (await service.get(askId))?.outcome ?? outcome;
}

/** The options of a node's ask: its key from the node run, its timeout, the run's signal. */
export function askOptions(config: LangGraphRunnableConfig, options: NodeAskOptions): AskOptions {
  const { timeoutMs } = options;
  return {
    key: nextNodeAskKey(config),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(config.signal === undefined ? {} : { signal: config.signal }),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
