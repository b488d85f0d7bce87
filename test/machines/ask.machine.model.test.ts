/**
 * Model-based tests: paths generated from the ask machine reach every state and take every
 * transition; each path is replayed against the real service (a hand-driven provider, a
 * simulated clock) and the service must be in the state the model says after every step.
 */
import { getAdjacencyMap, getShortestPaths } from '@xstate/graph';
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { type AskMachineEvent, askMachine } from '../../machines/ask.machine.js';
import {
  type AskOutcome,
  type AskProviderContext,
  type AskUserQuestionAnswer,
  createInteractionService,
  type ProviderOutcome,
} from '../../src/index.js';

const TIMEOUT = 1_000;
const answers: AskUserQuestionAnswer[] = [
  { questionId: 'q1', response: { kind: 'selection', selections: ['Yes'] } },
];
const progress: AskUserQuestionAnswer[] = [];
const cause = new Error('host is shutting down');

// One sample of every event the machine knows, including a deadline that is not due yet.
const events: AskMachineEvent[] = [
  { type: 'provider.progress', answers: progress },
  { type: 'provider.answered', answers },
  { type: 'provider.cancelled', reason: 'user' },
  { type: 'provider.cancelled', reason: 'unavailable', message: 'no terminal' },
  { type: 'provider.deferred', interactionId: 'chat-42' },
  { type: 'provider.deferred', interactionId: '' },
  { type: 'provider.failed', reason: 'invalid-answer', message: 'bad' },
  { type: 'provider.failed', reason: 'provider-error', message: 'boom' },
  { type: 'abort', cause, message: cause.message },
  { type: 'cancel', reason: 'user' },
  { type: 'resume', answers },
  { type: 'resume.rejected', message: 'Question "q1" has no answer' },
  { type: 'deadline', at: TIMEOUT - 1 },
  { type: 'deadline', at: TIMEOUT },
];
const input = {
  askId: 'model',
  request: { questions: [{ id: 'q1' }] },
  createdAt: 0,
  deadlineAt: TIMEOUT,
};
const traversal = {
  events,
  input,
  serializeState: (snapshot: { value: unknown }) => JSON.stringify(snapshot.value),
  serializeEvent: (event: AskMachineEvent) => JSON.stringify(event),
};

type Path = ReturnType<typeof getShortestPaths<typeof askMachine>>[number];

/** Every transition that changes state, plus progress (a self-transition that records). */
function transitionPaths(): { name: string; path: Path['steps'] }[] {
  const shortest = getShortestPaths(askMachine, traversal);
  const toState = new Map(shortest.map((path) => [JSON.stringify(path.state.value), path.steps]));
  const adjacency = getAdjacencyMap(askMachine, traversal);
  const result: { name: string; path: Path['steps'] }[] = [];
  for (const [stateKey, { state, transitions }] of Object.entries(adjacency)) {
    const prefix = toState.get(stateKey) ?? [];
    for (const { event, state: next } of Object.values(transitions) as Path['steps']) {
      const changes = JSON.stringify(next.value) !== stateKey;
      const recordsProgress = event.type === 'provider.progress' && stateKey === '"pending"';
      if (!changes && !recordsProgress) continue;
      result.push({
        name: `${String(state.value)} --${event.type}${'reason' in event ? `(${event.reason})` : ''}--> ${String(next.value)}`,
        path: [...prefix, { event, state: next }],
      });
    }
  }
  return result;
}

/** A provider the test drives by hand: it hands out the pending call. */
function manualProvider() {
  const calls: {
    ctx: AskProviderContext;
    resolve: (outcome: ProviderOutcome | unknown) => void;
    reject: (error: unknown) => void;
  }[] = [];
  return {
    calls,
    ask: (_request: unknown, ctx: AskProviderContext) =>
      new Promise<ProviderOutcome>((resolve, reject) => {
        calls.push({ ctx, resolve: resolve as (value: unknown) => void, reject });
      }),
  };
}

