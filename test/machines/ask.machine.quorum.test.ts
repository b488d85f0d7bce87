/**
 * Model-based tests of the quorum states: paths generated from the ask machine over a sample of
 * responses (agreeing, disagreeing, vetoing, repeated, from outside `from`) plus deferral,
 * deadline and cancel; at the end of every path the snapshot must obey the quorum rules,
 * checked here without the machine's own guards.
 */
import { getShortestPaths } from '@xstate/graph';
import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import {
  type AskMachineAnswer,
  type AskMachineContext,
  type AskMachineEvent,
  type AskMachineInput,
  askMachine,
} from '../../machines/ask.machine.js';

const TIMEOUT = 1_000;
const pick = (...selections: string[]): AskMachineAnswer[] => [
  { questionId: 'q1', response: { kind: 'selection', selections } },
];
const approve = pick('Approve');
const reject = pick('Reject');
const deny = pick('Deny');

const from = ['ana', 'ben', 'cy'];
const input: AskMachineInput = {
  askId: 'quorum',
  createdAt: 0,
  deadlineAt: TIMEOUT,
  quorum: { required: 2, from, agree: 'same', veto: ['Deny'] },
};

const respond = (by: string, answers: AskMachineAnswer[], at = 10): AskMachineEvent => ({
  type: 'respond',
  by,
  answers,
  at,
});

const events: AskMachineEvent[] = [
  respond('ana', approve),
  respond('ben', approve),
  respond('ben', reject),
  respond('cy', reject),
  respond('cy', deny),
  respond('cy', pick('Later')),
  respond('dan', approve),
  { type: 'provider.deferred', interactionId: 'link-1' },
  { type: 'answer', answers: approve },
  { type: 'deadline', at: TIMEOUT },
  { type: 'cancel', reason: 'user' },
];

/** The state plus what the quorum rules read, so each set of responses is a model state. */
function serializeState(snapshot: { value: unknown; context: AskMachineContext }): string {
  const context = snapshot.context;
  return JSON.stringify([
    snapshot.value,
    (context.responses ?? []).map((response) => [response.by, response.answers]),
    context.refused?.reason,
  ]);
}

function run(machineInput: AskMachineInput, steps: AskMachineEvent[]) {
  const actor = createActor(askMachine, { input: machineInput }).start();
  for (const event of steps) actor.send(event);
  return actor.getSnapshot();
}

const key = (answers: AskMachineAnswer[]) => JSON.stringify(answers);

