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

// Structural copies of the contract types in src/contracts: this file stands alone so an
// inspector or the Stately editor can load it; test/machines/contract-types.test.ts checks
// both stay assignable.
export type AskMachineResponse =
  | { kind: 'selection'; selections: string[]; comment?: string }
  | { kind: 'freeform'; text: string };
/** One question's answer as the machine holds it; `response: null` marks a skipped question. */
export interface AskMachineAnswer {
  questionId: string;
  response: AskMachineResponse | null;
}
/** Who answered: the recipient, and the channel they answered through. */
export interface AskMachineAnsweredBy {
  recipient: string;
  channel?: string;
}
export type AskMachineCancelReason = 'user' | 'unavailable' | 'invalid-answer' | 'provider-error';
/** The outcome the machine records when the ask leaves `pending` (the contracts' `AskOutcome`). */
export type AskMachineOutcome =
  | { status: 'answered'; answers: AskMachineAnswer[]; answeredBy?: AskMachineAnsweredBy }
  | { status: 'cancelled'; reason: AskMachineCancelReason; message?: string }
  | { status: 'deferred'; interactionId: string; message?: string }
  | { status: 'timedOut'; deadlineAt: number }
  | { status: 'aborted'; cause: unknown; message: string };

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
}

/** An ask's state data: its input plus the progress so far and, once decided, the outcome. */
export interface AskMachineContext extends AskMachineInput {
  /** Answers reported so far while pending; forgotten when the ask leaves `pending`. */
  progress: AskMachineAnswer[];
  outcome?: AskMachineOutcome;
}

/** Every event carries what has already been checked at the engine's boundary. */
export type AskMachineEvent =
  | { type: 'provider.answered'; answers: AskMachineAnswer[]; answeredBy?: AskMachineAnsweredBy }
  | { type: 'provider.cancelled'; reason: 'user' | 'unavailable'; message?: string }
  | { type: 'provider.deferred'; interactionId: string; message?: string }
  | { type: 'provider.progress'; answers: AskMachineAnswer[] }
  | { type: 'provider.failed'; reason: 'invalid-answer' | 'provider-error'; message: string }
  /** Answers brought by `service.answer`, from any service sharing the store. */
  | { type: 'answer'; answers: AskMachineAnswer[]; answeredBy?: AskMachineAnsweredBy }
  /** Answers for a deferred ask, found by its interaction id. */
  | { type: 'resume'; answers: AskMachineAnswer[]; answeredBy?: AskMachineAnsweredBy }
  | { type: 'abort'; cause: unknown; message: string }
  | { type: 'cancel'; reason: 'user' | 'unavailable'; message?: string }
  | { type: 'deadline'; at: number };

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
  return context;
}

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
        params: { answers: AskMachineAnswer[]; answeredBy: AskMachineAnsweredBy | undefined },
      ) => ({
        outcome: (params.answeredBy === undefined
          ? { status: 'answered', answers: params.answers }
          : {
              status: 'answered',
              answers: params.answers,
              answeredBy: params.answeredBy,
            }) as AskMachineOutcome,
      }),
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
  },
}).createMachine({
  id: 'ask',
  context: ({ input }) => createAskContext(input),
  initial: 'pending',
  states: {
    pending: {
      description:
        'The provider has the question and the person may answer. The provider signal is live only here; progress reports are kept until the ask leaves.',
      tags: ['delivering'],
      exit: 'forgetProgress',
      on: {
        'provider.progress': {
          actions: { type: 'recordProgress', params: ({ event }) => ({ answers: event.answers }) },
        },
        'provider.answered': {
          target: 'answered',
          actions: {
            type: 'recordAnswers',
            params: ({ event }) => ({ answers: event.answers, answeredBy: event.answeredBy }),
          },
        },
        answer: {
          target: 'answered',
          actions: {
            type: 'recordAnswers',
            params: ({ event }) => ({ answers: event.answers, answeredBy: event.answeredBy }),
          },
        },
        'provider.cancelled': {
          target: 'cancelled',
          actions: {
            type: 'recordCancellation',
            params: ({ event }) => ({ reason: event.reason, message: event.message }),
          },
        },
        'provider.failed': {
          target: 'cancelled',
          actions: {
            type: 'recordCancellation',
            params: ({ event }) => ({ reason: event.reason, message: event.message }),
          },
        },
        cancel: {
          target: 'cancelled',
          actions: {
            type: 'recordCancellation',
            params: ({ event }) => ({ reason: event.reason, message: event.message }),
          },
        },
        'provider.deferred': {
          target: 'deferred',
          actions: {
            type: 'recordDeferral',
            params: ({ event }) => ({
              interactionId: event.interactionId,
              message: event.message,
            }),
          },
        },
        abort: {
          target: 'aborted',
          actions: {
            type: 'recordAbort',
            params: ({ event }) => ({ cause: event.cause, message: event.message }),
          },
        },
        deadline: {
          guard: {
            type: 'deadlineReached',
            params: ({ context, event }) => ({ at: event.at, deadlineAt: context.deadlineAt }),
          },
          target: 'timedOut',
          actions: {
            type: 'recordTimeout',
            params: ({ context }) => ({ deadlineAt: context.deadlineAt as number }),
          },
        },
      },
    },
    deferred: {
      description:
        'The tool call has ended and the question lives on elsewhere (a chat thread, a link). It waits for `resume` or `answer`, a cancel or its deadline; the caller’s abort signal belonged to the tool call and no longer applies.',
      on: {
        resume: {
          target: 'answered',
          actions: {
            type: 'recordAnswers',
            params: ({ event }) => ({ answers: event.answers, answeredBy: event.answeredBy }),
          },
        },
        answer: {
          target: 'answered',
          actions: {
            type: 'recordAnswers',
            params: ({ event }) => ({ answers: event.answers, answeredBy: event.answeredBy }),
          },
        },
        cancel: {
          target: 'cancelled',
          actions: {
            type: 'recordCancellation',
            params: ({ event }) => ({ reason: event.reason, message: event.message }),
          },
        },
        deadline: {
          guard: {
            type: 'deadlineReached',
            params: ({ context, event }) => ({ at: event.at, deadlineAt: context.deadlineAt }),
          },
          target: 'timedOut',
          actions: {
            type: 'recordTimeout',
            params: ({ context }) => ({ deadlineAt: context.deadlineAt as number }),
          },
        },
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
