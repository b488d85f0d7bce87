/** The memory store against the shared store contract. */
import { createMemoryAskStore } from 'ask-engine';
import { describeAskStoreContract } from './store-contract.js';

let shared = createMemoryAskStore();

describeAskStoreContract('the memory store', {
  create: async () => {
    shared = createMemoryAskStore();
    return shared;
  },
  // Services in one process share one memory store: the peer is the same instance.
  connect: async () => shared,
  endsClaimsEarly: true,
});
