/**
 * What the answer app lets a token do, and the headers and limits every response carries: in
 * memory, through `app.request`, with a real service and store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_BASE_URL, startAnswerApp, tokenOf } from './web-fixture.js';

type Web = ReturnType<typeof startAnswerApp>;
let web: Web;

beforeAll(() => {
  web = startAnswerApp();
});

afterAll(async () => {
  await web?.close();
});

const yesNo = { question: 'Deploy now?', options: ['Yes', 'No'] };
const chooseYes: [string, string][] = [
  ['action', 'submit'],
  ['q1.selection', 'option1'],
];

async function historyLength(askId: string): Promise<number> {
  let count = 0;
  for await (const _ of web.service.history(askId)) count++;
  return count;
}

/** Asserts that the ask is still pending with the same stored history. */
async function unchanged(askId: string, events: number): Promise<void> {
  expect((await web.service.get(askId))?.state).toBe('pending');
  expect(await historyLength(askId)).toBe(events);
}

describe('declining', () => {
  it('ends the ask cancelled by the person, and a second decline changes nothing', async () => {
    const { handle, link } = await web.ask(yesNo);
    const url = link.split('?')[0]!;
    const token = tokenOf(link);
    const declined = await web.post(url, [
      ['token', token],
      ['action', 'cancel'],
    ]);
    expect(declined.status).toBe(200);
    expect(await declined.text()).toContain('You declined to answer');
    expect(await handle.outcome).toMatchObject({ status: 'cancelled', reason: 'user' });
    const again = await web.post(url, [
      ['token', token],
      ['action', 'cancel'],
    ]);
    expect(again.status).toBe(409);
  });
});

describe('link tokens', () => {
  it('refuses a tampered token with 403 and changes nothing', async () => {
    const { handle, link } = await web.ask(yesNo);
    const events = await historyLength(handle.id);
    const token = tokenOf(link);
    // One character of the MAC changed (the middle one: every bit of it counts).
    const at = token.length - 20;
    const tampered = `${token.slice(0, at)}${token[at] === 'A' ? 'B' : 'A'}${token.slice(at + 1)}`;
    const page = await web.request(link.replace(token, tampered));
    expect(page.status).toBe(403);
    expect(await page.text()).not.toContain('Deploy now?');
    const post = await web.post(link, [['token', tampered], ...chooseYes]);
    expect(post.status).toBe(403);
    const missing = await web.post(link, chooseYes);
    expect(missing.status).toBe(403);
    // One token per link: the genuine one sent twice is no link of this app.
    const twice = await web.request(`${link}&t=${token}`);
    expect(twice.status).toBe(403);
    expect(await twice.text()).not.toContain('Deploy now?');
    await unchanged(handle.id, events);
    handle.cancel('user');
  });

  it('refuses a token for another ask, in either direction', async () => {
    const first = await web.ask(yesNo);
    const second = await web.ask(yesNo);
    const events = await historyLength(second.handle.id);
    const foreign = `${second.link.split('?')[0]}?t=${tokenOf(first.link)}`;
    expect((await web.request(foreign)).status).toBe(403);
    const post = await web.post(second.link, [['token', tokenOf(first.link)], ...chooseYes]);
    expect(post.status).toBe(403);
    await unchanged(second.handle.id, events);
    first.handle.cancel('user');
    second.handle.cancel('user');
  });

  it('refuses an expired token with 410', async () => {
    let now = Date.now();
    const short = startAnswerApp({ app: { linkTtlMs: 30_000, clock: { now: () => now } } });
    try {
      const { handle, link } = await short.ask(yesNo);
      expect((await short.request(link)).status).toBe(200);
      now += 30_000;
      expect((await short.request(link)).status).toBe(410);
      const post = await short.post(link, [['token', tokenOf(link)], ...chooseYes]);
      expect(post.status).toBe(410);
      expect(await post.text()).toContain('This link has expired');
      expect((await short.service.get(handle.id))?.state).toBe('pending');
      handle.cancel('user');
    } finally {
      await short.close();
    }
  });

  it('never makes a link that outlives the deadline of its ask', async () => {
    const { handle, link } = await web.ask(yesNo, { timeoutMs: 60_000 });
    const expiresAt = Number.parseInt(tokenOf(link).split('.')[0]!, 36);
    const deadlineAt = (await web.service.get(handle.id))?.deadlineAt;
    expect(deadlineAt).toBeTypeOf('number');
    expect(expiresAt).toBeLessThanOrEqual(deadlineAt!);
    handle.cancel('user');
  });

  it('answers once: a replayed post gets 409 and the outcome stays', async () => {
    const { handle, link } = await web.ask(yesNo);
    const body: [string, string][] = [['token', tokenOf(link)], ...chooseYes];
    const first = await web.post(link, body);
    expect(first.status).toBe(200);
    expect(await first.text()).toContain('Answer recorded');
    const events = await historyLength(handle.id);
    const replay = await web.post(link, [
      ['token', tokenOf(link)],
      ['action', 'submit'],
      ['q1.selection', 'option2'],
    ]);
    expect(replay.status).toBe(409);
    expect(await replay.text()).toContain('has been answered');
    expect(await handle.outcome).toEqual({
      status: 'answered',
      answers: [{ questionId: 'q1', response: { kind: 'selection', selections: ['Yes'] } }],
    });
    expect((await web.service.get(handle.id))?.outcome).toEqual(await handle.outcome);
    // The service refused the replay and recorded the attempt; the outcome did not move.
    const history: { type: string; data: unknown }[] = [];
    for await (const event of web.service.history(handle.id)) history.push(event);
    expect(history.length).toBe(events + 1);
    expect(history.at(-1)).toMatchObject({ type: 'late-answer', data: { source: 'answer' } });
    await expect(web.app.linkFor(handle.id)).rejects.toMatchObject({ code: 'ASK_SETTLED' });
  });

  it('refuses to make a link for an ask the store does not have', async () => {
    await expect(web.app.linkFor('no-such-ask')).rejects.toMatchObject({
      code: 'UNKNOWN_INTERACTION',
    });
  });
});

