/** The default store: a process-local map of asks. */
import type { AskStore, StoredAsk } from './ask-store.js';

/**
 * @example
 * const store = createMemoryAskStore();
 * const service = createInteractionService({ store });
 */
export function createMemoryAskStore(): AskStore {
  const byId = new Map<string, StoredAsk>();
  const byInteractionId = new Map<string, string>();
  return {
    save(entry) {
      byId.set(entry.askId, entry);
      if (entry.interactionId !== undefined) byInteractionId.set(entry.interactionId, entry.askId);
    },
    get: (askId) => byId.get(askId),
    findByInteractionId(interactionId) {
      const askId = byInteractionId.get(interactionId);
      return askId === undefined ? undefined : byId.get(askId);
    },
    delete(askId) {
      const entry = byId.get(askId);
      if (entry?.interactionId !== undefined) byInteractionId.delete(entry.interactionId);
      byId.delete(askId);
    },
    list: () => [...byId.values()],
  };
}
