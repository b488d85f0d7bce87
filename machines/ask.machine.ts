/**
 * The lifecycle of one ask: pending until a provider, the caller, another service or the
 * deadline decides, then exactly one outcome. Pure: no I/O, no imports from src/, no timers,
 * no invoked actors. The engine applies events with the machine's own transition logic to a
 * snapshot kept in a store, so any process sharing the store can move the ask on; what the
 * engine does around a transition (deliver to the provider, abort its signal, hand the outcome
 * to the caller) it reads from the resulting snapshot: the `delivering` tag and the outcome in
 * the context.
 *
 * The deadline arrives as an event, because a persisted snapshot must still expire after a
 * restore in another process (xstate#5331: `after` timers are not rescheduled on restore).
 */
import { assign, setup } from 'xstate';
import { samePerson } from './person-key.js';

// Structural copies of the contract types in src/contracts: this file stands alone so an
// inspector or the Stately editor can load it; test/machines/contract-types.test.ts checks
// both stay assignable.
/** One question's response as the machine holds it: options picked, or text typed. */
export type AskMachineResponse =
  | { kind: 'selection'; selections: string[]; comment?: string; input?: unknown }
  | { kind: 'freeform'; text: string };
/** One question's answer as the machine holds it; `response: null` marks a skipped question. */
export interface AskMachineAnswer {
  questionId: string;
  response: AskMachineResponse | null;
}
/**
 * A tool approval approved with edited input (the contracts' `ToolInputEdit`): the input
 * digests before and after, and the top-level fields that changed.
 */
export interface AskMachineToolEdit {
  from: string;
  to: string;
  fields: string[];
}
/** Who answered: the recipient, and the channel they answered through. */
export interface AskMachineAnsweredBy {
  recipient: string;
  channel?: string;
}
/** Why an ask ended `cancelled` (the contracts' `AskCancelReason`). */
export type AskMachineCancelReason =
  | 'user'
  | 'unavailable'
  | 'invalid-answer'
  | 'provider-error'
  | 'no-quorum';
/** One person's response to a quorum ask: who, what, and when (epoch milliseconds). */
export interface AskMachineQuorumResponse {
  by: string;
  answers: AskMachineAnswer[];
  at: number;
}
/**
 * How many people must respond, and how they must agree: `required` distinct people (M), only
 * those in `from` when it is given, `agree: 'same'` = M gave the same answers to every question,
 * `'any'` = M responses of any kind; anyone picking a `veto` option title ends the ask at once.
 */
export interface AskMachineQuorum {
  required: number;
  from?: string[];
  agree: 'same' | 'any';
  veto?: string[];
}
/** Why a response was not counted: the person already responded, or is not in `from`. */
export type AskMachineRefusalReason = 'duplicate' | 'not-allowed' | 'not-a-quorum-ask';
/** The outcome the machine records when the ask leaves `pending` (the contracts' `AskOutcome`). */
export type AskMachineOutcome =
  | {
      status: 'answered';
      answers: AskMachineAnswer[];
      answeredBy?: AskMachineAnsweredBy;
      responses?: AskMachineQuorumResponse[];
      vetoedBy?: string;
      edited?: AskMachineToolEdit;
    }
  | {
      status: 'cancelled';
      reason: AskMachineCancelReason;
      message?: string;
      responses?: AskMachineQuorumResponse[];
    }
  | { status: 'deferred'; interactionId: string; message?: string }
  | { status: 'timedOut'; deadlineAt: number }
  | { status: 'aborted'; cause: unknown; message: string };

type AnsweredOutcome = Extract<AskMachineOutcome, { status: 'answered' }>;

/**
 * What an ask starts with: its id, creation time and deadline (epoch milliseconds), the tool
 * call and session it belongs to, and who asks.
 */
