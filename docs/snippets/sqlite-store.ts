import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInteractionService, createScriptedProvider } from 'ask-engine';
import { createSqliteAskStore } from 'ask-engine/sqlite';

const path = join(mkdtempSync(join(tmpdir(), 'asks-')), 'asks.db');

// One process asks; its provider hands the question to a chat thread.
const store = createSqliteAskStore({ path });
const service = createInteractionService({ store });
service.registerProvider(createScriptedProvider([{ defer: 'thread-42' }]));
console.log((await service.ask({ question: 'Ship it?', options: ['Yes', 'No'] })).status);
await service.close(); // close the service first, then its store: the data stays
await store.close();

// Another process, a webhook, or this one after a restart, on the same file:
const later = createSqliteAskStore({ path });
const webhook = createInteractionService({ store: later });
const outcome = await webhook.resume('thread-42', [
  { questionId: 'q1', response: { kind: 'selection', selections: ['Yes'] } },
]);
console.log(outcome.status); // answered
await webhook.close();
await later.close();
