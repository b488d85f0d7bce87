/**
 * A host that can only show generic forms (a web page, a chat client with form support):
 * `createFormProvider` turns its `requestForm` into the service's provider. The "client" here
 * reads the form the way a browser would, from JSON, and sends back an encoded answer; the
 * engine decodes and validates it before it counts.
 *
 * Run (in a clone): node --conditions=ask-engine:source --import tsx examples/form-host.ts
 * Run (installed): npx tsx node_modules/ask-engine/examples/form-host.ts
 */
import {
  createAskUserTool,
  createFormProvider,
  createInteractionService,
  encodeAskUserFormAnswer,
  type FormHost,
  readAskUserForm,
  type UiForm,
} from 'ask-engine';

const requestForm: FormHost = async (form, { signal }) => {
  signal.throwIfAborted();
  // Over the wire: the client only ever sees JSON.
  const received = JSON.parse(JSON.stringify(form)) as UiForm;
  console.log(
    `form "${received.title}" with fields: ${received.fields.map((f) => f.id).join(', ')}`,
  );
  const questions = readAskUserForm(received);
  if (questions === null) return { status: 'unsupported', message: 'unknown form' };
  // The person picks the first option of every question that has options, and types otherwise.
  const answer = encodeAskUserFormAnswer(
    received,
    questions.map((question) => ({
      questionId: question.id,
      response:
        question.options.length > 0
          ? { kind: 'selection', selections: [question.options[0]!.title] }
          : { kind: 'freeform', text: 'Friday afternoon' },
    })),
  );
  return JSON.parse(JSON.stringify(answer));
};

const service = createInteractionService();
service.registerProvider(createFormProvider(requestForm));
const tool = createAskUserTool(service);

const result = await tool.execute('call-1', {
  questions: [
    {
      question: 'Which database?',
      header: 'Database',
      options: [{ title: 'PostgreSQL' }, { title: 'SQLite' }],
    },
    { question: 'When should it ship?', header: 'Ship date' },
  ],
});
console.log(result.content[0]?.text);
