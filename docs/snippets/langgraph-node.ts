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
import {
  type AskUserQuestionAnswer,
  createInteractionService,
  createScriptedProvider,
} from 'ask-engine';
import { askOrInterrupt } from 'ask-engine/langgraph';

const service = createInteractionService(); // give it a shared store when processes resume
// A chat bridge: the question goes to a thread, the graph pauses until someone replies.
service.registerProvider(createScriptedProvider([{ defer: 'chat-thread-7' }]));

const State = Annotation.Root({ database: Annotation<string | undefined>() });
const app = new StateGraph(State)
  .addNode('choose_database', async () => {
    const outcome = await askOrInterrupt(service, {
      question: 'Which database?',
      options: ['PostgreSQL', 'SQLite'],
    });
    const response = outcome.status === 'answered' ? outcome.answers[0]?.response : undefined;
    return { database: response?.kind === 'selection' ? response.selections[0] : undefined };
  })
  .addEdge(START, 'choose_database')
  .addEdge('choose_database', END)
  .compile({ checkpointer: new MemorySaver() });

const thread = { configurable: { thread_id: 'project-7' } };
const paused = await app.invoke({}, thread);
if (isInterrupted(paused)) console.log(paused[INTERRUPT][0]?.value); // { askId, questions }
// Later, in any process sharing the checkpointer and the store, with the person's answers:
const answers: AskUserQuestionAnswer[] = [
  { questionId: 'q1', response: { kind: 'selection', selections: ['SQLite'] } },
];
const done = await app.invoke(new Command({ resume: answers }), thread);
console.log(done.database); // SQLite
await service.close();
