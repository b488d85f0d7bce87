/**
 * A recipient's inbox (`server.inboxLinkFor({ recipient })`), over real HTTP on a SQLite store
 * with the notify provider: it lists the open asks a notification reached that person about,
 * never anyone else's, each with their own answer link; a changed or expired link is refused;
 * opening it changes nothing; under `redact: true` it shows no answers. One check in Chromium.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AskStore, createInteractionService, type InteractionService } from 'ask-engine';
import { createNotifyProvider, type Notification, type NotifyProvider } from 'ask-engine/notify';
import { createSqliteAskStore } from 'ask-engine/sqlite';
import { createWebAnswerServer, type WebAnswerServer } from 'ask-engine/web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECIPIENT_INBOX_PAGE_SIZE } from '../../src/web/recipient-inbox.js';
import { launchChromium, tokenOf } from './web-fixture.js';

let dir: string;
let store: AskStore;
let service: InteractionService;
let server: WebAnswerServer;
let provider: NotifyProvider;
const sent: Notification[] = [];
/** Who each question is sent to (the notify route), by the question's text. */
const routes = new Map<string, string[]>();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'recipient-inbox-'));
  store = createSqliteAskStore({ path: join(dir, 'asks.db') });
  service = createInteractionService({ store, redact: true });
  server = await createWebAnswerServer({ service, secret: 'k'.repeat(32) });
  provider = createNotifyProvider({
    server,
    store,
    channels: [{ name: 'email', send: async (notification) => void sent.push(notification) }],
    route: (request) =>
      (routes.get(request.questions[0]!.question) ?? []).map((id) => ({
        id,
        channel: 'email',
        address: `${id}@example.com`,
      })),
    // Not due during the tests: the lead is not told, so their inbox stays empty.
    escalation: [
      {
        afterMs: 3_600_000,
        route: () => [{ id: 'lead', channel: 'email', address: 'lead@example.com' }],
      },
    ],
    delivery: { pollMs: 60_000 },
  });
  service.registerProvider(provider);
});

