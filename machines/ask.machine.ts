/**
 * The lifecycle of one ask: pending until a provider, the caller or the deadline decides,
 * then exactly one outcome. Pure: no I/O, no imports from src/. The service supplies the
 * `deliver` action (starts the provider call) and the `stopDelivery` action (aborts the
 * provider's signal) with `askMachine.provide(...)`, so delivery lives exactly as long as
 * `pending`. Delivery is an entry/exit pair rather than an invoked child actor: a child
 * actor per ask doubled the time and heap of every ask (measured with bench/ask.bench.ts).
 * The deadline arrives as an event from the service's clock, because a persisted snapshot
 * must still expire after a restore in another process (xstate#5331: `after` timers are
 * not rescheduled on restore), and one shared timer is cheaper than one per ask.
 */
import { assign, setup } from 'xstate';

// Structural copies of the contract types in src/contracts: this file stands alone so an
// inspector or the Stately editor can load it; src/ checks both stay assignable.
export type AskMachineResponse =
  | { kind: 'selection'; selections: string[]; comment?: string }
  | { kind: 'freeform'; text: string };
export interface AskMachineAnswer {
  questionId: string;
  response: AskMachineResponse | null;
}
export type AskMachineCancelReason = 'user' | 'unavailable' | 'invalid-answer' | 'provider-error';
export type AskMachineOutcome =
  | { status: 'answered'; answers: AskMachineAnswer[] }
  | { status: 'cancelled'; reason: AskMachineCancelReason; message?: string }
  | { status: 'deferred'; interactionId: string; message?: string }
  | { status: 'timedOut'; deadlineAt: number }
  | { status: 'aborted'; cause: unknown; message: string };

export interface AskMachineInput {
  askId: string;
  /** The normalized request; the machine only carries it so a restored ask has it. */
  request: { questions: readonly { id: string }[] };
  createdAt: number;
  deadlineAt?: number;
  toolCallId?: string;
  sessionId?: string;
}

export interface AskMachineContext extends AskMachineInput {
  progress: AskMachineAnswer[];
  outcome?: AskMachineOutcome;
}

export type AskMachineEvent =
  | { type: 'provider.answered'; answers: AskMachineAnswer[] }
  | { type: 'provider.cancelled'; reason: 'user' | 'unavailable'; message?: string }
  | { type: 'provider.deferred'; interactionId: string; message?: string }
  | { type: 'provider.progress'; answers: AskMachineAnswer[] }
  | { type: 'provider.failed'; reason: 'invalid-answer' | 'provider-error'; message: string }
  | { type: 'abort'; cause: unknown; message: string }
  | { type: 'cancel'; reason: 'user' | 'unavailable'; message?: string }
  | { type: 'resume'; answers: AskMachineAnswer[] }
  /** A resume whose answers failed validation: the ask ends `cancelled` / `invalid-answer`. */
  | { type: 'resume.rejected'; message: string }
  | { type: 'deadline'; at: number };

export const askMachine = setup({
  types: {
    input: {} as AskMachineInput,
    context: {} as AskMachineContext,
    events: {} as AskMachineEvent,
    output: {} as AskMachineOutcome,
  },
  actions: {
    // Placeholders: the service starts the provider call, and aborts the provider's signal
    // with the cause of the exit.
    deliver: () => undefined,
    stopDelivery: () => undefined,
    recordProgress: assign({
      progress: ({ event }) => (event.type === 'provider.progress' ? event.answers : []),
    }),
    recordAnswers: assign({
      outcome: ({ event }): AskMachineOutcome => ({
        status: 'answered',
        answers: event.type === 'provider.answered' || event.type === 'resume' ? event.answers : [],
      }),
    }),
    recordCancellation: assign({
      outcome: ({ event }): AskMachineOutcome => {
        const reason =
          event.type === 'provider.cancelled' ||
          event.type === 'provider.failed' ||
          event.type === 'cancel'
            ? event.reason
            : event.type === 'resume.rejected'
              ? 'invalid-answer'
              : 'user';
        const message = 'message' in event ? event.message : undefined;
        return message === undefined
          ? { status: 'cancelled', reason }
          : { status: 'cancelled', reason, message };
      },
    }),
    recordDeferral: assign({
      outcome: ({ event }): AskMachineOutcome | undefined =>
        event.type === 'provider.deferred'
          ? event.message === undefined
            ? { status: 'deferred', interactionId: event.interactionId }
            : { status: 'deferred', interactionId: event.interactionId, message: event.message }
          : undefined,
    }),
    recordTimeout: assign({
      outcome: ({ context }): AskMachineOutcome => ({
        status: 'timedOut',
        deadlineAt: context.deadlineAt ?? 0,
      }),
    }),
    recordAbort: assign({
      outcome: ({ event }): AskMachineOutcome =>
        event.type === 'abort'
          ? { status: 'aborted', cause: event.cause, message: event.message }
          : { status: 'aborted', cause: undefined, message: 'aborted' },
    }),
  },
  guards: {
    hasInteractionId: ({ event }) =>
      event.type === 'provider.deferred' &&
      typeof event.interactionId === 'string' &&
      event.interactionId.length > 0,
    deadlineReached: ({ context, event }) =>
      event.type === 'deadline' &&
      context.deadlineAt !== undefined &&
      event.at >= context.deadlineAt,
  },
}).createMachine({
  id: 'ask',
  context: ({ input }) => ({ ...input, progress: [] }),
  initial: 'pending',
  states: {
    pending: {
      entry: 'deliver',
      exit: 'stopDelivery',
      on: {
        'provider.progress': { actions: 'recordProgress' },
        'provider.answered': { target: 'answered', actions: 'recordAnswers' },
        'provider.cancelled': { target: 'cancelled', actions: 'recordCancellation' },
        'provider.failed': { target: 'cancelled', actions: 'recordCancellation' },
        'provider.deferred': {
          guard: 'hasInteractionId',
          target: 'deferred',
          actions: 'recordDeferral',
        },
        cancel: { target: 'cancelled', actions: 'recordCancellation' },
        abort: { target: 'aborted', actions: 'recordAbort' },
        deadline: { guard: 'deadlineReached', target: 'timedOut', actions: 'recordTimeout' },
      },
    },
    // The tool call has ended; the ask waits for `resume`, a cancel or its deadline. The
    // caller's abort signal belonged to the tool call, so it no longer applies.
    deferred: {
      on: {
        resume: { target: 'answered', actions: 'recordAnswers' },
        'resume.rejected': { target: 'cancelled', actions: 'recordCancellation' },
        cancel: { target: 'cancelled', actions: 'recordCancellation' },
        deadline: { guard: 'deadlineReached', target: 'timedOut', actions: 'recordTimeout' },
      },
    },
    answered: { type: 'final' },
    cancelled: { type: 'final' },
    timedOut: { type: 'final' },
    aborted: { type: 'final' },
  },
  output: ({ context }) => context.outcome as AskMachineOutcome,
});

export type AskMachine = typeof askMachine;
