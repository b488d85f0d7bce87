import {
  type AskProvider,
  type AskUserQuestionAnswer,
  createInteractionService,
  createMemoryAskStore,
} from 'ask-engine';

const store = createMemoryAskStore(); // or SQLite, or PostgreSQL: the same contract
const worker = createInteractionService({ store });
// A chat bridge: posts the question to a thread and ends the tool call; the reply comes later.
const chatProvider: AskProvider = {
  async ask(request) {
    console.log(`posted to thread-42: ${request.questions[0]?.question}`);
    return { status: 'deferred', interactionId: 'thread-42' };
  },
};
worker.registerProvider(chatProvider);

// A retried step never asks twice: the key names the ask on every service sharing the store.
const request = { question: 'Which region?', options: ['eu-west', 'us-east'] };
const handle = worker.start(request, { key: 'tool-call-7', timeoutMs: 3_600_000 });
const retried = worker.start(request, { key: 'tool-call-7', timeoutMs: 3_600_000 });
console.log((await handle.outcome).status, retried.id === handle.id); // deferred true: asked once

// Later, anywhere (a webhook, another worker, a web page) on the same store:
const webhook = createInteractionService({ store });
const answers: AskUserQuestionAnswer[] = [
  { questionId: 'q1', response: { kind: 'selection', selections: ['eu-west'] } },
];
const outcome = await webhook.resume('thread-42', answers); // by the interaction id
console.log(outcome.status); // answered; webhook.answer(askId, answers) works by the ask id
console.log((await webhook.get(handle.id))?.state); // answered, as every service sees it
for await (const event of webhook.history(handle.id)) console.log(event.type);
await worker.close(); // asks stay in the store for the others
await webhook.close();
