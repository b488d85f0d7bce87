/** ask-engine/langgraph with the real StateGraph and MemorySaver, in one process. */
import {
  Annotation,
  Command,
  END,
  INTERRUPT,
  interrupt,
  isInterrupted,
  MemorySaver,
  START,
  StateGraph,
} from '@langchain/langgraph';
import {
  type AskOutcome,
  type AskUserQuestionAnswer,
  createInteractionService,
  createScriptedProvider,
  type ScriptStep,
} from 'ask-engine';
import { type AskInterrupt, askInNode, askOrInterrupt } from 'ask-engine/langgraph';
import { describe, expect, it } from 'vitest';

const pick = (questionId: string, ...selections: string[]): AskUserQuestionAnswer => ({
  questionId,
  response: { kind: 'selection', selections },
});

const State = Annotation.Root({
  outcomes: Annotation<AskOutcome[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
  laps: Annotation<number>({ reducer: (_, b) => b, default: () => 0 }),
});

function setUp(steps: ScriptStep[]) {
  const service = createInteractionService();
  const provider = createScriptedProvider(steps);
  service.registerProvider(provider);
  return { service, provider };
}

/** The ask a graph run stopped at. */
function pauseOf(result: unknown): AskInterrupt {
  if (!isInterrupted<AskInterrupt>(result))
    throw new Error('Expected the run to stop at an interrupt.');
  const value = result[INTERRUPT][0]?.value;
  if (value === undefined) throw new Error('Expected the interrupt to carry the ask.');
  return value;
}

const thread = (id: string) => ({ configurable: { thread_id: id } });
const database = { question: 'Which database?', options: ['PostgreSQL', 'SQLite'] };
const cache = { question: 'Which cache?', options: ['Redis', 'None'] };

describe('askInNode', () => {
  it('attaches to the same asks when the node runs again after a resume: nobody is asked twice', async () => {
    const { service, provider } = setUp([
      { answer: [pick('q1', 'SQLite')] },
      { answer: [pick('q1', 'Redis')] },
    ]);
    let runs = 0;
    const graph = new StateGraph(State)
      .addNode('setup', async (_state, config) => {
        runs++;
        const first = await askInNode(service, database, { config });
        const second = await askInNode(service, cache, { config });
        // Some other pause in the same node: LangGraph runs the node from its start on resume.
        interrupt('confirm the plan');
        return { outcomes: [first, second] };
      })
      .addEdge(START, 'setup')
      .addEdge('setup', END)
      .compile({ checkpointer: new MemorySaver() });
    await graph.invoke({}, thread('t1'));
    const final = await graph.invoke(new Command({ resume: 'ok' }), thread('t1'));
    expect(runs).toBe(2);
    expect(provider.calls).toHaveLength(2);
    expect(final.outcomes).toEqual([
      { status: 'answered', answers: [pick('q1', 'SQLite')] },
      { status: 'answered', answers: [pick('q1', 'Redis')] },
    ]);
  });

  it('asks anew when the same node is reached again later in the thread (a loop)', async () => {
    const { service, provider } = setUp([
      { answer: [pick('q1', 'SQLite')] },
      { answer: [pick('q1', 'PostgreSQL')] },
    ]);
    const graph = new StateGraph(State)
      .addNode('ask', async (state) => ({
        outcomes: [await askInNode(service, database)],
        laps: state.laps + 1,
      }))
      .addEdge(START, 'ask')
      .addConditionalEdges('ask', (state) => (state.laps < 2 ? 'ask' : END))
      .compile({ checkpointer: new MemorySaver() });
    const final = await graph.invoke({}, thread('t2'));
    expect(provider.calls).toHaveLength(2);
    expect(
      final.outcomes.map((outcome) => outcome.status === 'answered' && outcome.answers),
    ).toEqual([[pick('q1', 'SQLite')], [pick('q1', 'PostgreSQL')]]);
  });

  it('refuses to ask without a thread id, since the ask could not be found again', async () => {
    const { service, provider } = setUp([]);
    await expect(askInNode(service, database, { config: {} })).rejects.toThrow(/thread_id/);
    expect(provider.calls).toHaveLength(0);
  });
});

describe('askOrInterrupt', () => {
  function deferringGraph(service: ReturnType<typeof setUp>['service']) {
    let runs = 0;
    const graph = new StateGraph(State)
      .addNode('review', async () => {
        runs++;
        return { outcomes: [await askOrInterrupt(service, database)] };
      })
      .addEdge(START, 'review')
      .addEdge('review', END)
      .compile({ checkpointer: new MemorySaver() });
    return { graph, runs: () => runs };
  }

  it('turns a deferred ask into an interrupt and gives the resume answers through service.answer', async () => {
    const { service, provider } = setUp([{ defer: 'chat-1' }]);
    const { graph, runs } = deferringGraph(service);
    const paused = await graph.invoke({}, thread('t3'));
    const value = pauseOf(paused);
    expect(value.questions.map((question) => question.question)).toEqual(['Which database?']);
    expect((await service.get(value.askId))?.state).toBe('deferred');

    const final = await graph.invoke(new Command({ resume: [pick('q1', 'SQLite')] }), thread('t3'));
    expect(runs()).toBe(2);
    expect(provider.calls).toHaveLength(1);
    expect(final.outcomes).toEqual([{ status: 'answered', answers: [pick('q1', 'SQLite')] }]);
    expect((await service.get(value.askId))?.state).toBe('answered');
  });

  it('takes the stored outcome when the answer went in elsewhere and the thread resumes with the ask id', async () => {
    const { service } = setUp([{ defer: 'chat-2' }]);
    const { graph } = deferringGraph(service);
    const { askId } = pauseOf(await graph.invoke({}, thread('t4')));
    await service.answer(askId, [pick('q1', 'PostgreSQL')]);
    const final = await graph.invoke(new Command({ resume: { askId } }), thread('t4'));
    expect(final.outcomes).toEqual([{ status: 'answered', answers: [pick('q1', 'PostgreSQL')] }]);
  });

  it('stops again, saying why, when the resume answers do not fit; the ask stays open for corrected ones', async () => {
    const { service, provider } = setUp([{ defer: 'chat-3' }]);
    const { graph, runs } = deferringGraph(service);
    const { askId } = pauseOf(await graph.invoke({}, thread('t5')));
    const refused = pauseOf(
      await graph.invoke(new Command({ resume: [pick('q1', 'MySQL')] }), thread('t5')),
    );
    expect(refused.askId).toBe(askId);
    expect(refused.error).toMatch(/"q1".*not one of its option titles \("PostgreSQL", "SQLite"\)/);
    // The checkpointer keeps the interrupt value: it never quotes what the person picked.
    expect(refused.error).not.toContain('MySQL');
    expect((await service.get(askId))?.state).toBe('deferred');
    const other = pauseOf(await graph.invoke(new Command({ resume: 'yes' }), thread('t5')));
    expect(other.error).toMatch(/array|answers/i);
    const final = await graph.invoke(new Command({ resume: [pick('q1', 'sqlite')] }), thread('t5'));
    expect(final.outcomes).toEqual([{ status: 'answered', answers: [pick('q1', 'SQLite')] }]);
    expect(runs()).toBe(4);
    expect(provider.calls).toHaveLength(1);
  });

  it('returns an answer at once, without interrupting, when the provider answers', async () => {
    const { service } = setUp([{ answer: [pick('q1', 'SQLite')] }]);
    const { graph } = deferringGraph(service);
    const final = await graph.invoke({}, thread('t6'));
    expect(isInterrupted(final)).toBe(false);
    expect(final.outcomes).toEqual([{ status: 'answered', answers: [pick('q1', 'SQLite')] }]);
  });
});
