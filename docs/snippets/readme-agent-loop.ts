import { createAskUserTool, createInteractionService } from 'ask-engine';
import { createTerminalProvider } from 'ask-engine/terminal';

const service = createInteractionService();
service.registerProvider(createTerminalProvider()); // the one UI that owns the questions
const askUser = createAskUserTool(service, { timeoutMs: 5 * 60_000 });

// Your agent loop, when the model calls the tool (its name, description, schema: askUser.*):
const args = { question: 'Which database?', options: ['PostgreSQL', 'SQLite'] };
const result = await askUser.execute('call-1', askUser.prepareArguments(args));
console.log(result.content[0].text); // what the model reads next: the answer, or why none
console.log(result.details.status); // answered | cancelled | timedOut | deferred | aborted
await service.close();
