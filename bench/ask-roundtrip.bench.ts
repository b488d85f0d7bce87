/**
 * (a) One full ask: start -> provider answers -> outcome, with audit on (a subscriber on
 * events$) and a deadline, against a bare Promise + setTimeout/clearTimeout ask. Goal <= 15x.
 */
import { createScriptedProvider } from '../src/providers/scripted-provider.js';
import { createInteractionService } from '../src/service.js';
import { yesAnswer, yesNoRequest } from './fixtures.js';
import { timeRatio } from './ratio.js';

const service = createInteractionService();
let audited = 0;
service.events$.subscribe(() => {
  audited++;
});
service.registerProvider(
  createScriptedProvider([{ answer: yesAnswer }], { loop: true, recordCalls: false }),
);

await timeRatio(
  '(a) full ask vs bare Promise + setTimeout/clearTimeout',
  15,
  () =>
    new Promise((resolve) => {
      const timer = setTimeout(() => resolve('timeout'), 60_000);
      Promise.resolve(yesAnswer).then((answers) => {
        clearTimeout(timer);
        resolve(answers);
      });
    }),
  () => service.ask(yesNoRequest, { timeoutMs: 60_000 }),
);
if (audited === 0) throw new Error('audit events were not delivered');
