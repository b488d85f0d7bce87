import { createInteractionService, createScriptedProvider } from 'ask-engine';
import { createPostgresAskStore } from 'ask-engine/postgres';

// Every service, on every host, gives the same database and schema.
const store = createPostgresAskStore(
  { connectionString: process.env.DATABASE_URL ?? 'postgres://ask:secret@db.internal:5432/app' },
  { schema: 'ask_engine' }, // the default; one schema per independent deployment
);
const service = createInteractionService({ store });
service.registerProvider(
  createScriptedProvider([
    { answer: [{ questionId: 'q1', response: { kind: 'selection', selections: ['Yes'] } }] },
  ]),
);
const handle = service.start({ question: 'Ship it?', options: ['Yes', 'No'] });
console.log((await handle.outcome).status); // answered
console.log((await service.get(handle.id))?.state); // as any host reads it from the database
await service.close();
await store.close();