export interface AskMachineInput {
  askId: string;
  createdAt: number;
  deadlineAt?: number;
  toolCallId?: string;
  sessionId?: string;
  /** Who asks (the request's `agent`), shown by providers. */
  agent?: string;
  /**
   * Answers stay out of this ask's audit events and refusal messages, whichever service writes
   * them: the asking service's `redact`, kept with the ask. Absent = false.
   */
  redact?: true;
  /**
   * The W3C trace context (`traceparent`, `tracestate`) of the span the asking process keeps
   * for this ask (ask-engine/otel), so a process that moves the ask on later puts its spans in
   * the same trace. Data only: the machine never reads it.
   */
  traceparent?: string;
  tracestate?: string;
  /** Several people decide: responses count toward this quorum instead of one answer ending it. */
  quorum?: AskMachineQuorum;
}

/** An ask's state data: its input plus the progress so far and, once decided, the outcome. */
export interface AskMachineContext extends AskMachineInput {
  /** Answers reported so far while pending; forgotten when the ask leaves `pending`. */
  progress: AskMachineAnswer[];
  /**
   * A quorum ask's responses so far, in order. Kept when the ask ends (a timeout keeps them in
   * the history without counting them as a decision).
   */
  responses?: AskMachineQuorumResponse[];
  /** The last response refused (who, why); cleared by the next response counted. */
  refused?: { by: string; reason: AskMachineRefusalReason; at: number } | undefined;
  outcome?: AskMachineOutcome;
}

/** Every event carries what has already been checked at the engine's boundary. */
export type AskMachineEvent =
  | {
      type: 'provider.answered';
      answers: AskMachineAnswer[];
      answeredBy?: AskMachineAnsweredBy;
      edited?: AskMachineToolEdit;
    }
  | { type: 'provider.cancelled'; reason: 'user' | 'unavailable'; message?: string }
  /**
   * The provider handed the question on; with `quorum`, several people decide it from now on
   * (a provider that routes it to them, e.g. the notify provider's route). Kept only by an ask
   * that has no quorum yet.
   */
  | {
      type: 'provider.deferred';
      interactionId: string;
      message?: string;
      quorum?: AskMachineQuorum;
    }
  | { type: 'provider.progress'; answers: AskMachineAnswer[] }
  | { type: 'provider.failed'; reason: 'invalid-answer' | 'provider-error'; message: string }
  /** Answers brought by `service.answer`, from any service sharing the store. */
  | {
      type: 'answer';
      answers: AskMachineAnswer[];
      answeredBy?: AskMachineAnsweredBy;
      edited?: AskMachineToolEdit;
    }
  /** Answers for a deferred ask, found by its interaction id. */
  | {
      type: 'resume';
      answers: AskMachineAnswer[];
      answeredBy?: AskMachineAnsweredBy;
      edited?: AskMachineToolEdit;
    }
  | { type: 'abort'; cause: unknown; message: string }
  | { type: 'cancel'; reason: 'user' | 'unavailable'; message?: string }
  | { type: 'deadline'; at: number }
  /** One person's response to a quorum ask (`by` = their recipient id, `at` = when). */
  | {
      type: 'respond';
      answers: AskMachineAnswer[];
      by: string;
      at: number;
      edited?: AskMachineToolEdit;
    };

// Shared by every ask without progress: contexts are never mutated, and an empty array per
// pending ask is heap that a million pending asks notice.
const NO_PROGRESS = Object.freeze([]) as unknown as AskMachineAnswer[];

/**
 * The context of a new ask: the one place that says what an ask starts with. Built field by
 * field: object spread, once its call site sees many shapes, gives every copy a hidden class
 * of its own (measured: a quarter of a pending ask's heap).
 */
