/**
 * The compiled transition table (src/engine/ask-table.ts) against XState, the oracle: every
 * model-based path through the machine, single-answer and quorum alike, replayed through both
 * from the same start, must give the same state, status, context and output after every step,
 * and the same refusals (an event the state does not take). The table is built from the machine
 * itself, so this is what keeps "compiled" from drifting into "rewritten".
 */
import { getShortestPaths } from '@xstate/graph';
import { describe, expect, it } from 'vitest';
import { assign, setup } from 'xstate';
import {
  type AskMachineAnswer,
  type AskMachineContext,
  type AskMachineEvent,
  type AskMachineInput,
  askMachine,
} from '../../machines/ask.machine.js';
import {
  applyAskEvent,
  initialAskSnapshot,
  persistAskSnapshot,
  restoreAskSnapshot,
} from '../../src/engine/ask-logic.js';
import {
  type CompilableMachine,
  compileAskTable,
  deliversIn,
  initialAskState,
  stepAsk,
} from '../../src/engine/ask-table.js';

const pick = (title: string): AskMachineAnswer[] => [
  { questionId: 'q1', response: { kind: 'selection', selections: [title] } },
];
const text = [{ questionId: 'q1', response: { kind: 'freeform' as const, text: 'hi' } }];
const respond = (by: string, title: string): AskMachineEvent => ({
  type: 'respond',
  by,
  answers: pick(title),
  at: 10,
});

const single: AskMachineInput = { askId: 'a1', createdAt: 5, deadlineAt: 100, toolCallId: 'c' };
const quorum: AskMachineInput = {
  askId: 'q1',
  createdAt: 5,
  deadlineAt: 100,
  redact: true,
  quorum: { required: 2, from: ['ana', 'ben', 'cy'], agree: 'same', veto: ['Deny'] },
};
const anyTwo: AskMachineInput = {
  askId: 'q2',
  createdAt: 5,
  quorum: { required: 2, agree: 'any' },
};

const events: AskMachineEvent[] = [
  { type: 'provider.progress', answers: text },
  { type: 'provider.answered', answers: text, answeredBy: { recipient: 'ana' } },
  { type: 'provider.deferred', interactionId: 'chat-1', message: 'in chat' },
  { type: 'provider.deferred', interactionId: 'chat-2' },
  {
    type: 'provider.deferred',
    interactionId: 'routed',
    quorum: { required: 2, from: ['ana', 'ben'], agree: 'same' },
  },
  { type: 'provider.failed', reason: 'provider-error', message: 'boom' },
  { type: 'provider.cancelled', reason: 'unavailable' },
  { type: 'abort', cause: { name: 'Error', message: 'gone' }, message: 'gone' },
  { type: 'cancel', reason: 'user', message: 'no' },
  { type: 'answer', answers: text },
  { type: 'resume', answers: text, answeredBy: { recipient: 'bob', channel: 'slack' } },
  { type: 'deadline', at: 99 },
  { type: 'deadline', at: 100 },
  respond('ana', 'Approve'),
  respond('ben', 'Approve'),
  respond('ben', 'Reject'),
  respond('cy', 'Deny'),
  respond('cy', 'Reject'),
  respond('dan', 'Approve'),
];

/** State plus what the guards read, so each set of responses is its own model state. */
function serializeState(snapshot: { value: unknown; context: AskMachineContext }): string {
  const { context } = snapshot;
  return JSON.stringify([
    snapshot.value,
    (context.responses ?? []).map((response) => [response.by, response.answers]),
    context.refused?.reason,
    context.progress.length,
  ]);
}

const plain = (value: unknown) => JSON.parse(JSON.stringify(value));

function pathsFrom(input: AskMachineInput): AskMachineEvent[][] {
  return getShortestPaths(askMachine, {
    events,
    input,
    serializeState: serializeState as never,
    serializeEvent: (event) => JSON.stringify(event),
  }).map((path) =>
    path.steps
      .map((step) => step.event as AskMachineEvent)
      .filter((event) => (event.type as string) !== 'xstate.init'),
  );
}

