/**
 * (a) One full ask: start -> provider answers -> outcome, with audit on (a subscriber on
 * events$) and a deadline, in a memory store, against a bare Promise + setTimeout/clearTimeout ask. Goal <= 20x.
 * Two lines for scale show what one machine step costs: through XState (its initial snapshot
 * and one transition to a final state; the inspector's and the tests' path) and through the
 * compiled table the engine runs (ask-table.ts), against the same floor.
 */
import { applyAskEvent, initialAskSnapshot } from '../src/engine/ask-logic.js';
import { initialAskState, stepAsk } from '../src/engine/ask-table.js';
import { createInteractionService, createScriptedProvider } from '../src/index.js';
import { yesAnswer, yesNoRequest } from './fixtures.js';
import { timeRatio } from './ratio.js';

const floor = () =>
  new Promise((resolve) => {
    const timer = setTimeout(() => resolve('timeout'), 60_000);
    Promise.resolve(yesAnswer).then((answers) => {
      clearTimeout(timer);
      resolve(answers);
    });
  });

const service = createInteractionService();
let audited = 0;
service.events$.subscribe(() => {
  audited++;
});
service.registerProvider(
  createScriptedProvider([{ answer: yesAnswer }], { loop: true, recordCalls: false }),
);
await timeRatio('(a) full ask vs bare Promise + setTimeout/clearTimeout', 30, floor, () =>
  service.ask(yesNoRequest, { timeoutMs: 60_000 }),
);
if (audited === 0) throw new Error('audit events were not delivered');

let n = 0;
await timeRatio(
  '(a) the ask machine alone through XState: initial snapshot + one transition',
  undefined,
  floor,
  () => {
    const snapshot = initialAskSnapshot({ askId: `bare-${n++}`, createdAt: 0, deadlineAt: 60_000 });
    return applyAskEvent(snapshot, { type: 'provider.answered', answers: yesAnswer })?.output;
  },
);

let m = 0;
await timeRatio(
  '(a) the compiled table alone, as the engine runs it: initial state + one step',
  undefined,
  floor,
  () => {
    const state = initialAskState({ askId: `table-${m++}`, createdAt: 0, deadlineAt: 60_000 });
    return stepAsk(state, { type: 'provider.answered', answers: yesAnswer })?.output;
  },
);
