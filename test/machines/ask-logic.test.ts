/** The engine runs the ask machine as pure logic; its shortcuts must agree with XState's own calls. */
import { getShortestPaths } from '@xstate/graph';
import { describe, expect, it } from 'vitest';
import { type AskMachineEvent, askMachine } from '../../machines/ask.machine.js';
import {
  applyAskEvent,
  initialAskSnapshot,
  initialAskSnapshotByTransition,
  persistAskSnapshot,
  restoreAskSnapshot,
} from '../../src/engine/ask-logic.js';

const input = { askId: 'a1', createdAt: 5, deadlineAt: 100, toolCallId: 'call-1' };
const answers = [{ questionId: 'q1', response: { kind: 'freeform' as const, text: 'hi' } }];
const events: AskMachineEvent[] = [
  { type: 'provider.progress', answers },
  { type: 'provider.answered', answers },
  { type: 'provider.deferred', interactionId: 'chat-1', message: 'in chat' },
  { type: 'provider.failed', reason: 'provider-error', message: 'boom' },
  { type: 'abort', cause: { name: 'Error', message: 'gone' }, message: 'gone' },
  { type: 'cancel', reason: 'user' },
  { type: 'answer', answers },
  { type: 'resume', answers },
  { type: 'deadline', at: 100 },
];

function everyState() {
  return getShortestPaths(askMachine, {
    events,
    input,
    serializeState: (snapshot) => JSON.stringify(snapshot.value),
  }).map((path) => path.steps.map((step) => step.event));
}

/** Replays a path with the engine's functions. */
function replay(steps: AskMachineEvent[]) {
  let snapshot = initialAskSnapshot(input);
  for (const event of steps) {
    if ((event.type as string) === 'xstate.init') continue;
    snapshot = applyAskEvent(snapshot, event) ?? snapshot;
  }
  return snapshot;
}

describe('the ask machine as the engine runs it', () => {
  it('resolves the same start snapshot as the machine’s initial transition', () => {
    const resolved = initialAskSnapshot(input);
    const initial = initialAskSnapshotByTransition(input);
    expect(resolved.value).toEqual(initial.value);
    expect(resolved.context).toEqual(initial.context);
    expect(resolved.status).toBe(initial.status);
    expect([...resolved.tags]).toEqual([...initial.tags]);
  });

  it('persists every reachable snapshot exactly as XState does', () => {
    for (const steps of everyState()) {
      const snapshot = replay(steps);
      expect(JSON.parse(JSON.stringify(persistAskSnapshot(snapshot)))).toEqual(
        JSON.parse(JSON.stringify(askMachine.getPersistedSnapshot(snapshot as never))),
      );
    }
  });

  it('restores a persisted snapshot that moves on like the original', () => {
    for (const steps of everyState()) {
      const snapshot = replay(steps);
      const restored = restoreAskSnapshot(JSON.parse(JSON.stringify(persistAskSnapshot(snapshot))));
      expect(restored.value).toEqual(snapshot.value);
      for (const event of events) {
        expect(applyAskEvent(restored, event)?.value).toEqual(
          applyAskEvent(snapshot, event)?.value,
        );
      }
    }
  });

  it('refuses an event the state does not take, with no new snapshot', () => {
    const answered = applyAskEvent(initialAskSnapshot(input), {
      type: 'provider.answered',
      answers,
    })!;
    expect(answered.status).toBe('done');
    expect(applyAskEvent(answered, { type: 'answer', answers })).toBeUndefined();
    expect(applyAskEvent(initialAskSnapshot(input), { type: 'resume', answers })).toBeUndefined();
    expect(applyAskEvent(initialAskSnapshot(input), { type: 'deadline', at: 99 })).toBeUndefined();
  });

  it('forgets progress once the ask leaves pending', () => {
    const pending = applyAskEvent(initialAskSnapshot(input), {
      type: 'provider.progress',
      answers,
    })!;
    expect(pending.context.progress).toEqual(answers);
    const deferred = applyAskEvent(pending, {
      type: 'provider.deferred',
      interactionId: 'chat-1',
    })!;
    expect(deferred.context.progress).toEqual([]);
  });
});
