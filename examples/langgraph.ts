/**
 * A LangGraph node that needs a person's decision. The provider hands the question elsewhere (a
 * chat thread), so the node stops the graph with an interrupt; later the thread is resumed with
 * the answers, the node runs again from its start, and attaches to the same ask: nobody is asked
 * twice. Use SqliteSaver and `ask-engine/sqlite` to resume in another process.
 *
 * Run (in a clone): node --conditions=ask-engine:source --import tsx examples/langgraph.ts
 * Run (installed): npx tsx node_modules/ask-engine/examples/langgraph.ts
 */
import {
  Annotation,
  Command,
  END,
  INTERRUPT,
  isInterrupted,
  MemorySaver,
  START,
  StateGraph,
} from '@langchain/langgraph';
import { type AskOutcome, createInteractionService, createScriptedProvider } from 'ask-engine';
import { type AskInterrupt, askOrInterrupt } from 'ask-engine/langgraph';

const service = createInteractionService();
const person = createScriptedProvider([{ defer: 'chat-thread-42' }]);
service.registerProvider(person);

const State = Annotation.Root({
  database: Annotation<string | undefined>({ reducer: (_, b) => b, default: () => undefined }),
});
let runs = 0;
const graph = new StateGraph(State)
  .addNode('choose_database', async () => {
    runs++;
    const outcome: AskOutcome = await askOrInterrupt(service, {
      question: 'Which database?',
      options: ['PostgreSQL', 'SQLite'],
    });
    const response = outcome.status === 'answered' ? outcome.answers[0]?.response : undefined;
    return { database: response?.kind === 'selection' ? response.selections[0] : undefined };
  })
  .addEdge(START, 'choose_database')
  .addEdge('choose_database', END)
  .compile({ checkpointer: new MemorySaver() });

const config = { configurable: { thread_id: 'project-7' } };
const paused = await graph.invoke({}, config);
if (!isInterrupted<AskInterrupt>(paused)) throw new Error('expected the graph to stop and wait');
const pause = paused[INTERRUPT][0]?.value;
if (pause === undefined) throw new Error('expected the interrupt to carry the ask');
console.log(`interrupted: ask ${pause.askId}: ${pause.questions[0]?.question}`);

// ... the person answers in the chat thread; the host resumes the thread with the answers.
const answers = [{ questionId: 'q1', response: { kind: 'selection', selections: ['SQLite'] } }];
const final = await graph.invoke(new Command({ resume: answers }), config);
console.log(`database: ${final.database}`);
console.log(`node runs: ${runs}, person asked: ${person.calls.length} time(s)`);