export function createAskContext(input: AskMachineInput): AskMachineContext {
  const context: AskMachineContext = {
    askId: input.askId,
    createdAt: input.createdAt,
    progress: NO_PROGRESS,
  };
  if (input.deadlineAt !== undefined) context.deadlineAt = input.deadlineAt;
  if (input.toolCallId !== undefined) context.toolCallId = input.toolCallId;
  if (input.sessionId !== undefined) context.sessionId = input.sessionId;
  if (input.agent !== undefined) context.agent = input.agent;
  if (input.redact === true) context.redact = true;
  if (input.traceparent !== undefined) context.traceparent = input.traceparent;
  if (input.tracestate !== undefined) context.tracestate = input.tracestate;
  if (input.quorum !== undefined) {
    context.quorum = input.quorum;
    context.responses = NO_RESPONSES;
  }
  return context;
}

const NO_RESPONSES = Object.freeze([]) as unknown as AskMachineQuorumResponse[];

/**
 * What "the same answers" means for `agree: 'same'`: per question (in question id order) the
 * chosen option titles as a set (with the edited input of an approval), or the typed text, or
 * skipped. Comments do not count: two people approving with different remarks agree.
 */
export function agreementKey(answers: AskMachineAnswer[]): string {
  const parts = answers.map((answer) => {
    const response = answer.response;
    let value: unknown = null;
    if (response?.kind === 'selection') {
      const picked = [...response.selections].sort();
      // An approval with edits agrees only with the same edits (the engine stores an edited
      // input with its keys sorted, so JSON spells it one way).
      value = response.input === undefined ? picked : [...picked, { input: response.input }];
    } else if (response !== null) value = response.text;
    return [answer.questionId, value] as const;
  });
  parts.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return JSON.stringify(parts);
}

/** The largest number of responses that agree under the quorum's rule. */
export function largestAgreement(
  responses: AskMachineQuorumResponse[],
  agree: 'same' | 'any',
): number {
  if (agree === 'any') return responses.length;
  const counts = new Map<string, number>();
  let largest = 0;
  for (const response of responses) {
    const key = agreementKey(response.answers);
    const count = (counts.get(key) ?? 0) + 1;
    counts.set(key, count);
    if (count > largest) largest = count;
  }
  return largest;
}

/** The veto option title this response picked, if any. */
export function vetoPicked(
  answers: AskMachineAnswer[],
  veto: readonly string[] | undefined,
): string | undefined {
  if (veto === undefined || veto.length === 0) return undefined;
  for (const answer of answers) {
    if (answer.response?.kind !== 'selection') continue;
    for (const title of answer.response.selections) if (veto.includes(title)) return title;
  }
  return undefined;
}

/** The responses with this one appended (a new array: contexts are never mutated). */
function withResponse(
  responses: AskMachineQuorumResponse[] | undefined,
  response: AskMachineQuorumResponse,
): AskMachineQuorumResponse[] {
  return [...(responses ?? []), response];
}

/** What the quorum's guards and actions read: the ask's quorum, the responses so far, this one. */
export interface QuorumParams {
  quorum: AskMachineQuorum | undefined;
  responses: AskMachineQuorumResponse[] | undefined;
  response: AskMachineQuorumResponse;
  /** This response approved a tool call with edited input. */
  edited?: AskMachineToolEdit;
}

/** Guard params for a response: the ask's quorum, the responses so far, and this response. */
function quorumParams({
  context,
  event,
}: {
  context: AskMachineContext;
  event: AskMachineEvent;
}): QuorumParams {
  const respond = event as Extract<AskMachineEvent, { type: 'respond' }>;
  const params: QuorumParams = {
    quorum: context.quorum,
    responses: context.responses,
    response: { by: respond.by, answers: respond.answers, at: respond.at },
  };
  if (respond.edited !== undefined) params.edited = respond.edited;
  return params;
}

/** Does this response complete the quorum (counted with the responses before it)? */
function reachesQuorum(params: QuorumParams): boolean {
  const quorum = params.quorum;
  if (quorum === undefined) return false;
  const all = withResponse(params.responses, params.response);
  if (quorum.agree === 'any') return all.length >= quorum.required;
  const key = agreementKey(params.response.answers);
  let agreeing = 0;
  for (const response of all) if (agreementKey(response.answers) === key) agreeing++;
  return agreeing >= quorum.required;
}