afterAll(async () => {
  await provider?.close();
  await server?.close();
  await service?.close();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Asks `question` of `recipients` and sends the notifications; resolves with the ask id. */
async function askOf(question: string, recipients: string[]): Promise<string> {
  routes.set(question, recipients);
  const handle = service.start({ question, options: ['Yes', 'No'], allowFreeform: true });
  expect(await handle.outcome).toMatchObject({ status: 'deferred' });
  await provider.flush();
  return handle.id;
}

const rowIds = (page: string) => [...page.matchAll(/<tr data-ask="([^"]+)"/g)].map((m) => m[1]!);
const answerLinks = (page: string, base: string) =>
  [...page.matchAll(/<a class="answer" href="([^"]+)"/g)].map(
    (m) => new URL(m[1]!.replaceAll('&amp;', '&'), `${base}/inbox`).href,
  );

async function inbox(link: string): Promise<{ status: number; page: string }> {
  const response = await fetch(link);
  return { status: response.status, page: await response.text() };
}

/** Every ask's version and history length: what a GET must leave as it was. */
async function storeState(): Promise<string> {
  const { items } = await service.list({}, { limit: 1_000 });
  const state: string[] = [];
  for (const ask of items) {
    let events = 0;
    for await (const _ of service.history(ask.askId)) events++;
    state.push(`${ask.askId}:${ask.version}:${events}`);
  }
  return state.join(',');
}

describe('a recipient’s inbox', () => {
  let onlyAlice: string;
  let onlyBob: string;
  let both: string;
  let settled: string;

  beforeAll(async () => {
    onlyAlice = await askOf('Deploy the billing service?', ['alice']);
    onlyBob = await askOf('Rotate the database password?', ['bob']);
    both = await askOf('Ship release 4.2?', ['alice', 'bob']);
    settled = await askOf('Close the incident?', ['alice', 'bob']);
    await service.answer(
      settled,
      [{ questionId: 'q1', response: { kind: 'freeform', text: 'x' } }],
      {
        by: { recipient: 'bob' },
      },
    );
    expect(sent.filter((n) => n.kind === 'created').map((n) => n.recipient.id)).toHaveLength(6);
  });

  it('shows two recipients only their own open asks, newest first', async () => {
    const alice = await inbox(server.inboxLinkFor({ recipient: 'alice' }));
    expect(alice.status).toBe(200);
    expect(rowIds(alice.page)).toEqual([both, onlyAlice]);
    expect(alice.page).toContain('Deploy the billing service?');
    expect(alice.page).not.toContain('Rotate the database password?');
    const bob = await inbox(server.inboxLinkFor({ recipient: 'bob', channel: 'email' }));
    expect(rowIds(bob.page)).toEqual([both, onlyBob]);
    expect(bob.page).not.toContain('Deploy the billing service?');
    // Another spelling of alice's id is alice (ids are compared in their canonical form).
    expect(rowIds((await inbox(server.inboxLinkFor({ recipient: 'Alice' }))).page)).toEqual([
      both,
      onlyAlice,
    ]);
    // The lead's escalation is not due, and carol and alicia were never told of anything.
    for (const recipient of ['lead', 'carol', 'alicia']) {
      const { status, page } = await inbox(server.inboxLinkFor({ recipient }));
      expect(status, recipient).toBe(200);
      expect(rowIds(page), recipient).toEqual([]);
      expect(page, recipient).toContain('Nothing is waiting for you.');
    }
  });

  it('links each ask to the recipient’s own answer page, which records them as who answered', async () => {
    const link = server.inboxLinkFor({ recipient: 'bob', channel: 'email' });
    const links = answerLinks((await inbox(link)).page, server.url);
    expect(links).toHaveLength(2);
    for (const answer of links) {
      const page = await (await fetch(answer)).text();
      expect(page).toContain('you answer as <strong>bob</strong>');
    }
    const onlyBobLink = links.find((answer) => answer.includes(`/a/${onlyBob}?`))!;
    const response = await fetch(onlyBobLink.split('?')[0]!, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams([
        ['token', tokenOf(onlyBobLink)],
        ['action', 'submit'],
        ['q1.mode', 'text'],
        ['q1.text', 'typed-by-bob-7f3a'],
      ]).toString(),
    });
    expect(response.status).toBe(200);
    expect((await service.get(onlyBob))?.outcome).toMatchObject({
      status: 'answered',
      answeredBy: { recipient: 'bob', channel: 'email' },
    });
    // Answered, it leaves the inbox; under redaction nothing shows what was typed.
    const after = (await inbox(link)).page;
    expect(rowIds(after)).toEqual([both]);
    expect(after).not.toContain('typed-by-bob-7f3a');
    const answeredByBob = await service.list({ answeredBy: 'bob' });
    expect(answeredByBob.items.map((ask) => ask.askId)).toEqual([settled, onlyBob]);
  });

  it('refuses a changed, foreign, missing or expired token with a page that says so', async () => {
    const link = server.inboxLinkFor({ recipient: 'alice' });
    const token = tokenOf(link);
    const [expiry, , mac] = token.split('.') as [string, string, string];
    const bob = Buffer.from('bob').toString('base64url');
    const answerLink = await server.linkFor(both, { recipient: 'alice' });
    const refused = [
      `${expiry}.${bob}.${mac}`,
      // The recipient dropped, or the expiry moved.
      `${expiry}.${mac}`,
      `${(Number.parseInt(expiry, 36) + 1).toString(36)}.${token.split('.')[1]}.${mac}`,
      // An answer link's token opens no inbox.
      tokenOf(answerLink),
      'not-a-token',
    ];
    for (const tampered of refused) {
      const { status, page } = await inbox(`${server.url}/inbox?t=${tampered}`);
      expect(status, tampered).toBe(403);
      expect(page).toContain('This link is not valid');
      expect(rowIds(page)).toEqual([]);
    }
    expect((await inbox(`${server.url}/inbox`)).status).toBe(403);
    expect((await inbox(`${link}&t=${token}`)).status).toBe(403);
    const expiring = server.inboxLinkFor({ recipient: 'alice' }, { ttlMs: 1 });
    await new Promise((resolve) => setTimeout(resolve, 10));
    const expired = await inbox(expiring);
    expect(expired.status).toBe(410);
    expect(expired.page).toContain('This link has expired');
    expect(rowIds(expired.page)).toEqual([]);
    const badCursor = await inbox(`${link}&cursor=nope`);
    expect(badCursor.status).toBe(400);
    expect(badCursor.page).toContain('cursor');
  });

  it('refuses to make a link for a recipient service.answer would refuse', () => {
    expect(() => server.inboxLinkFor({ recipient: '' })).toThrow(
      expect.objectContaining({ code: 'INVALID_REQUEST' }),
    );
    expect(() => server.inboxLinkFor({ recipient: 'eve' }, { ttlMs: 0 })).toThrow(/`ttlMs`/);
  });

  it('changes nothing when opened, and takes no other method', async () => {
    const before = await storeState();
    const link = server.inboxLinkFor({ recipient: 'alice' });
    for (let n = 0; n < 3; n++) expect((await fetch(link)).status).toBe(200);
    expect((await fetch(link, { method: 'HEAD' })).status).toBe(200);
    const post = await fetch(link, { method: 'POST', body: 'x=1' });
    expect(post.status).toBe(405);
    expect(await storeState()).toBe(before);
  });

  it('carries the strict headers of every page: its token leaks through no referrer', async () => {
    const response = await fetch(server.inboxLinkFor({ recipient: 'alice' }));
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(response.headers.get('set-cookie')).toBeNull();
    expect(await response.text()).not.toMatch(/<script(?![^>]*\bsrc=)|<style|\sstyle=/i);
  });

  it('pages with the list’s cursor, 50 at a time, each ask once', async () => {
    const question = (n: number) => `Approve change ${n}?`;
    const ids: string[] = [];
    for (let n = 0; n < RECIPIENT_INBOX_PAGE_SIZE + 3; n++) {
      routes.set(question(n), ['pager']);
      const handle = service.start({ question: question(n), options: ['Yes', 'No'] });
      await handle.outcome;
      ids.push(handle.id);
    }
    await provider.flush();
    const seen: string[] = [];
    let link: string | undefined = server.inboxLinkFor({ recipient: 'pager' });
    let pages = 0;
    while (link !== undefined) {
      const { status, page } = await inbox(link);
      expect(status).toBe(200);
      seen.push(...rowIds(page));
      const more = /<a href="(inbox\?[^"]+)">More<\/a>/.exec(page);
      link = more === null ? undefined : `${server.url}/${more[1]!.replaceAll('&amp;', '&')}`;
      pages++;
    }
    expect(pages).toBe(2);
    expect(seen).toEqual(ids.reverse());
  });

  it('renders in Chromium and its answer link opens the recipient’s answer page', async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.context.newPage();
      expect((await page.goto(server.inboxLinkFor({ recipient: 'alice' })))?.status()).toBe(200);
      expect(await page.locator('h1').textContent()).toBe('Questions waiting for you');
      await expect.poll(() => page.locator('#inbox tbody tr').count()).toBe(2);
      await page.locator(`tr[data-ask="${both}"] a.answer`).click();
      await expect.poll(() => new URL(page.url()).pathname).toBe(`/a/${both}`);
      expect(await page.locator('main').textContent()).toContain('Ship release 4.2?');
      expect(await page.locator('.answering-as').textContent()).toContain('alice');
      await expect(page.getByRole('button', { name: 'Send answer' }).isVisible()).resolves.toBe(
        true,
      );
    } finally {
      await browser.close();
    }
  });
});
