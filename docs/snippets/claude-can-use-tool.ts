import { createInteractionService, createScriptedProvider, TOOL_APPROVE } from 'ask-engine';
import { createCanUseTool } from 'ask-engine/claude';

const service = createInteractionService();
// Who answers: here a script; in a host, the terminal, the web page, notify or chat.
service.registerProvider(
  createScriptedProvider([
    // The person approves the Bash call with an edited command.
    {
      answer: [
        {
          questionId: 'q1',
          response: {
            kind: 'selection',
            selections: [TOOL_APPROVE],
            input: { command: 'npm test -- --run' },
          },
        },
      ],
    },
    // and picks SQLite in AskUserQuestion.
    { answer: [{ questionId: 'q1', response: { kind: 'selection', selections: ['SQLite'] } }] },
  ]),
);

const canUseTool = createCanUseTool(service, { timeoutMs: 10 * 60_000 });
// query({ prompt, options: { canUseTool } }) calls it for each permission prompt; by hand here:
const call = { signal: new AbortController().signal, requestId: 'req-1' };
console.log(await canUseTool('Bash', { command: 'npm test' }, { ...call, toolUseID: 'toolu_1' }));
const question = {
  questions: [
    {
      question: 'Which database?',
      header: 'Database',
      options: [
        { label: 'PostgreSQL', description: 'A server' },
        { label: 'SQLite', description: 'One file' },
      ],
      multiSelect: false,
    },
  ],
};
const answered = await canUseTool('AskUserQuestion', question, { ...call, toolUseID: 'toolu_2' });
console.log(answered?.behavior === 'allow' && answered.updatedInput?.answers);
await service.close();
