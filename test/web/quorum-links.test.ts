/**
 * A 2-of-3 approval over recipients' links (issue 18 with the web answer server): each page
 * shows who has responded and how many more are needed (names only), a response is recorded
 * as its link's recipient, the same person twice and someone outside `from` change nothing, a
 * link naming nobody cannot respond, and a veto racing the last approval ends the ask once.
 * Over real HTTP, and once in Debian's Chromium.
 */
import type { AskAuditEvent } from 'ask-engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, OPERATOR_TOKEN, startWebService, tokenOf } from './web-fixture.js';

type Chromium = Awaited<ReturnType<typeof launchChromium>>;
type Web = Awaited<ReturnType<typeof startWebService>>;

let browser: Chromium;
let web: Web;

beforeAll(async () => {
  [browser, web] = await Promise.all([launchChromium(), startWebService()]);
});

afterAll(async () => {
  await Promise.all([browser?.close(), web?.close()]);
});

const change = {
  question: 'Run the schema migration on the payments database?',
  options: ['Approve', 'Deny'],
};
const quorum = { required: 2, from: ['ana', 'ben', 'cy'], veto: ['Deny'] };
const option = { Approve: 'option1', Deny: 'option2' } as const;

function post(link: string, title: keyof typeof option, token = tokenOf(link)) {
  return fetch(link.split('?')[0]!, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams([
      ['token', token],
      ['action', 'submit'],
      ['q1.selection', option[title]],
    ]).toString(),
  });
}

async function linksFor(askId: string, people: string[]): Promise<Record<string, string>> {
  const links: Record<string, string> = {};
  for (const recipient of people) {
    links[recipient] = await web.server.linkFor(askId, { recipient, channel: 'email' });
  }
  return links;
}

async function history(askId: string): Promise<AskAuditEvent[]> {
  const events: AskAuditEvent[] = [];
  for await (const event of web.service.history(askId)) events.push(event);
  return events;
}

