/**
 * A recipient's own link (`server.linkFor(askId, { recipient, channel })`): an answer through it
 * records who answered, over real HTTP and in Debian's Chromium; a link whose recipient was
 * changed is refused and changes nothing.
 */
import type { AskAuditEvent } from 'ask-engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, startWebService, tokenOf } from './web-fixture.js';

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

const yesNo = { question: 'Deploy now?', options: ['Yes', 'No'] };
const yes = [{ questionId: 'q1', response: { kind: 'selection', selections: ['Yes'] } }];

/** Posts "Yes" to the page of `link` over HTTP, with `token` (the link's own by default). */
function postYes(link: string, token = tokenOf(link)): Promise<Response> {
  return fetch(link.split('?')[0]!, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams([
      ['token', token],
      ['action', 'submit'],
      ['q1.selection', 'option1'],
    ]).toString(),
  });
}

async function history(askId: string): Promise<AskAuditEvent[]> {
  const events: AskAuditEvent[] = [];
  for await (const event of web.service.history(askId)) events.push(event);
  return events;
}

describe('a recipient’s link', () => {
  it('records the recipient and the link’s channel in the outcome and the answer event', async () => {
    const { handle } = await web.ask(yesNo);
    const by = { recipient: 'alice@example.com', channel: 'email' };
    const link = await web.server.linkFor(handle.id, by);
    const response = await postYes(link);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('alice@example.com');
    expect(await handle.outcome).toEqual({ status: 'answered', answers: yes, answeredBy: by });
    expect((await web.service.get(handle.id))?.outcome).toEqual(await handle.outcome);
    const answered = (await history(handle.id)).find((event) => event.type === 'answer');
    expect(answered?.data).toEqual({ answers: yes, answeredBy: by });
  });

  it('records channel "web" when the link names none', async () => {
    const { handle } = await web.ask(yesNo);
    const link = await web.server.linkFor(handle.id, { recipient: 'bob' });
    expect((await postYes(link)).status).toBe(200);
    expect(await handle.outcome).toMatchObject({
      answeredBy: { recipient: 'bob', channel: 'web' },
    });
  });

  it('refuses a link whose recipient was changed, with 403, and changes nothing', async () => {
    const { handle } = await web.ask(yesNo);
    const alice = await web.server.linkFor(handle.id, { recipient: 'alice', channel: 'email' });
    const mallory = Buffer.from('mallory', 'utf8').toString('base64url');
    const token = tokenOf(alice);
    const [expiry, , channel, mac] = token.split('.') as [string, string, string, string];
    const forged = [
      `${expiry}.${mallory}.${channel}.${mac}`,
      // The recipient dropped: the same MAC as an unbound link.
      `${expiry}.${mac}`,
      // Another channel for the same recipient.
      `${expiry}.${token.split('.')[1]}.${Buffer.from('web').toString('base64url')}.${mac}`,
    ];
    const before = (await history(handle.id)).length;
    for (const tampered of forged) {
      expect((await fetch(alice.replace(token, tampered))).status).toBe(403);
      expect((await postYes(alice, tampered)).status).toBe(403);
    }
    expect((await web.service.get(handle.id))?.state).toBe('pending');
    expect((await history(handle.id)).length).toBe(before);
    handle.cancel('user');
  });

  it('refuses to make a link for a recipient service.answer would refuse, naming the field', async () => {
    const { handle } = await web.ask(yesNo);
    await expect(web.server.linkFor(handle.id, { recipient: '' })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      message: expect.stringContaining('Expected `recipient` to be a non-empty string'),
    });
    await expect(
      web.server.linkFor(handle.id, { recipient: 'eve', channel: 'e\u0007mail' }),
    ).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      message: expect.stringContaining('`channel` contains the control character \\x07'),
    });
    handle.cancel('user');
  });

  it('shows whom the link is for and records them when answered in Chromium', async () => {
    const { handle } = await web.ask(yesNo);
    // Recorded and shown as the id was given (ids are compared by their keys, never rewritten).
    const recipient = 'Zoë <zoe@example.com>';
    const link = await web.server.linkFor(handle.id, { recipient, channel: 'email' });
    const page = await browser.context.newPage();
    try {
      expect((await page.goto(link))?.status()).toBe(200);
      expect(await page.locator('.answering-as').textContent()).toContain(recipient);
      await page.getByLabel('No', { exact: true }).check();
      await page.getByRole('button', { name: 'Send answer' }).click();
      await expect.poll(() => page.locator('h1').textContent()).toBe('Answer recorded');
      expect(await page.locator('.answered-by').textContent()).toBe(recipient);
    } finally {
      await page.close();
    }
    expect(await handle.outcome).toEqual({
      status: 'answered',
      answers: [{ questionId: 'q1', response: { kind: 'selection', selections: ['No'] } }],
      answeredBy: { recipient, channel: 'email' },
    });
  });
});
