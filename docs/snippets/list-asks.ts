import { createInteractionService, createScriptedProvider } from 'ask-engine';

const service = createInteractionService();
service.registerProvider(createScriptedProvider([{ defer: 'thread-1' }, { defer: 'thread-2' }]));
await service.ask(
  { question: 'Deploy?', options: ['Yes', 'No'], agent: 'deployer' },
  { sessionId: 's-1' },
);
await service.ask({ question: 'Roll back?', options: ['Yes', 'No'] });

// Everything waiting for a person, 50 at a time, newest first.
const waiting: string[] = [];
let page = await service.list({ state: ['pending', 'deferred'] });
waiting.push(...page.items.map((ask) => ask.askId));
while (page.cursor) {
  page = await service.list({ state: ['pending', 'deferred'] }, { cursor: page.cursor });
  waiting.push(...page.items.map((ask) => ask.askId));
}
console.log(waiting.length); // 2
// What one agent asked in one session this week.
const mine = await service.list({
  sessionId: 's-1',
  agent: 'deployer',
  created: { from: Date.now() - 7 * 86_400_000 },
});
console.log(mine.items.map((ask) => ask.questions[0]?.question)); // [ 'Deploy?' ]
await service.close();