describe('responses', () => {
  it('carry a strict CSP, no referrer, nosniff and no cookie', async () => {
    const { handle, link } = await web.ask(yesNo);
    const response = await web.request(link);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('set-cookie')).toBeNull();
    const page = await response.text();
    // No inline script or style: every script has a src, no style element or attribute.
    expect(page.match(/<script(?![^>]*\bsrc=)[^>]*>/g)).toBeNull();
    expect(page).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i);
    expect(page).toContain(`<input type="hidden" name="token" value="${tokenOf(link)}">`);
    for (const asset of ['web.css', 'answer-page.js']) {
      const file = await web.request(`/assets/${asset}`);
      expect(file.status).toBe(200);
      expect(file.headers.get('x-content-type-options')).toBe('nosniff');
    }
    handle.cancel('user');
  });

  it('allow only the methods each path takes', async () => {
    const { handle, link } = await web.ask(yesNo);
    const put = await web.request(link, { method: 'PUT', body: 'x' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, HEAD, POST');
    expect((await web.request(`/assets/web.css`, { method: 'POST' })).status).toBe(405);
    expect((await web.request('/nothing-here')).status).toBe(404);
    handle.cancel('user');
  });

  it('refuse a body over the limit with 413 and a body of another type with 415', async () => {
    const { handle, link } = await web.ask(yesNo);
    const path = link.split('?')[0]!;
    const big = await web.post(path, [
      ['token', tokenOf(link)],
      ['q1.selection', 'x'.repeat(1024 * 1024)],
    ]);
    expect(big.status).toBe(413);
    expect(big.headers.get('connection')).toBe('close');
    expect(await big.text()).toContain('larger than this server accepts (1048576 bytes)');
    const json = await web.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: tokenOf(link) }),
    });
    expect(json.status).toBe(415);
    expect((await web.service.get(handle.id))?.state).toBe('pending');
    handle.cancel('user');
  });

  it('refuse a crafted post naming a field the form does not have, keeping the ask open', async () => {
    const { handle, link } = await web.ask(yesNo);
    const post = await web.post(link, [
      ['token', tokenOf(link)],
      ['action', 'submit'],
      ['q1.selection', 'option1'],
      ['q9.text', 'sneaky'],
    ]);
    expect(post.status).toBe(422);
    expect(await post.text()).toContain(
      'The answer could not be read as a reply to this form. Reload the page and answer again.',
    );
    expect((await web.service.get(handle.id))?.state).toBe('pending');
    handle.cancel('user');
  });
});

