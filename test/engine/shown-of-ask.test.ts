import { describe, expect, it } from 'vitest';
import { shownOfAsk } from '../../src/engine/ask-info.js';
import {
  createInteractionService,
  createMemoryAskStore,
  createScriptedProvider,
} from '../../src/index.js';

const secret = 'typed by the person';

async function answered(redact: boolean) {
  const store = createMemoryAskStore();
  const service = createInteractionService({ store, redact });
  service.registerProvider(
    createScriptedProvider([
      { answer: [{ questionId: 'q1', response: { kind: 'freeform', text: secret } }] },
    ]),
  );
  const handle = service.start({ question: 'Which password?' });
  await handle.outcome;
  const info = await service.get(handle.id);
  const row = await store.get(handle.id);
  await service.close();
  return { info: info!, row };
}

describe('shownOfAsk', () => {
  it('redacts the answers of an ask that redacts, and leaves those of one that does not', async () => {
    const hidden = await answered(true);
    expect(shownOfAsk(hidden.info, hidden.row).outcome).toEqual({
      status: 'answered',
      answers: '[redacted]',
    });
    const plain = await answered(false);
    expect(shownOfAsk(plain.info, plain.row)).toBe(plain.info);
  });

  it('redacts when the row is gone, since nothing says the ask may be shown', async () => {
    const plain = await answered(false);
    expect(JSON.stringify(shownOfAsk(plain.info, undefined))).not.toContain(secret);
  });
});
