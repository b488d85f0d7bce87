/**
 * Inspection without actors: asks are snapshots applied with pure transitions, so the engine
 * emits XState's inspection events itself (`@xstate.actor` with the machine, `@xstate.event`,
 * `@xstate.snapshot`), and @statelyai/inspect shows every ask as an actor named by its id.
 */
import type { AnyActorRef, Observer, InspectionEvent as XStateInspectionEvent } from 'xstate';
import type { AskMachineEvent } from '../../machines/ask.machine.js';
import { askMachine } from '../../machines/ask.machine.js';
import type { AskSnapshotState } from './ask-logic.js';
import { redacts } from './ask-write.js';
import { redactInspection } from './redact.js';

/**
 * XState's inspection event, as the service emits it for every ask (`@xstate.actor`,
 * `@xstate.event`, `@xstate.snapshot`) to the `inspect` option; answers read `'[redacted]'` when
 * the service redacts.
 */
export type InspectionEvent = XStateInspectionEvent;

/** The `inspect` option of the service: an observer, or a function, of every inspection event. */
export type Inspect = Observer<InspectionEvent> | ((event: InspectionEvent) => void);

/** Emits the inspection events of every ask of one service; a no-op without an inspector. */
export class AskInspection {
  readonly #next: (event: InspectionEvent) => void;
  readonly #redact: boolean;

  constructor(inspect: Inspect, redact: boolean) {
    this.#next =
      typeof inspect === 'function' ? inspect : (event: InspectionEvent) => inspect.next?.(event);
    this.#redact = redact;
  }

  /** The stand-in actor of one ask: what inspectors read from an actor reference. */
  actorOf(askId: string, current: () => AskSnapshotState): AnyActorRef {
    const ref = {
      id: askId,
      sessionId: askId,
      logic: askMachine,
      src: askMachine,
      _parent: undefined,
      getSnapshot: current,
    };
    const actorRef = ref as unknown as AnyActorRef;
    this.#send({ type: '@xstate.actor', actorRef, rootId: askId }, current());
    return actorRef;
  }

  transition(actorRef: AnyActorRef, event: AskMachineEvent, snapshot: AskSnapshotState): void {
    this.#send(
      { type: '@xstate.event', actorRef, rootId: actorRef.sessionId, sourceRef: undefined, event },
      snapshot,
    );
    this.#send(
      {
        type: '@xstate.snapshot',
        actorRef,
        rootId: actorRef.sessionId,
        event,
        snapshot: snapshot as never,
      },
      snapshot,
    );
  }

  /** A snapshot another service wrote, taken over here. */
  changed(actorRef: AnyActorRef, snapshot: AskSnapshotState): void {
    this.#send(
      {
        type: '@xstate.snapshot',
        actorRef,
        rootId: actorRef.sessionId,
        event: { type: 'xstate.store.changed' },
        snapshot,
      },
      snapshot,
    );
  }

  /**
   * Redacted by the ask's own flag, as its audit events are (`redacts`), or the service's: a
   * service without `redact` that restores or takes over a redacting ask shows its inspector
   * no more than its audit.
   */
  #send(event: unknown, ask: AskSnapshotState): void {
    const redact = this.#redact || redacts(ask);
    // An inspector's exception is its own; it never breaks an ask.
    try {
      this.#next(redact ? redactInspection(event as InspectionEvent) : (event as InspectionEvent));
    } catch (error) {
      queueMicrotask(() => {
        throw error;
      });
    }
  }
}
