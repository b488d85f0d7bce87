/**
 * A NUL (U+0000) in what the service keeps with an ask or looks it up by is refused before any
 * store sees it, the same way on every store: PostgreSQL cannot hold it (the store contract
 * covers the stores' own lookups, filters and cursors).
 */
import { describe, expect, it } from 'vitest';
import {
  createInteractionService,
  createMemoryAskStore,
  createScriptedProvider,
} from '../../src/index.js';
import { manualProvider } from './helpers.js';

const yesNo = { question: 'Deploy now?', options: ['Yes', 'No'] };

describe('text with a NUL the service would keep or look up', () => {
  it('refuses a key, a session or a tool call id holding one, naming the option', () => {
    const service = createInteractionService({ store: createMemoryAskStore() });
    service.registerProvider(manualProvider());
    for (const option of ['key', 'sessionId', 'toolCallId'] as const) {
      expect(() => service.start(yesNo, { [option]: 'step\u00001' }), option).toThrow(
        expect.objectContaining({
          code: 'INVALID_REQUEST',
          data: { field: option },
          message: `ask option \`${option}\` holds the character U+0000 (NUL) at position 4, which no ask store keeps (PostgreSQL cannot hold it), so nothing is stored or found under it. Remove it.`,
        }),
      );
    }
  });

  it('refuses a request whose agent holds one, naming the field', () => {
    const service = createInteractionService({ store: createMemoryAskStore() });
    service.registerProvider(manualProvider());
    expect(() => service.start({ ...yesNo, agent: 'deploy\u0000bot' })).toThrow(
      expect.objectContaining({ code: 'INVALID_REQUEST', data: { field: 'agent' } }),
    );
  });

  it('refuses an ask id or interaction id holding one when answering, resuming or reading', async () => {
    const service = createInteractionService({ store: createMemoryAskStore() });
    service.registerProvider(manualProvider());
    const refused = { code: 'INVALID_REQUEST', message: expect.stringContaining('U+0000') };
    await expect(service.get('a\u0000b')).rejects.toMatchObject(refused);
    await expect(service.answer('a\u0000b', [])).rejects.toMatchObject(refused);
    await expect(service.resume('thread\u00001', [])).rejects.toMatchObject(refused);
    await service.close();
  });

  it('ends the ask as an invalid answer when its provider defers to an interaction id holding one', async () => {
    const service = createInteractionService({ store: createMemoryAskStore() });
    service.registerProvider(createScriptedProvider([{ defer: 'thread\u00009' }]));
    expect(await service.ask(yesNo)).toMatchObject({
      status: 'cancelled',
      reason: 'invalid-answer',
      message: expect.stringContaining('`interactionId` holds the character U+0000 (NUL)'),
    });
    await service.close();
  });
});
