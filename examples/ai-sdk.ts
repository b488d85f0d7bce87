/**
 * The AI SDK loop with a person in it: the model calls `ask_user` (answered through the service),
 * then wants to run a risky tool that `needsApproval`; the person is asked Allow / Deny and only
 * an explicit Allow runs it. The model is scripted (`MockLanguageModelV3`), so no key or network
 * is needed; swap in any AI SDK model.
 *
 * Run (in a clone): node --conditions=ask-engine:source --import tsx examples/ai-sdk.ts
 * Run (installed): npx tsx node_modules/ask-engine/examples/ai-sdk.ts
 */
import { generateText, jsonSchema, type ModelMessage, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { createInteractionService, createScriptedProvider } from 'ask-engine';
import { answerApprovals, askUserTool } from 'ask-engine/ai-sdk';

const service = createInteractionService();
// Stands in for the person's UI: picks SQLite, then allows the first command and denies the second.
service.registerProvider(
  createScriptedProvider([
    { answer: [{ questionId: 'q1', response: { kind: 'selection', selections: ['SQLite'] } }] },
    { answer: [{ questionId: 'q1', response: { kind: 'selection', selections: ['Allow'] } }] },
    {
      answer: [
        {
          questionId: 'q1',
          response: { kind: 'selection', selections: ['Deny'], comment: 'Not the whole disk.' },
        },
      ],
    },
  ]),
);

const tools = {
  ask_user: askUserTool(service, { timeoutMs: 60_000 }),
  shell: tool({
    description: 'Run a shell command.',
    inputSchema: jsonSchema<{ command: string }>({
      type: 'object',
      properties: { command: { type: 'string' } },
      required: ['command'],
    }),
    needsApproval: true,
    execute: async ({ command }) => `ran: ${command}`,
  }),
};

const model = scriptedModel();
const messages: ModelMessage[] = [{ role: 'user', content: 'Set up the database and clean up.' }];
for (let turn = 1; turn <= 4; turn++) {
  const step = await generateText({ model, tools, messages, stopWhen: stepCountIs(5) });
  messages.push(...step.response.messages);
  // What the tools said this turn (an approved tool runs at the start of the next call).
  for (const message of step.response.messages) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type === 'tool-result' && part.output.type === 'text') {
        console.log(`[${part.toolName}] ${part.output.value}`);
      }
    }
  }
  const approvals = await answerApprovals(service, step, { timeoutMs: 60_000 });
  for (const part of approvals.content) {
    if (part.type === 'tool-approval-response') {
      console.log(`[approval] ${part.approved ? 'approved' : 'denied'}: ${part.reason}`);
    }
  }
  if (approvals.content.length === 0) {
    console.log(`[model] ${step.text}`);
    break;
  }
  messages.push(approvals);
}

/** The model's side, scripted: ask, then request two commands, then sum up what it was told. */
function scriptedModel(): MockLanguageModelV3 {
  const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 1, text: 1, reasoning: 0 },
  };
  return new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      const results = prompt.flatMap((message) =>
        message.role === 'tool'
          ? message.content.flatMap((part) => (part.type === 'tool-result' ? [part] : []))
          : [],
      );
      const call = (toolCallId: string, toolName: string, input: unknown) => ({
        type: 'tool-call' as const,
        toolCallId,
        toolName,
        input: JSON.stringify(input),
      });
      const content =
        results.length === 0
          ? [
              call('call-1', 'ask_user', {
                question: 'Which database?',
                options: ['PostgreSQL', 'SQLite'],
              }),
            ]
          : results.length === 1
            ? [
                call('call-2', 'shell', { command: 'rm -rf build/' }),
                call('call-3', 'shell', { command: 'rm -rf /' }),
              ]
            : [{ type: 'text' as const, text: `Done; I was told ${results.length} things.` }];
      const finish = content[0]?.type === 'tool-call' ? 'tool-calls' : 'stop';
      return { content, finishReason: { unified: finish, raw: undefined }, usage, warnings: [] };
    },
  });
}
