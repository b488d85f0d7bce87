/**
 * The ask machine run as pure logic: snapshots in, snapshots out, through XState's own
 * `getInitialSnapshot` / `transition` / `restoreSnapshot` with one actor scope shared by every
 * ask of the process. No actor per ask: an ask is its snapshot, kept in the store.
 */
import type { ActorScope, AnyActorRef, SnapshotFrom, StateValueFrom } from 'xstate';
import {
  type AskMachineEvent,
  type AskMachineInput,
  askMachine,
} from '../../machines/ask.machine.js';
import type { PersistedAskSnapshot } from '../stores/ask-store.js';

export type AskSnapshotState = SnapshotFrom<typeof askMachine>;

// The machine has no children, timers or emitted events: the scope only has to exist. Its
// system swallows inspection events; the engine emits its own, per ask.
const noop = () => undefined;
const system = {
  _sendInspectionEvent: noop,
  _bookId: () => 'ask',
  _register: noop,
  _unregister: noop,
  _set: noop,
  get: noop,
  getAll: () => ({}),
  inspect: noop,
  _relay: noop,
  scheduler: { schedule: noop, cancel: noop, cancelAll: noop },
  getSnapshot: () => ({ _scheduledEvents: {} }),
  start: noop,
  _clock: { setTimeout: noop, clearTimeout: noop },
  _logger: noop,
};
const self = {
  id: 'ask',
  sessionId: 'ask',
  logic: askMachine,
  system,
  send: noop,
  getSnapshot: noop,
} as unknown as AnyActorRef;
const scope = {
  self,
  id: 'ask',
  sessionId: 'ask',
  logger: noop,
  defer: noop,
  system,
  stopChild: noop,
  emit: noop,
  // Every action of the machine is an `assign`, resolved by the transition itself.
  actionExecutor: noop,
} as unknown as ActorScope<AskSnapshotState, AskMachineEvent>;

/** The snapshot of a new ask, in the machine's initial state. */
export function initialAskSnapshot(input: AskMachineInput): AskSnapshotState {
  return askMachine.getInitialSnapshot(scope as never, input) as unknown as AskSnapshotState;
}

/** The next snapshot, or `undefined` when the machine does not accept the event in this state. */
export function applyAskEvent(
  snapshot: AskSnapshotState,
  event: AskMachineEvent,
): AskSnapshotState | undefined {
  if (!snapshot.can(event)) return undefined;
  return askMachine.transition(
    snapshot as never,
    event,
    scope as never,
  ) as unknown as AskSnapshotState;
}

export function persistAskSnapshot(snapshot: AskSnapshotState): PersistedAskSnapshot {
  return askMachine.getPersistedSnapshot(snapshot as never) as unknown as PersistedAskSnapshot;
}

/** A live snapshot from a persisted one that has passed `checkStoredAsk` already. */
export function restoreAskSnapshot(persisted: PersistedAskSnapshot): AskSnapshotState {
  return askMachine.restoreSnapshot(
    persisted as never,
    scope as never,
  ) as unknown as AskSnapshotState;
}

/** The machine's state value; for people, queries and the store's `state` column. */
export function stateOf(snapshot: AskSnapshotState): AskMachineStateValue {
  return snapshot.value as AskMachineStateValue;
}

export type AskMachineStateValue = StateValueFrom<typeof askMachine>;

export { askMachine };
