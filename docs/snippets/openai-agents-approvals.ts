import { Agent, run, setTracingDisabled, tool } from '@openai/agents';
import { assistantMessage, functionCall, ScriptedModel } from '@openai/agents/testing';
import { type AskProvider, createInteractionService, createMemoryAskStore } from 'ask-engine';
import { askRunApprovals, resumeRunApprovals } from 'ask-engine/openai-agents';

setTracingDisabled(true);
const shell = tool({
  name: 'shell',
  description: 'Run a shell command.',
  parameters: {
    type: 'object',
    properties: { command: { type: 'string' } },
    required: ['command'],
    additionalProperties: false,
  },
  strict: true,
  needsApproval: true, // the run stops here until a person decides
  execute: async (input) => `ran ${(input as { command: string }).command}`,
});
// Your model; this stand-in asks for one command, then reports.
const model = new ScriptedModel([
  [functionCall('shell', { command: 'rm -rf build/' }, { callId: 'call-1' })],
  [assistantMessage('Cleaned the build folder.')],
]);
const agent = new Agent({ name: 'builder', model, tools: [shell] });

// One store for every host: SQLite or PostgreSQL where processes come and go.
const store = createMemoryAskStore();
// A web link, a chat thread, a mail: the person answers later, anywhere.
const handedOn: AskProvider = {
  ask: async (_request, ctx) => ({ status: 'deferred', interactionId: `link-${ctx.askId}` }),
};
const worker = createInteractionService({ store });
worker.registerProvider(handedOn);

const result = await run(agent, 'Clean the build folder.');
const round = await askRunApprovals(worker, result, { runId: 'job-42' });
console.log(round.status); // waiting: this process may exit now
if (round.status !== 'waiting') throw new Error('expected the run to wait');

// The person approves on the web page; here, the same through the service.
const [askId = ''] = round.askIds;
await worker.answer(askId, [
  { questionId: 'q1', response: { kind: 'selection', selections: ['Approve'] } },
]);

// Any host sharing the store continues the run from the state kept with its asks.
const host = createInteractionService({ store });
host.registerProvider(handedOn);
const resumed = await resumeRunApprovals(host, agent, askId);
if (resumed.status !== 'decided') throw new Error('another host continues the run');
const { state, decisions, claim } = resumed;
console.log(decisions.map((decision) => `${decision.toolName}: ${decision.applied}`).join('\n'));
// The round is this host's (claimed in the store): a second host is told so, never runs it.
const again = await resumeRunApprovals(worker, agent, askId);
console.log(again.status); // claimed
const finished = await run(agent, state, { signal: claim.signal }); // stops if the claim is lost
await claim.finish(); // done: nobody resumes this round again
console.log(finished.finalOutput);
await worker.close();
await host.close();
