/**
 * The OpenAI Agents adapter's approval round against the SDK's own approval path, on the same
 * ScriptedModel and the same agent, with an immediate decision. Goal <= 1.5x.
 * - Floor: `run` stops for the tool's approval, `state.approve(item)`, `run` again to the end.
 * - Subject: the same, with `askRunApprovals` in place of `state.approve`: one keyed approval
 *   ask per interruption (a fresh run id each time, so each is a new ask) answered at once by a
 *   scripted provider, the run's serialized state kept with the ask in the memory store.
 */
import { Agent, run, setTracingDisabled, tool } from '@openai/agents';
import { assistantMessage, functionCall, ScriptedModel } from '@openai/agents/testing';
import { createInteractionService } from '../src/index.js';
import { askRunApprovals } from '../src/openai-agents/run-approvals.js';
import { timeRatio } from './ratio.js';

setTracingDisabled(true);

const model = new ScriptedModel();
const removeFile = tool({
  name: 'remove_file',
  description: 'Removes one file.',
  parameters: {
    type: 'object',
    properties: { path: { type: 'string' } },
    required: ['path'],
    additionalProperties: false,
  },
  strict: true,
  needsApproval: true,
  execute: async (input) => `removed ${(input as { path: string }).path}`,
});
const agent = new Agent({ name: 'janitor', model, tools: [removeFile] });

/** The model's two turns of one run: the call, then the answer. */
function script(): void {
  model.enqueue([functionCall('remove_file', { path: '/tmp/a' }, { callId: 'call-1' })]);
  model.enqueue([assistantMessage('done')]);
}

function check(output: unknown): unknown {
  if (output !== 'done') throw new Error(`unexpected output: ${String(output)}`);
  return output;
}

const service = createInteractionService();
// The person approves at once: the approving option of whatever approval question is asked.
service.registerProvider({
  ask: async (request) => {
    const question = request.questions[0];
    if (question === undefined) throw new Error('no question');
    if (question.intent?.kind !== 'tool-approval') throw new Error('not a tool approval');
    const approve = question.intent.approve;
    return {
      status: 'answered',
      answers: [
        { questionId: question.id, response: { kind: 'selection', selections: [approve] } },
      ],
    };
  },
});

let runs = 0;
await timeRatio(
  'openai-agents: askRunApprovals round vs state.approve (ScriptedModel, immediate decision)',
  1.5,
  async () => {
    script();
    const result = await run(agent, 'clean up');
    for (const item of result.interruptions) result.state.approve(item);
    return check((await run(agent, result.state)).finalOutput);
  },
  async () => {
    script();
    const result = await run(agent, 'clean up');
    const round = await askRunApprovals(service, result, { runId: `bench-${runs++}` });
    if (round.status !== 'decided') throw new Error('the approval was not decided');
    const finished = await run(agent, round.state, { signal: round.claim.signal });
    await round.claim.finish();
    return check(finished.finalOutput);
  },
);
await service.close();
