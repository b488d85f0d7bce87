import { createInteractionService, describeQuorum } from 'ask-engine';

const service = createInteractionService({ redact: true });
// The people answer elsewhere (their own web or email links); this provider only waits.
service.registerProvider({ ask: () => new Promise(() => undefined) });
const pick = (title: string) => [
  { questionId: 'q1', response: { kind: 'selection' as const, selections: [title] } },
];

const change = service.start(
  { question: 'Run the migration on the payments database?', options: ['Approve', 'Deny'] },
  { quorum: { required: 2, from: ['ana', 'ben', 'cy'], veto: ['Deny'] }, timeoutMs: 3_600_000 },
);
const first = await service.respond(change.id, pick('Approve'), { by: { recipient: 'ana' } });
console.log(describeQuorum(first.quorum!).join(' '));
await service.respond(change.id, pick('Approve'), { by: { recipient: 'ana' } }).catch((error) => {
  console.log(error.data.reason); // 'duplicate': refused and audited, counted once
});
const last = await service.respond(change.id, pick('Approve'), { by: { recipient: 'cy' } });
const outcome = last.outcome!;
console.log(outcome.status, outcome.status === 'answered' && outcome.responses?.map((r) => r.by));
for await (const event of service.history(change.id)) {
  if (event.type.startsWith('response.')) console.log(event.type, event.data);
}
await service.close();
