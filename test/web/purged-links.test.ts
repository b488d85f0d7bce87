/**
 * A link signed for an ask that was purged never opens or answers another ask: the next start
 * under the purged ask's key (whose id is the key's hash) is refused instead of reusing the id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnswerApp, tokenOf } from './web-fixture.js';

type Web = ReturnType<typeof startAnswerApp>;
let web: Web;

beforeAll(() => {
  web = startAnswerApp();
});

afterAll(async () => {
  await web?.close();
});

describe('a link signed before its ask was purged', () => {
  it('neither shows nor answers the next ask started under the same key', async () => {
    const first = await web.ask(
      { question: 'Delete the staging database?', options: ['Yes', 'No'] },
      { key: 'step-7' },
    );
    await web.service.cancel(first.handle.id);
    expect(await first.handle.outcome).toMatchObject({ status: 'cancelled' });
    expect(await web.service.purge({ finalBefore: Date.now() + 1_000 })).toBe(1);

    const next = web.service.start(
      { question: 'Delete the production database?', options: ['Yes', 'No'] },
      { key: 'step-7' },
    );
    expect(next.id).toBe(first.handle.id);
    const refused = {
      code: 'INVALID_REQUEST',
      message: expect.stringContaining('Key "step-7" named ask'),
    };
    await expect(next.stored).rejects.toMatchObject(refused);
    await expect(next.outcome).rejects.toMatchObject(refused);
    expect(await web.service.get(first.handle.id)).toBeUndefined();

    const page = await web.request(first.link);
    expect(page.status).not.toBe(200);
    expect(await page.text()).not.toContain('production');
    const answered = await web.post(first.link, [
      ['token', tokenOf(first.link)],
      ['action', 'submit'],
      ['q1.selection', 'option1'],
    ]);
    expect(answered.status).not.toBe(200);
    expect(await web.service.get(first.handle.id)).toBeUndefined();
  });
});
