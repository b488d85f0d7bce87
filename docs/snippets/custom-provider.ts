import { type AskProvider, createAskUserTool, createInteractionService } from 'ask-engine';

const service = createInteractionService({ redact: true });

// The one UI that owns the questions: any object with ask(request, ctx). This one stands for
// your UI; here the "person" picks the last option of each question.
const provider: AskProvider = {
  async ask(request, { signal, reportProgress }) {
    signal.throwIfAborted(); // the signal aborts when the ask ends for any other reason
    const answers = request.questions.map((question) => ({
      questionId: question.id,
      response: { kind: 'selection' as const, selections: [question.options.at(-1)!.title] },
    }));
    reportProgress(answers); // answers so far: the tool's onUpdate shows "1/1 answered"
    return { status: 'answered', answers };
  },
};
const dispose = service.registerProvider(provider);

// Hand the tool to your agent framework (name, description, parameters, execute, ...).
const askUser = createAskUserTool(service, { timeoutMs: 10 * 60_000 });
const turn = new AbortController(); // aborting it ends the open ask as `aborted`
const result = await askUser.execute(
  'call-1',
  askUser.prepareArguments({ question: 'Which database?', options: ['PostgreSQL', 'SQLite'] }),
  turn.signal,
);
console.log(result.content[0].text); // what the model reads; result.details has the outcome

// A permission plugin can ask without the tool:
const outcome = await service.ask(
  { question: 'Allow `rm -rf build/`?', options: ['Allow once', 'Deny'] },
  { timeoutMs: 60_000, signal: turn.signal },
);
const allowed =
  outcome.status === 'answered' &&
  outcome.answers[0]?.response?.kind === 'selection' &&
  outcome.answers[0].response.selections[0] === 'Allow once';
console.log(allowed ? 'running rm -rf build/' : `not running it (${outcome.status})`);
dispose();
await service.close();