/** After this response, can the people in `from` who have not responded still make a quorum? */
function quorumImpossible(params: QuorumParams): boolean {
  const quorum = params.quorum;
  if (quorum?.from === undefined) return false;
  const all = withResponse(params.responses, params.response);
  const remaining = quorum.from.filter(
    (id) => !all.some((response) => samePerson(response.by, id)),
  ).length;
  return largestAgreement(all, quorum.agree) + remaining < quorum.required;
}

/** The agreed answers once the quorum is reached: those of the response that completed it. */
function agreedOutcome(params: QuorumParams): AskMachineOutcome {
  const outcome: AnsweredOutcome = {
    status: 'answered',
    answers: params.response.answers,
    responses: withResponse(params.responses, params.response),
  };
  if (params.edited !== undefined) outcome.edited = params.edited;
  return outcome;
}

type EventOf<T extends AskMachineEvent['type']> = Extract<AskMachineEvent, { type: T }>;

// The transitions `pending` and `deferred` share, written once: a person's answer, a quorum
// response, a cancel and the deadline settle an ask the same way wherever it waits.

/** One person's answer (the provider's, `service.answer`'s or `resume`'s): ends it answered. */
const answerTransition = {
  guard: {
    type: 'singleAnswerer',
    params: ({ context }: { context: AskMachineContext }) => ({ quorum: context.quorum }),
  },
  target: 'answered',
  actions: {
    type: 'recordAnswers',
    params: ({ event }: { event: EventOf<'provider.answered' | 'answer' | 'resume'> }) => ({
      answers: event.answers,
      answeredBy: event.answeredBy,
      edited: event.edited,
    }),
  },
} as const;

/** A cancellation by the person, the caller or the provider: ends it cancelled. */
const cancelTransition = {
  target: 'cancelled',
  actions: {
    type: 'recordCancellation',
    params: ({
      event,
    }: {
      event: EventOf<'cancel' | 'provider.cancelled' | 'provider.failed'>;
    }) => ({
      reason: event.reason,
      message: event.message,
    }),
  },
} as const;

/** A quorum response: refused (with why), counted, or deciding the ask. */
const respondTransitions = [
  {
    guard: { type: 'notAQuorumAsk' as const, params: quorumParams },
    actions: {
      type: 'refuseResponse' as const,
      params: ({ event }: { event: EventOf<'respond'> }) => ({
        by: event.by,
        reason: 'not-a-quorum-ask' as const,
        at: event.at,
      }),
    },
  },
  {
    guard: { type: 'alreadyResponded' as const, params: quorumParams },
    actions: {
      type: 'refuseResponse' as const,
      params: ({ event }: { event: EventOf<'respond'> }) => ({
        by: event.by,
        reason: 'duplicate' as const,
        at: event.at,
      }),
    },
  },
  {
    guard: { type: 'notAllowedToRespond' as const, params: quorumParams },
    actions: {
      type: 'refuseResponse' as const,
      params: ({ event }: { event: EventOf<'respond'> }) => ({
        by: event.by,
        reason: 'not-allowed' as const,
        at: event.at,
      }),
    },
  },
  {
    guard: { type: 'responseVetoes' as const, params: quorumParams },
    target: 'answered' as const,
    actions: { type: 'recordVeto' as const, params: quorumParams },
  },
  {
    guard: { type: 'responseReachesQuorum' as const, params: quorumParams },
    target: 'answered' as const,
    actions: { type: 'recordQuorum' as const, params: quorumParams },
  },
  {
    guard: { type: 'quorumNoLongerReachable' as const, params: quorumParams },
    target: 'cancelled' as const,
    actions: { type: 'recordNoQuorum' as const, params: quorumParams },
  },
  { actions: { type: 'recordResponse' as const, params: quorumParams } },
];

