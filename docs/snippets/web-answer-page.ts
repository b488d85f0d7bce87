import { randomBytes } from 'node:crypto';
import { createInteractionService, createMemoryAskStore } from 'ask-engine';
import { createWebAnswerServer, createWebProvider } from 'ask-engine/web';

const store = createMemoryAskStore(); // in production a store other processes share, e.g. SQLite
const service = createInteractionService({ store });
const server = await createWebAnswerServer({ service, secret: randomBytes(32), port: 0 });
let link = '';
service.registerProvider(
  createWebProvider(server, {
    mode: 'defer', // the default: the tool call ends, the page answers later; or 'pending'
    notify: (url) => {
      link = url;
      console.log(`The agent has a question for you: ${url}`); // post it to a chat, a mail
    },
  }),
);
const outcome = await service.ask({ question: 'Deploy now?', options: ['Yes', 'No'] });
console.log(outcome.status); // deferred: the agent ends its turn

const page = await fetch(link); // what the person's browser gets: the form; only a POST answers
console.log(page.status, (await page.text()).includes('Deploy now?'));
await server.close();
await service.close();
