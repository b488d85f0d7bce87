/**
 * The operator inbox at /asks reads the store: asks of every service on it (not only those seen
 * since the server started), waiting ones first, filtered by state and paged; bad queries named.
 */
import { createInteractionService, createMemoryAskStore, createScriptedProvider } from 'ask-engine';
import { describe, expect, it } from 'vitest';
import { OPERATOR_TOKEN, startAnswerApp } from './web-fixture.js';

const rowIds = (page: string, table: string) => {
  const section = page.split(`<table id="${table}"`)[1]?.split('</table>')[0] ?? '';
  return [...section.matchAll(/<tr data-ask="([^"]+)"/g)].map((match) => match[1]!);
};

describe('the operator inbox', () => {
  it('lists the store’s asks written before the app existed: waiting first, then outcomes, newest first', async () => {
    const store = createMemoryAskStore();
    const earlier = createInteractionService({ store });
    earlier.registerProvider(
      createScriptedProvider([
        { defer: 'thread-1' },
        { answer: [{ questionId: 'q1', response: { kind: 'selection', selections: ['Yes'] } }] },
        { defer: 'thread-2' },
      ]),
    );
    const first = earlier.start({ question: 'First?', options: ['Yes', 'No'] });
    await first.outcome;
    const answered = earlier.start({ question: 'Answered?', options: ['Yes', 'No'] });
    await answered.outcome;
    const third = earlier.start({ question: 'Third <b>?', options: ['Yes', 'No'] });
    await third.outcome;
    await earlier.close();

    const web = startAnswerApp({ store });
    try {
      const response = await web.app.request(`/asks?token=${OPERATOR_TOKEN}`);
      expect(response.status).toBe(200);
      const page = await response.text();
      expect(rowIds(page, 'waiting')).toEqual([third.id, first.id]);
      expect(rowIds(page, 'settled')).toEqual([answered.id]);
      expect(page).toContain('Third &lt;b&gt;?');
      expect(page).not.toContain('Third <b>?');
    } finally {
      await web.close();
    }
  });

  it('filters by state and pages with the list’s cursor, each ask once', async () => {
    const web = startAnswerApp();
    try {
      const ids: string[] = [];
      for (let i = 0; i < 7; i++) {
        const { handle } = await web.ask({ question: `Ask ${i}?`, options: ['Yes', 'No'] });
        ids.push(handle.id);
      }
      await web.service.cancel(ids[0]!, 'user');
      const seen: string[] = [];
      let path: string | undefined = `/asks?token=${OPERATOR_TOKEN}&state=pending&limit=2`;
      let pages = 0;
      while (path !== undefined) {
        const page = await (await web.app.request(path)).text();
        seen.push(...rowIds(page, 'asks'));
        const next = /<a href="asks(\?[^"]+)">(?:Next page|More)<\/a>/.exec(page);
        path = next === null ? undefined : `/asks${next[1]!.replaceAll('&amp;', '&')}`;
        pages++;
      }
      expect(pages).toBe(3);
      expect(seen).toEqual(ids.slice(1).reverse());
      const cancelled = await (
        await web.app.request(`/asks?token=${OPERATOR_TOKEN}&state=cancelled`)
      ).text();
      expect(rowIds(cancelled, 'asks')).toEqual([ids[0]]);
    } finally {
      await web.close();
    }
  });

  it('refuses a bad query with 400 naming what was wrong', async () => {
    const web = startAnswerApp();
    try {
      const cases: [string, RegExp][] = [
        ['&state=waiting', /Unknown state &quot;waiting&quot;/],
        ['&limit=0', /\?limit= must be a whole number from 1 to 200, got &quot;0&quot;/],
        ['&limit=1e3', /got &quot;1e3&quot;/],
        ['&cursor=abc', /give its \?state= too/],
        ['&state=pending&cursor=not-a-cursor', /cursor/i],
      ];
      for (const [query, message] of cases) {
        const response = await web.app.request(`/asks?token=${OPERATOR_TOKEN}${query}`);
        expect(response.status, query).toBe(400);
        expect(await response.text(), query).toMatch(message);
      }
      expect((await web.app.request('/asks?state=pending')).status).toBe(403);
    } finally {
      await web.close();
    }
  });
});
