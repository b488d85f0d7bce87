import { generateText, jsonSchema, type ModelMessage, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { createInteractionService, createScriptedProvider } from 'ask-engine';
import { answerApprovals, askUserTool } from 'ask-engine/ai-sdk';

const service = createInteractionService();
// The person, scripted here: Allow. Register your UI's provider (a terminal, a web page).
service.registerProvider(
  createScriptedProvider([
    { answer: [{ questionId: 'q1', response: { kind: 'selection', selections: ['Allow'] } }] },
  ]),
);

const shell = tool({
  description: 'Run a shell command.',
  inputSchema: jsonSchema<{ command: string }>({
    type: 'object',
    properties: { command: { type: 'string' } },
    required: ['command'],
  }),
  needsApproval: true, // answerApprovals asks the person Allow / Deny
  execute: async ({ command }) => `ran ${command}`,
});
// Your model; this stand-in calls the shell once, then reports what it was told.
const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};
const model = new MockLanguageModelV3({
  doGenerate: async ({ prompt }) => {
    const told = prompt
      .flatMap((m) => (m.role === 'tool' ? m.content : []))
      .filter((p) => p.type === 'tool-result');
    return told.length === 0
      ? {
          content: [
            {
              type: 'tool-call',
              toolCallId: 'call-1',
              toolName: 'shell',
              input: '{"command":"rm -rf build/"}',
            },
          ],
          finishReason: { unified: 'tool-calls', raw: undefined },
          usage,
          warnings: [],
        }
      : {
          content: [{ type: 'text', text: `Done: ${JSON.stringify(told[0]?.output)}` }],
          finishReason: { unified: 'stop', raw: undefined },
          usage,
          warnings: [],
        };
  },
});

const tools = { ask_user: askUserTool(service), shell };
const messages: ModelMessage[] = [{ role: 'user', content: 'Clean up the build.' }];
for (;;) {
  const step = await generateText({ model, tools, messages, stopWhen: stepCountIs(10) });
  messages.push(...step.response.messages);
  const approvals = await answerApprovals(service, step, { timeoutMs: 5 * 60_000 });
  if (approvals.content.length === 0) {
    console.log(step.text); // nothing waits for a person: the turn is over
    break;
  }
  messages.push(approvals);
}
await service.close();