describe('the compiled ask table', () => {
  it.each([
    ['a single-answer ask', single],
    ['a 2-of-3 quorum ask with a veto', quorum],
    ['a 2-of-anyone quorum ask', anyTwo],
  ])('steps like XState along every model-based path of %s', (_name, input) => {
    const paths = pathsFrom(input);
    expect(paths.length).toBeGreaterThan(10);
    let compared = 0;
    for (const path of paths) {
      let oracle = initialAskSnapshot(input);
      let state = initialAskState(input);
      expect(plain(state)).toEqual(plain(persistAskSnapshot(oracle)));
      for (const event of path) {
        // At each step, every event: taken or refused alike, to the same snapshot.
        for (const probe of events) {
          const expected = applyAskEvent(oracle, probe);
          const actual = stepAsk(state, probe);
          expect(actual === undefined, `${JSON.stringify(path)} then ${probe.type}`).toBe(
            expected === undefined,
          );
          if (expected !== undefined) {
            expect(plain(actual)).toEqual(plain(persistAskSnapshot(expected)));
            expect(deliversIn(actual!.value)).toBe(expected.hasTag('delivering'));
            compared++;
          }
        }
        oracle = applyAskEvent(oracle, event) ?? oracle;
        state = stepAsk(state, event) ?? state;
      }
      // And a snapshot the table made restores in XState to the same state.
      expect(plain(persistAskSnapshot(restoreAskSnapshot(plain(state))))).toEqual(plain(state));
    }
    expect(compared).toBeGreaterThan(100);
  });

  it('probes every event type the machine takes, read from the machine', () => {
    const states = askMachine.root.states as unknown as Record<
      string,
      { transitions: Map<string, unknown> }
    >;
    const taken = new Set(Object.values(states).flatMap((node) => [...node.transitions.keys()]));
    expect(taken.size).toBeGreaterThan(5);
    expect(new Set(events.map((event) => event.type))).toEqual(taken);
  });

  it('takes nothing in a final state', () => {
    const answered = stepAsk(initialAskState(single), { type: 'answer', answers: text })!;
    expect(answered.status).toBe('done');
    for (const event of events) expect(stepAsk(answered, event)).toBeUndefined();
  });
});

describe('what the table cannot run as XState would fails at load', () => {
  const mark = setup({
    types: { context: {} as { n: number } },
    actions: { mark: assign({ n: 1 }) },
  });
  const compile = (machine: unknown) => () =>
    compileAskTable(machine as unknown as CompilableMachine);

  it('compiles the ask machine', () => {
    expect(compile(askMachine)).not.toThrow();
  });

  it('refuses child states, a wildcard event, a root transition and entry actions on the initial state', () => {
    const child = mark.createMachine({
      context: { n: 0 },
      initial: 'open',
      states: { open: { initial: 'pending', states: { pending: {} } } },
    });
    expect(compile(child)).toThrow(/state open is a compound state with child states/);
    const wildcard = mark.createMachine({
      context: { n: 0 },
      initial: 'pending',
      states: { pending: { on: { '*': 'done' } }, done: { type: 'final' } },
    });
    expect(compile(wildcard)).toThrow(/state pending has the wildcard "\*"/);
    const partial = mark.createMachine({
      context: { n: 0 },
      initial: 'pending',
      states: { pending: { on: { 'provider.*': 'done' } }, done: { type: 'final' } },
    });
    expect(compile(partial)).toThrow(/wildcard "provider\.\*"/);
    const root = mark.createMachine({
      context: { n: 0 },
      initial: 'pending',
      on: { cancel: '.done' },
      states: { pending: {}, done: { type: 'final' } },
    });
    expect(compile(root)).toThrow(/the machine's root has some \(cancel\)/);
    const entry = mark.createMachine({
      context: { n: 0 },
      initial: 'pending',
      states: { pending: { entry: 'mark' } },
    });
    expect(compile(entry)).toThrow(/the initial state pending has some/);
  });
});
