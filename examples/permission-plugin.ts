/**
 * A permission plugin: before a risky shell command runs, ask the person through the service
 * (no model, no tool), and run it only on an explicit "Allow". A timeout, a dismissal or an
 * abort all mean "no": nothing is ever chosen on the person's behalf.
 *
 * Run (in a clone): node --conditions=ask-engine:source --import tsx examples/permission-plugin.ts
 * Run (installed): npx tsx node_modules/ask-engine/examples/permission-plugin.ts
 */
import { type AskOutcome, createInteractionService, createScriptedProvider } from 'ask-engine';

const service = createInteractionService();
// Stands in for the UI; the second request gets no answer and times out.
service.registerProvider(
  createScriptedProvider([
    { answer: [{ questionId: 'q1', response: { kind: 'selection', selections: ['Allow once'] } }] },
    { hang: true },
  ]),
);

async function mayRun(command: string): Promise<{ allowed: boolean; outcome: AskOutcome }> {
  const outcome = await service.ask(
    {
      question: `Allow the agent to run \`${command}\`?`,
      header: 'Permission',
      context: `Working directory: ${process.cwd()}`,
      options: [
        { title: 'Allow once', description: 'Run this command now, ask again next time.' },
        { title: 'Deny', description: 'Do not run it; the agent is told it was denied.' },
      ],
      agent: 'shell-guard',
    },
    { timeoutMs: 1000, toolCallId: `permission:${command}` },
  );
  const allowed =
    outcome.status === 'answered' &&
    outcome.answers[0]?.response?.kind === 'selection' &&
    outcome.answers[0].response.selections[0] === 'Allow once';
  return { allowed, outcome };
}

for (const command of ['rm -rf build/', 'git push --force']) {
  const { allowed, outcome } = await mayRun(command);
  console.log(`${command}: ${allowed ? 'allowed' : 'not allowed'} (${outcome.status})`);
}
