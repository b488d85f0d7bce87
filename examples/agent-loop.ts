/**
 * A scripted agent loop: no model, no network. It calls the ask_user tool the way a model
 * would, a scripted provider stands in for the person, and it prints each tool result
 * exactly as the agent receives it, then the audit trail of every ask.
 *
 * Run (in a clone): node --conditions=ask-engine:source --import tsx examples/agent-loop.ts
 * Run (installed): npx tsx node_modules/ask-engine/examples/agent-loop.ts
 */
import {
  type AskAuditEvent,
  createAskUserTool,
  createInteractionService,
  createScriptedProvider,
} from 'ask-engine';

const service = createInteractionService();
const trail: AskAuditEvent[] = [];
service.events$.subscribe((event) => trail.push(event));

// The person, scripted: one step per ask, in order.
service.registerProvider(
  createScriptedProvider([
    { answer: [{ questionId: 'q1', response: { kind: 'selection', selections: ['Vitest'] } }] },
    {
      answer: [
        {
          questionId: 'q1',
          response: {
            kind: 'selection',
            selections: ['Linux', 'macOS'],
            comment: 'Windows next quarter.',
          },
        },
      ],
    },
    { answer: [{ questionId: 'q1', response: { kind: 'freeform', text: 'ask-engine-demo' } }] },
    {
      progress: [{ questionId: 'q1', response: { kind: 'selection', selections: ['MIT'] } }],
      answer: [
        { questionId: 'q1', response: { kind: 'selection', selections: ['MIT'] } },
        { questionId: 'q2', response: null },
        { questionId: 'q3', response: { kind: 'freeform', text: 'Keep the CLI small.' } },
      ],
    },
    { hang: true }, // the person walks away: the plan review times out, nothing is chosen
    { defer: 'chat-thread-17', message: 'Asked in the team chat.' },
  ]),
);

const tool = createAskUserTool(service);

// What a model would send, one tool call per step of the task.
const calls: unknown[] = [
  {
    question: 'Which test runner should the new package use?',
    options: [
      { title: 'Vitest', description: 'Fast, ESM-native, works with the existing Vite config.' },
      { title: 'node:test', description: 'No dependency, fewer features.' },
    ],
  },
  {
    question: 'Which platforms must CI cover?',
    options: ['Linux', 'macOS', 'Windows'],
    allowMultiple: true,
    allowComment: true,
  },
  { question: 'What should the package be called?' },
  {
    questions: [
      { question: 'Which license?', header: 'License', options: ['MIT', 'Apache-2.0'] },
      { question: 'Which Node versions?', header: 'Node', options: ['20+', '22+'] },
      { question: 'Anything else I should know?', header: 'Notes' },
    ],
  },
  {
    question: 'Approve this plan?',
    context: '1. Scaffold the package\n2. Add Vitest and CI for Linux and macOS\n3. Publish 0.1.0',
    options: ['Approve', 'Request changes'],
    intent: { kind: 'plan-review', approve: 'Approve' },
    timeout: 1000,
  },
  { question: 'Can I publish to the registry now?', options: ['Yes', 'No'] },
];

for (const [index, raw] of calls.entries()) {
  const toolCallId = `call-${index + 1}`;
  const result = await tool.execute(toolCallId, tool.prepareArguments(raw), undefined, (update) =>
    console.log(`  … ${update.content[0]?.text}`),
  );
  console.log(`\n[${toolCallId}] ask_user ->${result.isError ? ' (error)' : ''}`);
  console.log(result.content.map((part) => part.text).join('\n'));
}

// The deferred ask lives on: the chat bridge brings the answer later.
const resumed = await service.resume('chat-thread-17', [
  { questionId: 'q1', response: { kind: 'selection', selections: ['Yes'] } },
]);
console.log(`\n[resume chat-thread-17] -> ${resumed.status}`);

console.log('\nAudit trail:');
const started = trail[0]?.at ?? 0;
const callOf = new Map<string, unknown>();
for (const event of trail) {
  if (event.type === 'start') callOf.set(event.askId, event.data.toolCallId);
  const from = event.from ?? '—';
  console.log(
    `  +${String(event.at - started).padStart(4)} ms  ${String(callOf.get(event.askId)).padEnd(7)} ${event.type.padEnd(18)} ${from} -> ${event.to}`,
  );
}