/** The deadline, once it has passed: ends it timed out. */
const deadlineTransition = {
  guard: {
    type: 'deadlineReached',
    params: ({ context, event }: { context: AskMachineContext; event: EventOf<'deadline'> }) => ({
      at: event.at,
      deadlineAt: context.deadlineAt,
    }),
  },
  target: 'timedOut',
  actions: {
    type: 'recordTimeout',
    params: ({ context }: { context: AskMachineContext }) => ({
      deadlineAt: context.deadlineAt as number,
    }),
  },
} as const;

/** What both waiting states take. */
const whileOpen = {
  answer: answerTransition,
  respond: respondTransitions,
  cancel: cancelTransition,
  deadline: deadlineTransition,
};

/**
 * The ask statechart: `pending` until answered, cancelled, deferred, timed out or aborted;
 * `deferred` waits for `resume`, `answer`, a cancel or its deadline. Load it in an inspector or
 * the Stately editor to see every state and transition.
 */
export const askMachine = setup({
  types: {
    input: {} as AskMachineInput,
    context: {} as AskMachineContext,
    events: {} as AskMachineEvent,
    output: {} as AskMachineOutcome,
    tags: {} as 'delivering',
  },
  actions: {
    recordProgress: assign((_, params: { answers: AskMachineAnswer[] }) => ({
      progress: params.answers,
    })),
    forgetProgress: assign({ progress: () => NO_PROGRESS }),
    recordAnswers: assign(
      (
        _,
        params: {
          answers: AskMachineAnswer[];
          answeredBy: AskMachineAnsweredBy | undefined;
          edited: AskMachineToolEdit | undefined;
        },
      ) => {
        const outcome: AnsweredOutcome = { status: 'answered', answers: params.answers };
        if (params.answeredBy !== undefined) outcome.answeredBy = params.answeredBy;
        if (params.edited !== undefined) outcome.edited = params.edited;
        return { outcome };
      },
    ),
    recordCancellation: assign(
      (_, params: { reason: AskMachineCancelReason; message: string | undefined }) => ({
        outcome: (params.message === undefined
          ? { status: 'cancelled', reason: params.reason }
          : {
              status: 'cancelled',
              reason: params.reason,
              message: params.message,
            }) as AskMachineOutcome,
      }),
    ),
    recordDeferral: assign((_, params: { interactionId: string; message: string | undefined }) => ({
      outcome: (params.message === undefined
        ? { status: 'deferred', interactionId: params.interactionId }
        : {
            status: 'deferred',
            interactionId: params.interactionId,
            message: params.message,
          }) as AskMachineOutcome,
    })),
    recordTimeout: assign((_, params: { deadlineAt: number }) => ({
      outcome: { status: 'timedOut', deadlineAt: params.deadlineAt } as AskMachineOutcome,
    })),
    adoptQuorum: assign(
      (
        { context },
        params: { quorum: AskMachineQuorum | undefined; routed: AskMachineQuorum | undefined },
      ) =>
        params.quorum !== undefined || params.routed === undefined
          ? {}
          : { quorum: params.routed, responses: context.responses ?? NO_RESPONSES },
    ),
    recordResponse: assign((_, params: QuorumParams) => ({
      responses: withResponse(params.responses, params.response),
      refused: undefined,
    })),
    refuseResponse: assign(
      (_, params: { by: string; reason: AskMachineRefusalReason; at: number }) => ({
        refused: { by: params.by, reason: params.reason, at: params.at },
      }),
    ),
    recordVeto: assign((_, params: QuorumParams) => ({
      responses: withResponse(params.responses, params.response),
      refused: undefined,
      outcome: {
        status: 'answered',
        answers: params.response.answers,
        responses: withResponse(params.responses, params.response),
        vetoedBy: params.response.by,
      } as AskMachineOutcome,
    })),
    recordQuorum: assign((_, params: QuorumParams) => ({
      responses: withResponse(params.responses, params.response),
      refused: undefined,
      outcome: agreedOutcome(params),
    })),
    recordNoQuorum: assign((_, params: QuorumParams) => ({
      responses: withResponse(params.responses, params.response),
      refused: undefined,
      outcome: {
        status: 'cancelled',
        reason: 'no-quorum',
        message: 'Everyone who may respond has responded without reaching the quorum.',
        responses: withResponse(params.responses, params.response),
      } as AskMachineOutcome,
    })),
    recordAbort: assign((_, params: { cause: unknown; message: string }) => ({
      outcome: {
        status: 'aborted',
        cause: params.cause,
        message: params.message,
      } as AskMachineOutcome,
    })),
  },
  guards: {
    deadlineReached: (_, params: { at: number; deadlineAt: number | undefined }) =>
      params.deadlineAt !== undefined && params.at >= params.deadlineAt,
    singleAnswerer: (_, params: { quorum: AskMachineQuorum | undefined }) =>
      params.quorum === undefined,
    notAQuorumAsk: (_, params: QuorumParams) => params.quorum === undefined,
    alreadyResponded: (_, params: QuorumParams) =>
      params.responses?.some((response) => samePerson(response.by, params.response.by)) === true,
    notAllowedToRespond: (_, params: QuorumParams) =>
      params.quorum?.from !== undefined &&
      !params.quorum.from.some((id) => samePerson(id, params.response.by)),
    responseVetoes: (_, params: QuorumParams) =>
      vetoPicked(params.response.answers, params.quorum?.veto) !== undefined,
    responseReachesQuorum: (_, params: QuorumParams) => reachesQuorum(params),
    quorumNoLongerReachable: (_, params: QuorumParams) => quorumImpossible(params),
  },
}).createMachine({
  id: 'ask',
  context: ({ input }) => createAskContext(input),
  initial: 'pending',
  states: {
    pending: {
      description:
        'The provider has the question and the person may answer (one answer, or responses counted toward a quorum: refused when the person already responded or is not in `from`; a veto, the quorum, or no quorum left ends it). The provider signal is live only here; progress reports are kept until the ask leaves.',
      tags: ['delivering'],
      exit: 'forgetProgress',
      on: {
        ...whileOpen,
        'provider.progress': {
          actions: { type: 'recordProgress', params: ({ event }) => ({ answers: event.answers }) },
        },
        'provider.answered': answerTransition,
        'provider.cancelled': cancelTransition,
        'provider.failed': cancelTransition,
        'provider.deferred': {
          target: 'deferred',
          actions: [
            {
              type: 'recordDeferral',
              params: ({ event }) => ({
                interactionId: event.interactionId,
                message: event.message,
              }),
            },
            {
              type: 'adoptQuorum',
              params: ({ context, event }) => ({ quorum: context.quorum, routed: event.quorum }),
            },
          ],
        },
        abort: {
          target: 'aborted',
          actions: {
            type: 'recordAbort',
            params: ({ event }) => ({ cause: event.cause, message: event.message }),
          },
        },
      },
    },
    deferred: {
      description:
        'The tool call has ended and the question lives on elsewhere (a chat thread, a link). It waits for `resume` or `answer`, a cancel or its deadline; the caller’s abort signal belonged to the tool call and no longer applies.',
      on: {
        ...whileOpen,
        resume: answerTransition,
      },
    },
    answered: {
      type: 'final',
      description: 'The person answered; the answers were checked against the questions.',
    },
    cancelled: {
      type: 'final',
      description:
        'Dismissed by the person, no UI could show it, the answer failed its check, or the provider failed.',
    },
    timedOut: {
      type: 'final',
      description: 'The deadline passed without an answer. Nothing was chosen for the person.',
    },
    aborted: {
      type: 'final',
      description: 'The caller’s signal, a drain of the service, or the host went away.',
    },
  },
  output: ({ context }) => context.outcome as AskMachineOutcome,
});

/** The type of `askMachine`, for typing snapshots and actors made from it. */
export type AskMachine = typeof askMachine;
