import { createInteractionService, createMemoryAskStore } from 'ask-engine';

const store = createMemoryAskStore(); // or SQLite, or PostgreSQL
const service = createInteractionService({
  store,
  retention: { finalAfterMs: 30 * 86_400_000, everyMs: 3_600_000 }, // keep 30 days, check hourly
});
// Or now, by hand: final asks that settled before a time; never pending or deferred ones.
console.log(await service.purge({ finalBefore: Date.now() - 30 * 86_400_000 })); // 0
await service.close();
