/**
 * The ask machine run through XState's own `getInitialSnapshot` / `transition` /
 * `restoreSnapshot`, with one actor scope shared by every ask of the process. The engine's hot
 * path steps the compiled table instead (ask-table.ts); this is what the inspector is shown
 * (`restoreAskSnapshot`) and the oracle the table is tested against.
 */
import { type ActorScope, createActor, type SnapshotFrom } from 'xstate';
import {
  type AskMachineEvent,
  type AskMachineInput,
  askMachine,
  createAskContext,
} from '../../machines/ask.machine.js';
import type { PersistedAskSnapshot } from '../stores/ask-store.js';
import type { PersistedAskState } from './ask-table.js';

export type { PersistedAskState } from './ask-table.js';

export type AskSnapshotState = SnapshotFrom<typeof askMachine>;

// The machine has no children, timers or emitted events: the scope only has to exist. Built the
// way XState builds its own inert scope (for its `getInitialSnapshot` / `transition` helpers),
// from public API only: a created, never started actor lends its self and system, and every
// effect is a no-op (every action of the machine is an `assign`, resolved by the transition
// itself). One scope for every ask of the process: the helpers build an actor per call.
const noop = () => undefined;
const self = createActor(askMachine, { input: { askId: 'ask', createdAt: 0 } });
const scope: ActorScope<AskSnapshotState, AskMachineEvent> = {
  self,
  id: 'ask',
  sessionId: self.sessionId,
  logger: noop,
  defer: noop,
  system: self.system,
  stopChild: noop,
  emit: noop,
  actionExecutor: noop,
};

const initialState = askMachine.config.initial as string;

/**
 * The snapshot of a new ask, in the machine's initial state. Resolved from the machine's own
 * initial state and context factory rather than by running the initial transition: the initial
 * state has no entry actions, and resolving costs a third of the initial transition
 * (test/machines/ask-logic.test.ts pins that both give the same snapshot).
 */
export function initialAskSnapshot(input: AskMachineInput): AskSnapshotState {
  return askMachine.resolveState({
    value: initialState,
    context: createAskContext(input),
  }) as unknown as AskSnapshotState;
}

/** The initial snapshot as XState's own initial transition builds it (for the test above). */
export function initialAskSnapshotByTransition(input: AskMachineInput): AskSnapshotState {
  return askMachine.getInitialSnapshot(scope as never, input) as unknown as AskSnapshotState;
}

/**
 * The next snapshot, or `undefined` when the machine does not accept the event in this state
 * (XState hands back the very same snapshot when no transition is enabled).
 */
export function applyAskEvent(
  snapshot: AskSnapshotState,
  event: AskMachineEvent,
): AskSnapshotState | undefined {
  const next = askMachine.transition(
    snapshot as never,
    event,
    scope as never,
  ) as unknown as AskSnapshotState;
  return next === snapshot ? undefined : next;
}

/**
 * The JSON form of a snapshot, as `machine.getPersistedSnapshot` gives it for this machine,
 * which has no children and no history states. XState's own walks the context for actor
 * references, and this runs twice per ask (test/machines/ask-logic.test.ts pins that both
 * agree in every state).
 */
export function persistAskSnapshot(snapshot: AskSnapshotState): PersistedAskState {
  const persisted: Record<string, unknown> = {
    status: snapshot.status,
    value: snapshot.value,
    historyValue: EMPTY,
    context: snapshot.context,
    children: EMPTY,
  };
  // Only present when set, as JSON would have it.
  if (snapshot.output !== undefined) persisted.output = snapshot.output;
  if (snapshot.error !== undefined) persisted.error = snapshot.error;
  return persisted as PersistedAskState;
}

const EMPTY = Object.freeze({});

/** A live snapshot from a persisted one that has passed `checkStoredAsk` already. */
export function restoreAskSnapshot(persisted: PersistedAskSnapshot): AskSnapshotState {
  return askMachine.restoreSnapshot(
    persisted as never,
    scope as never,
  ) as unknown as AskSnapshotState;
}