describe('escaping', () => {
  it('shows every text from the model and the request as inert text, never as markup', async () => {
    const evil = '<script>window.pwned=1</script>';
    const { handle, link } = await web.ask({
      question: `${evil} "quoted" & 'single'`,
      header: '<img src=x onerror=alert(1)>',
      context: '</textarea><b>bold</b>',
      options: [{ title: '"><svg onload=alert(1)>', description: evil }, 'No'],
    });
    const page = await (await web.request(link)).text();
    // Markup from the model appears only escaped, in text and in attributes alike.
    expect(page).not.toMatch(/<script>|<img |<svg |<b>|<\/textarea><b>/);
    expect(page).toContain(
      '&lt;script&gt;window.pwned=1&lt;/script&gt; &quot;quoted&quot; &amp; &#39;single&#39;',
    );
    expect(page).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(page).toContain('&quot;&gt;&lt;svg onload=alert(1)&gt;');
    // What the request carried is escaped where a refusal quotes it.
    const typed = await web.request(link.split('?')[0]!, {
      method: 'POST',
      headers: { 'content-type': 'text/<b>x</b>' },
      body: 'x',
    });
    expect(typed.status).toBe(415);
    const refusal = await typed.text();
    expect(refusal).toContain('got &quot;text/&lt;b&gt;x&lt;/b&gt;&quot;');
    expect(refusal).not.toContain('<b>x</b>');
    const unknown = await web.post(link, [
      ['token', tokenOf(link)],
      ['action', 'submit'],
      ['q1.selection', 'option1'],
      ['q1.<i>x</i>', '1'],
    ]);
    expect(unknown.status).toBe(422);
    expect(await unknown.text()).not.toContain('<i>x</i>');
    // The path is never echoed: an unknown page says only that it is not found.
    const missing = await (await web.request('/a/%3Cscript%3E?t=x')).text();
    expect(missing).not.toMatch(/<script>|&lt;script&gt;/);
    handle.cancel('user');
  });
});

