import { createInteractionService, createScriptedProvider } from 'ask-engine';

const service = createInteractionService({ redact: true });
service.registerProvider(createScriptedProvider([{ defer: 'thread-9' }, { defer: 'thread-10' }]));
const answers = [
  { questionId: 'q1', response: { kind: 'selection' as const, selections: ['Yes'] } },
];

// An answer from elsewhere (a mail link, a chat bot) says who gave it:
const first = service.start({ question: 'Deploy now?', options: ['Yes', 'No'] });
await first.outcome; // deferred
const byMail = await service.answer(first.id, answers, {
  by: { recipient: 'alice@example.com', channel: 'email' },
});
console.log(byMail.status === 'answered' && byMail.answeredBy); // never redacted

const second = service.start({ question: 'Roll back?', options: ['Yes', 'No'] });
await second.outcome;
await service.resume('thread-10', answers, {
  askId: second.id, // a redelivered reply cannot answer the next ask on the thread
  by: { recipient: 'U024BE7LH', channel: 'slack' },
});
for await (const event of service.history(second.id)) {
  if (event.type === 'resume') console.log(event.data); // answers redacted, answeredBy kept
}
// A provider reports it with its answer: { status: 'answered', answers, answeredBy }.
await service.close();
