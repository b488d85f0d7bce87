/**
 * The owner a row names when another service writes it (issue 37): a write never changes who
 * delivers an ask (only a start or a take-over does). A response another service counts on a
 * quorum ask used to write the row without its owner: the owner then stopped delivering (its
 * provider was aborted) while the ask stayed pending, and the ask was anyone's to sweep.
 */
import { describe, expect, it } from 'vitest';
import { createInteractionService, createMemoryAskStore } from '../../src/index.js';
import { manualProvider, tick } from './helpers.js';

describe('the owner a row names when another service writes it', () => {
  it('stays the owner’s while a response another service counts leaves the ask pending', async () => {
    const store = createMemoryAskStore();
    const owner = createInteractionService({ store });
    const provider = manualProvider();
    owner.registerProvider(provider);
    const question = { question: 'Deploy?', options: ['Approve', 'Reject'] };
    const handle = owner.start(question, { quorum: { required: 2 } });
    await handle.stored;
    await tick();
    const other = createInteractionService({ store, retention: false });
    const approve = [
      { questionId: 'q1', response: { kind: 'selection' as const, selections: ['Approve'] } },
    ];
    await other.respond(handle.id, approve, { by: { recipient: 'ana' } });
    await tick();
    const row = await store.get(handle.id);
    expect(row?.state).toBe('pending');
    // Neither given up by its owner nor anyone's to sweep or take over.
    expect(row?.owner).toBe(owner.id);
    expect(provider.calls[0]!.ctx.signal.aborted).toBe(false);
    await Promise.all([owner.close(), other.close()]);
  });
});