describe('malformed answers', () => {
  it('refuse prototype names with 400 and keep the ask open, even next to a valid choice', async () => {
    for (const name of ['__proto__', 'constructor', 'prototype']) {
      const { handle, link } = await web.ask(yesNo);
      const events = await historyLength(handle.id);
      const post = await web.post(link, [
        ['token', tokenOf(link)],
        [name, 'x'],
        [name, 'y'],
        ...chooseYes,
      ]);
      expect(post.status).toBe(400);
      expect(await post.text()).toContain(`a field named &quot;${name}&quot;, which no form has`);
      await unchanged(handle.id, events);
      handle.cancel('user');
    }
  });

  it('refuse a field sent twice with 400 unless it is a multi-select choice', async () => {
    const { handle, link } = await web.ask(yesNo);
    const events = await historyLength(handle.id);
    const path = link.split('?')[0]!;
    const token = tokenOf(link);
    const twice: [string, string][][] = [
      [['token', token], ['token', token], ...chooseYes],
      [['token', token], ...chooseYes, ['action', 'submit']],
      [['token', token], ...chooseYes, ['q1.selection', 'option2']],
      [['token', token], ...chooseYes, ['q9.text', 'a'], ['q9.text', 'b']],
    ];
    for (const fields of twice) {
      const post = await web.post(path, fields);
      expect(post.status).toBe(400);
      expect(await post.text()).toMatch(
        /sends the field &quot;[a-z0-9.]+&quot; 2 times; it may be sent once/,
      );
    }
    await unchanged(handle.id, events);
    handle.cancel('user');

    const multi = await web.ask({
      question: 'Regions?',
      options: ['eu', 'us'],
      allowMultiple: true,
    });
    const both = await web.post(multi.link, [
      ['token', tokenOf(multi.link)],
      ['action', 'submit'],
      ['q1.selection', 'option1'],
      ['q1.selection', 'option2'],
    ]);
    expect(both.status).toBe(200);
    expect(await multi.handle.outcome).toMatchObject({
      answers: [{ response: { selections: ['eu', 'us'] } }],
    });
  });

  it('refuse more fields than any form has with 413 naming the cap, in time linear in the body', async () => {
    const { handle, link } = await web.ask(yesNo);
    const events = await historyLength(handle.id);
    const path = link.split('?')[0]!;
    const body = (count: number) => {
      const fields: [string, string][] = [['token', tokenOf(link)], ...chooseYes];
      for (let i = 0; i < count; i++) fields.push([`f${i}`, '1']);
      return new URLSearchParams(fields).toString();
    };
    /** One post of `count` extra fields, in ms. */
    const timed = async (text: string) => {
      const started = performance.now();
      const response = await web.request(path, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: text,
      });
      expect(response.status).toBe(413);
      expect(await response.text()).toContain('more than 270 fields, the most this server accepts');
      return performance.now() - started;
    };
    // The fastest of five rounds, the three sizes interleaved in each, so a burst of load on a
    // shared machine falls on all of them alike.
    const sizes = [2_000, 20_000, 90_000].map(body);
    const best = sizes.map(() => Number.POSITIVE_INFINITY);
    for (let round = 0; round < 5; round++) {
      for (const [index, text] of sizes.entries()) {
        best[index] = Math.min(best[index]!, await timed(text));
      }
    }
    const [small, ...large] = best as [number, number, number];
    // 45 times the fields: linear work stays within a generous 60 times the small body's
    // time; the quadratic reading this replaces took 2.5 s and 99 s.
    expect(large[1]!).toBeLessThan(60 * Math.max(small, 1));
    expect(large[0]!).toBeLessThan(60 * Math.max(small, 1));
    await unchanged(handle.id, events);
    handle.cancel('user');
  });
});

describe('options', () => {
  it('puts baseUrl in links, and answers HEAD without a body', async () => {
    const { handle, link } = await web.ask(yesNo);
    expect(link.startsWith(`${APP_BASE_URL}/a/${encodeURIComponent(handle.id)}?t=`)).toBe(true);
    const head = await web.request(link, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await head.text()).toBe('');
    handle.cancel('user');
  });

  it('refuses bad options with a TypeError that names the option and the value', async () => {
    const { createAnswerApp, createWebAnswerServer, createWebProvider } = await import(
      'ask-engine/web'
    );
    const base = { service: web.service, secret: 'x'.repeat(32), baseUrl: APP_BASE_URL };
    expect(() => createAnswerApp({ ...base, secret: 'short' })).toThrow(
      /`secret` to have at least 32 bytes, got 5/,
    );
    for (const baseUrl of [
      'asks.example',
      'https://user:pass@asks.example/',
      'https://asks.example/?team=1',
      'https://asks.example/#top',
    ]) {
      expect(() => createAnswerApp({ ...base, baseUrl })).toThrow(
        /`baseUrl` to be an http\(s\) URL without credentials, query or fragment/,
      );
    }
    expect(() => createAnswerApp({ ...base, operatorToken: 'short' })).toThrow(
      /`operatorToken` to have at least 16 characters, got 5/,
    );
    expect(() => createAnswerApp({ ...base, maxBodyBytes: 10 })).toThrow(
      /`maxBodyBytes` to be an integer from 1024 up, got 10/,
    );
    await expect(
      createWebAnswerServer({ service: web.service, secret: 'x'.repeat(32), port: 70_000 }),
    ).rejects.toThrow(/`port` to be an integer from 0 to 65535, got 70000/);
    expect(() => createWebProvider(web.app, { mode: 'later' as 'defer' })).toThrow(
      /`mode` to be "defer" or "pending", got "later"/,
    );
  });
});
