/**
 * One person under two spellings of one id counts once: a quorum of 2 without `from` is not
 * reached by `ana` and any other spelling of `ana` (a different case, another Unicode
 * composition, a look-alike letter), and a spelling that differs only invisibly (a zero-width
 * space, a word joiner, a soft hyphen, a variation selector, a trailing blank) is refused with
 * the field and the character named. Two real people still count twice.
 */
import { describe, expect, it } from 'vitest';
import { createInteractionService, createMemoryAskStore } from '../../src/index.js';
import { manualProvider } from './helpers.js';

const deploy = { question: 'Deploy 4.2 to production?', options: ['Approve', 'Reject'] };
const approve = [
  { questionId: 'q1', response: { kind: 'selection' as const, selections: ['Approve'] } },
];
const by = (recipient: string) => ({ by: { recipient, channel: 'web' } });

function quorumOfTwo() {
  const service = createInteractionService({ store: createMemoryAskStore() });
  service.registerProvider(manualProvider());
  const handle = service.start(deploy, { quorum: { required: 2, agree: 'any' } });
  return { service, handle };
}

/** The same id as `ana`, spelled another way that shows the same. */
const SAME_ID = {
  'in capitals': 'Ana',
  'decomposed (NFD) against composed (NFC)': ['ané'.normalize('NFD'), 'ané'.normalize('NFC')],
  'with a Cyrillic look-alike letter': '\u0430na',
  'with a Greek look-alike letter': 'an\u03b1',
  'in full-width letters': '\uff41\uff4e\uff41',
} as const;

/** Spellings of `ana` that differ only by what cannot be seen, and the escape each is named by. */
const INVISIBLY_DIFFERENT: Record<string, [spelling: string, escape: string]> = {
  'a zero-width space': ['an\u200ba', '\\u200b'],
  'a word joiner': ['an\u2060a', '\\u2060'],
  'a soft hyphen': ['an\u00ada', '\\xad'],
  'a variation selector': ['ana\ufe0f', '\\ufe0f'],
  'a trailing blank': ['ana ', '\\x20'],
  'a no-break space': ['an\u00a0a', '\\xa0'],
};

describe('a quorum of 2 and one person under two spellings of one id', () => {
  for (const [how, spelling] of Object.entries(SAME_ID)) {
    it(`counts ana once when the second spelling is ${how}`, async () => {
      const [first, second] = typeof spelling === 'string' ? ['ana', spelling] : spelling;
      const { service, handle } = quorumOfTwo();
      await handle.stored;
      expect(await service.respond(handle.id, approve, by(first))).toMatchObject({
        state: 'pending',
        quorum: { needed: 1 },
      });
      await expect(service.respond(handle.id, approve, by(second))).rejects.toMatchObject({
        code: 'INVALID_REQUEST',
        message: expect.stringContaining('has already responded'),
      });
      expect((await service.get(handle.id))?.state).toBe('pending');
      await service.close();
    });
  }

  for (const [how, [spelling, shown]] of Object.entries(INVISIBLY_DIFFERENT)) {
    it(`refuses the spelling with ${how}, naming the field and the character`, async () => {
      const { service, handle } = quorumOfTwo();
      await handle.stored;
      await service.respond(handle.id, approve, by('ana'));
      const refused = service.respond(handle.id, approve, by(spelling));
      await expect(refused).rejects.toMatchObject({
        code: 'INVALID_REQUEST',
        data: { field: 'by.recipient' },
      });
      await expect(refused).rejects.toThrow(
        `\`by.recipient\` holds the invisible character ${shown}`,
      );
      expect((await service.get(handle.id))?.state).toBe('pending');
      await service.close();
    });
  }

  it('still counts two real people twice, and records their ids as given', async () => {
    const { service, handle } = quorumOfTwo();
    await handle.stored;
    await service.respond(handle.id, approve, by('Ana'));
    const receipt = await service.respond(handle.id, approve, by('Anaïs'));
    expect(receipt.state).toBe('answered');
    const outcome = await handle.outcome;
    expect(outcome.status === 'answered' && outcome.responses?.map((each) => each.by)).toEqual([
      'Ana',
      'Anaïs',
    ]);
    await service.close();
  });

  it('records Ana as Ana, then counts ana and Аna (Cyrillic А) as the same person', async () => {
    const { service, handle } = quorumOfTwo();
    await handle.stored;
    await service.respond(handle.id, approve, by('Ana'));
    for (const spelling of ['ana', '\u0410na']) {
      await expect(service.respond(handle.id, approve, by(spelling))).rejects.toMatchObject({
        code: 'INVALID_REQUEST',
        message: expect.stringContaining(`${spelling} has already responded`),
      });
    }
    const stored = await service.get(handle.id);
    expect(stored?.state).toBe('pending');
    expect(stored?.quorum?.responded).toEqual(['Ana']);
    // A chat platform's case-sensitive id, kept as the platform spells it.
    const single = service.start({ question: 'Ship it?' });
    await single.stored;
    const outcome = await service.answer(
      single.id,
      [{ questionId: 'q1', response: { kind: 'freeform', text: 'yes' } }],
      { by: { recipient: 'U024BE7LH', channel: 'slack' } },
    );
    expect(outcome).toMatchObject({ answeredBy: { recipient: 'U024BE7LH' } });
    expect(
      (await service.list({ answeredBy: 'u024be7lh' })).items.map(({ askId }) => askId),
    ).toEqual([single.id]);
    await service.close();
  });

  it('refuses a quorum.from that names one person twice under two spellings', () => {
    const service = createInteractionService({ store: createMemoryAskStore() });
    service.registerProvider(manualProvider());
    expect(() =>
      service.start(deploy, { quorum: { required: 2, from: ['ana', '\u0410na', 'ben'] } }),
    ).toThrow('`quorum.from` names one person twice, as "ana" and "\u0410na"');
    expect(() =>
      service.start(deploy, { quorum: { required: 2, from: ['ana', 'ana\u200b'] } }),
    ).toThrow('`quorum.from[1]` holds the invisible character \\u200b');
  });

  it('lets a person in quorum.from respond under any spelling of their id, recorded as they gave it, and finds them by any', async () => {
    const service = createInteractionService({ store: createMemoryAskStore() });
    service.registerProvider(manualProvider());
    const handle = service.start(deploy, { quorum: { required: 1, from: ['Zoë'] } });
    await handle.stored;
    const receipt = await service.respond(handle.id, approve, by('ZOE\u0308'));
    expect(receipt.state).toBe('answered');
    expect(receipt.quorum?.responded).toEqual(['ZOE\u0308']);
    expect((await service.list({ answeredBy: 'zoë' })).items).toHaveLength(0); // a quorum's responses, not answeredBy
    const single = service.start({ question: 'Ship it?' });
    await single.stored;
    await service.answer(
      single.id,
      [{ questionId: 'q1', response: { kind: 'freeform', text: 'yes' } }],
      by('ZOË'),
    );
    expect((await service.list({ answeredBy: 'Zoe\u0308' })).items.map((ask) => ask.askId)).toEqual(
      [single.id],
    );
    await service.close();
  });
});