describe('a quorum ask over recipients’ links', () => {
  it('takes 2 of 3 approvals, showing each person who has responded and how many more', async () => {
    const { handle } = await web.ask(change, { quorum });
    const links = await linksFor(handle.id, ['ana', 'ben', 'cy']);
    const first = await post(links.ana!, 'Approve');
    expect(first.status).toBe(200);
    const recorded = await first.text();
    expect(recorded).toContain('Response recorded');
    expect(recorded).toContain('Responded so far: ana. 1 more response needed.');
    // Ben's page shows the standing, by name only.
    const page = await (await fetch(links.ben!)).text();
    expect(page).toContain(
      'Needs 2 people of ana, ben, cy giving the same answer; picking Deny ends it at once.',
    );
    expect(page).toContain('Responded so far: ana.');
    expect(page).not.toContain('Decline to answer');
    // Ana again: refused, counted once.
    const again = await post(links.ana!, 'Approve');
    expect(again.status).toBe(409);
    expect(await again.text()).toContain('You have already responded');
    expect((await fetch(links.ana!)).status).toBe(409);
    expect((await post(links.ben!, 'Approve')).status).toBe(200);
    const outcome = await handle.outcome;
    expect(outcome).toMatchObject({ status: 'answered' });
    if (outcome.status !== 'answered') throw new Error('not answered');
    expect(outcome.responses?.map((each) => each.by)).toEqual(['ana', 'ben']);
    // Cy's link now says who decided it, never what.
    const settled = await (await fetch(links.cy!)).text();
    expect(settled).toContain('It was decided by the responses of ana, ben');
    // The operator inbox names who decided it.
    const inbox = await (
      await fetch(new URL(`../../asks?token=${OPERATOR_TOKEN}&state=answered`, links.cy!))
    ).text();
    expect(inbox).toMatch(
      new RegExp(`data-ask="${handle.id}".*<td class="answered-by">ana, ben</td>`),
    );
    const types = (await history(handle.id)).map((event) => event.type);
    expect(types.filter((type) => type.startsWith('response.'))).toEqual([
      'response.recorded',
      'response.refused',
      'response.recorded',
    ]);
  });

  it('refuses a link naming someone outside from, and a link naming nobody', async () => {
    const { handle, link } = await web.ask(change, { quorum });
    const eve = await web.server.linkFor(handle.id, { recipient: 'eve', channel: 'email' });
    const outsider = await post(eve, 'Approve');
    expect(outsider.status).toBe(409);
    expect(await outsider.text()).toContain('eve is not among the people who may respond');
    const shown = await fetch(eve);
    expect(shown.status).toBe(403);
    expect(await shown.text()).toContain('eve is not among the people who decide this question');
    // The provider's own link names nobody: it cannot respond to a quorum ask.
    const unnamed = await fetch(link);
    expect(unnamed.status).toBe(403);
    expect(await unnamed.text()).toContain('This question needs your own link');
    expect((await post(link, 'Approve')).status).toBe(403);
    expect((await web.service.get(handle.id))?.quorum?.responded).toEqual([]);
    expect((await history(handle.id)).at(-1)?.data).toEqual({ by: 'eve', reason: 'not-allowed' });
    handle.cancel();
  });

  it('lets a link spelling an id of from another way respond, recorded as the link spells it, and counts it once', async () => {
    const { handle } = await web.ask(change, { quorum });
    // Ana's id as her chat platform spells it, and once more with a Cyrillic А.
    const [ana, cyrillic] = await Promise.all(
      ['Ana', '\u0410na'].map((recipient) =>
        web.server.linkFor(handle.id, { recipient, channel: 'email' }),
      ),
    );
    expect((await fetch(ana!)).status).toBe(200);
    expect((await post(ana!, 'Approve')).status).toBe(200);
    expect((await web.service.get(handle.id))?.quorum?.responded).toEqual(['Ana']);
    const shown = await fetch(cyrillic!);
    expect(shown.status).toBe(409);
    expect(await shown.text()).toContain('You have already responded');
    expect((await post(cyrillic!, 'Approve')).status).toBe(409);
    expect((await web.service.get(handle.id))?.quorum?.responded).toEqual(['Ana']);
    handle.cancel();
  });

  it('ends once when a veto races the last approval', async () => {
    for (let round = 0; round < 5; round++) {
      const { handle } = await web.ask(change, { quorum });
      const links = await linksFor(handle.id, ['ana', 'ben', 'cy']);
      await post(links.ana!, 'Approve');
      const [approve, veto] = await Promise.all([
        post(links.ben!, 'Approve'),
        post(links.cy!, 'Deny'),
      ]);
      const outcome = await handle.outcome;
      expect(outcome.status).toBe('answered');
      if (outcome.status !== 'answered') throw new Error('not answered');
      const events = await history(handle.id);
      const finals = events.filter((event) => event.to === 'answered' && event.from !== 'answered');
      expect(finals).toHaveLength(1);
      // Whichever came first decided; the other was told it came too late.
      if (outcome.vetoedBy === 'cy') {
        expect(outcome.answers[0]?.response).toEqual({ kind: 'selection', selections: ['Deny'] });
        expect(approve.status).toBe(409);
        expect(veto.status).toBe(200);
      } else {
        expect(outcome.responses?.map((each) => each.by)).toEqual(['ana', 'ben']);
        expect(approve.status).toBe(200);
        expect(veto.status).toBe(409);
      }
    }
  });

  it('answers in Chromium through a recipient’s link, with the standing on the page', async () => {
    const { handle } = await web.ask(change, { quorum });
    const links = await linksFor(handle.id, ['ana', 'ben']);
    await post(links.ana!, 'Approve');
    const page = await browser.context.newPage();
    await page.goto(links.ben!);
    await expect
      .poll(() => page.locator('#quorum').innerText())
      .toContain('Responded so far: ana.');
    await page.getByLabel('Approve', { exact: true }).check();
    await page.getByRole('button', { name: 'Send answer' }).click();
    await page.waitForURL(/./);
    await expect.poll(() => page.locator('h1').innerText()).toBe('Response recorded');
    expect(await handle.outcome).toMatchObject({
      status: 'answered',
      responses: [{ by: 'ana' }, { by: 'ben' }],
    });
    await page.close();
  });
});