async function replay(steps: Path['steps'], hibernate: boolean) {
  const clock = new SimulatedClock();
  let actorsCreated = 0;
  const service = createInteractionService({
    clock,
    // Hibernating: every ask releases its actor as soon as the clock moves, so each step
    // below meets a hibernated ask and must restore it.
    hibernateAfterMs: hibernate ? 0 : Number.POSITIVE_INFINITY,
    inspect: (event) => {
      if (event.type === '@xstate.actor') actorsCreated++;
    },
  });
  const provider = manualProvider();
  service.registerProvider(provider);
  const controller = new AbortController();
  const handle = service.start(
    { question: 'Ship it?', options: ['Yes', 'No'] },
    { signal: controller.signal, timeoutMs: TIMEOUT },
  );
  await Promise.resolve(); // the provider is called on the next microtask
  let interactionId = '';
  let resumed: Promise<AskOutcome> | undefined;
  for (const { event, state } of steps) {
    if (hibernate) clock.increment(0);
    const call = provider.calls[0];
    switch (event.type) {
      case 'provider.progress':
        call?.ctx.reportProgress([]);
        break;
      case 'provider.answered':
        call?.resolve({
          status: 'answered',
          answers: [{ questionId: 'q1', response: { kind: 'selection', selections: ['yes'] } }],
        });
        break;
      case 'provider.cancelled':
        call?.resolve({ status: 'cancelled', reason: event.reason });
        break;
      case 'provider.deferred':
        interactionId = `${event.interactionId}-${handle.id}`;
        call?.resolve({ status: 'deferred', interactionId });
        break;
      case 'provider.failed':
        if (event.reason === 'provider-error') call?.reject(new Error('boom'));
        else
          call?.resolve({
            status: 'answered',
            answers: [{ questionId: 'q1', response: { kind: 'selection', selections: ['Maybe'] } }],
          });
        break;
      case 'abort':
        controller.abort(cause);
        break;
      case 'cancel':
        handle.cancel('user');
        break;
      case 'resume':
        resumed = service.resume(interactionId, answers);
        break;
      case 'resume.rejected':
        resumed = service.resume(interactionId, []);
        break;
      case 'deadline':
        clock.set(event.at);
        break;
    }
    await new Promise((resolve) => setImmediate(resolve));
    expect(handle.getSnapshot().state).toBe(state.value);
  }
  return { handle, resumed, provider, actorsCreated };
}

describe('ask machine, model-based', () => {
  const cases = transitionPaths();

  it('the generated paths reach every state of the machine', () => {
    const reached = new Set(
      cases.flatMap(({ path }) => path.map((step) => String(step.state.value))),
    );
    expect([...reached].sort()).toEqual(
      ['aborted', 'answered', 'cancelled', 'deferred', 'pending', 'timedOut'].sort(),
    );
  });

  it('the generated paths take every transition the machine declares', () => {
    const declared = Object.entries(askMachine.root.states).flatMap(([name, node]) =>
      [...node.transitions.entries()].map(([type]) => `${name}:${type}`),
    );
    const taken = new Set(
      cases.map(({ path }) => {
        const last = path[path.length - 1]!;
        const before = path.length > 1 ? String(path[path.length - 2]!.state.value) : 'pending';
        return `${before}:${last.event.type}`;
      }),
    );
    expect(declared.filter((transition) => !taken.has(transition))).toEqual([]);
  });

  for (const [mode, hibernate] of [
    ['live', false],
    ['hibernated', true],
  ] as const)
    for (const { name, path } of cases) {
      it(`replays ${name} against the service (${mode} actor)`, async () => {
        const { handle, resumed, actorsCreated } = await replay(path, hibernate);
        // Hibernated, every event restores a fresh actor from the persisted snapshot.
        const events = path.filter((step) => (step.event.type as string) !== 'xstate.init').length;
        expect(actorsCreated).toBe(hibernate ? events + 1 : 1);
        const final = path[path.length - 1]!.state;
        const status = String(final.value);
        if (status === 'pending') return;
        // The tool call ends at `deferred`; the ask itself lives on to its final state.
        const wentDeferred = path.some((step) => step.state.value === 'deferred');
        expect((await handle.outcome).status).toBe(wentDeferred ? 'deferred' : status);
        if (resumed) expect((await resumed).status).toBe(status);
        const outcome = handle.getSnapshot().outcome;
        expect(outcome?.status).toBe(status);
        if (status === 'aborted') expect(outcome).toMatchObject({ cause, message: cause.message });
        if (status === 'timedOut')
          expect(outcome).toEqual({ status: 'timedOut', deadlineAt: TIMEOUT });
      });
    }
});