describe('ask machine: quorum', () => {
  const paths = getShortestPaths(askMachine, {
    events,
    input,
    serializeState: serializeState as never,
    serializeEvent: (event) => JSON.stringify(event),
  });

  it('walks every quorum ending', () => {
    const endings = new Set(
      paths.map((path) => {
        const outcome = path.state.context.outcome;
        if (outcome?.status === 'answered') return outcome.vetoedBy ? 'vetoed' : 'agreed';
        if (outcome?.status === 'cancelled') return `cancelled:${outcome.reason}`;
        return outcome?.status ?? String(path.state.value);
      }),
    );
    for (const ending of [
      'agreed',
      'vetoed',
      'cancelled:no-quorum',
      'cancelled:user',
      'timedOut',
      'deferred',
      'pending',
    ]) {
      expect(endings).toContain(ending);
    }
    expect(paths.length).toBeGreaterThan(20);
  });

  it('holds the quorum rules at the end of every path', () => {
    for (const path of paths) {
      const context = path.state.context;
      const responses = context.responses ?? [];
      const people = responses.map((response) => response.by);
      // Each person counted once, and only people in `from`.
      expect(new Set(people).size).toBe(people.length);
      for (const by of people) expect(from).toContain(by);
      const outcome = context.outcome;
      const largest = Math.max(
        0,
        ...responses.map(
          (response) =>
            responses.filter((other) => key(other.answers) === key(response.answers)).length,
        ),
      );
      if (outcome?.status === 'answered') {
        // A plain `answer` never decides a quorum ask.
        expect(outcome.responses).toEqual(responses);
        if (outcome.vetoedBy !== undefined) {
          expect(responses.at(-1)).toMatchObject({ by: outcome.vetoedBy, answers: deny });
          expect(outcome.answers).toEqual(deny);
        } else {
          expect(largest).toBeGreaterThanOrEqual(2);
          expect(outcome.answers).toEqual(responses.at(-1)?.answers);
        }
      } else if (outcome?.status === 'cancelled' && outcome.reason === 'no-quorum') {
        const remaining = from.filter((id) => !people.includes(id)).length;
        expect(largest + remaining).toBeLessThan(2);
        expect(outcome.responses).toEqual(responses);
      } else if (outcome?.status === 'timedOut') {
        // Partial responses stay in the history and decide nothing.
        expect(largest).toBeLessThan(2);
      }
      if (path.state.status !== 'done') {
        expect(largest).toBeLessThan(2);
        expect(responses.some((response) => key(response.answers) === key(deny))).toBe(false);
      }
    }
  });

  it('refuses the same person twice and keeps the first response', () => {
    const snapshot = run(input, [respond('ana', approve), respond('ana', approve, 20)]);
    expect(snapshot.value).toBe('pending');
    expect(snapshot.context.responses).toEqual([{ by: 'ana', answers: approve, at: 10 }]);
    expect(snapshot.context.refused).toEqual({ by: 'ana', reason: 'duplicate', at: 20 });
  });

  it('refuses someone not in from', () => {
    const snapshot = run(input, [respond('mallory', approve)]);
    expect(snapshot.context.responses).toEqual([]);
    expect(snapshot.context.refused).toEqual({ by: 'mallory', reason: 'not-allowed', at: 10 });
  });

  it('ends answered when two agree, with every response, in deferred too', () => {
    const snapshot = run(input, [
      { type: 'provider.deferred', interactionId: 'link-1' },
      respond('ana', approve, 1),
      respond('cy', reject, 2),
      respond('ben', approve, 3),
    ]);
    expect(snapshot.value).toBe('answered');
    expect(snapshot.context.outcome).toEqual({
      status: 'answered',
      answers: approve,
      responses: [
        { by: 'ana', answers: approve, at: 1 },
        { by: 'cy', answers: reject, at: 2 },
        { by: 'ben', answers: approve, at: 3 },
      ],
    });
  });

  it('agrees on the chosen options, not on comments or selection order', () => {
    const withComment: AskMachineAnswer[] = [
      {
        questionId: 'q1',
        response: { kind: 'selection', selections: ['B', 'A'], comment: 'fine' },
      },
    ];
    const snapshot = run(input, [respond('ana', pick('A', 'B')), respond('ben', withComment)]);
    expect(snapshot.context.outcome?.status).toBe('answered');
  });

  it('ends with a veto at once, naming who vetoed', () => {
    const snapshot = run(input, [respond('ana', approve), respond('cy', deny, 11)]);
    expect(snapshot.context.outcome).toMatchObject({
      status: 'answered',
      answers: deny,
      vetoedBy: 'cy',
    });
  });

  it('ends no-quorum as soon as agreement is out of reach', () => {
    const threeOfThree: AskMachineInput = {
      ...input,
      quorum: { required: 3, from, agree: 'same' },
    };
    const snapshot = run(threeOfThree, [respond('ana', approve), respond('ben', reject)]);
    expect(snapshot.context.outcome).toMatchObject({ status: 'cancelled', reason: 'no-quorum' });
  });

  it("counts any M responses with agree: 'any', and never ends no-quorum without from", () => {
    const any = run({ ...input, quorum: { required: 2, agree: 'any' } }, [
      respond('x', approve),
      respond('y', reject),
    ]);
    expect(any.context.outcome).toMatchObject({ status: 'answered', answers: reject });
    const open = run({ ...input, quorum: { required: 2, agree: 'same' } }, [
      respond('x', approve),
      respond('y', reject),
      respond('z', pick('Later')),
    ]);
    expect(open.value).toBe('pending');
    expect(open.context.responses).toHaveLength(3);
  });

  it('times out with 1 of 2, keeping the response in the history', () => {
    const snapshot = run(input, [respond('ana', approve), { type: 'deadline', at: TIMEOUT }]);
    expect(snapshot.context.outcome).toEqual({ status: 'timedOut', deadlineAt: TIMEOUT });
    expect(snapshot.context.responses).toEqual([{ by: 'ana', answers: approve, at: 10 }]);
  });

  it('ignores a plain answer on a quorum ask, and refuses responses without a quorum', () => {
    expect(run(input, [{ type: 'answer', answers: approve }]).value).toBe('pending');
    const single = run({ askId: 'one', createdAt: 0 }, [respond('ana', approve)]);
    expect(single.value).toBe('pending');
    expect(single.context.refused?.reason).toBe('not-a-quorum-ask');
  });
});
