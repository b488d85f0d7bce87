/**
 * The answer app mounted under a path prefix of another server: a Hono app, an Express app
 * and a bare node:http server, each reached at a public address (`baseUrl`) that differs from
 * where the app sees its requests. A person follows the link, the page's relative links lead
 * to its script and its form's target, and the answer is recorded.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { createInteractionService, createMemoryAskStore } from 'ask-engine';
import { type AnswerApp, createAnswerApp, createWebProvider } from 'ask-engine/web';
import express from 'express';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { OPERATOR_TOKEN } from './web-fixture.js';

type Send = (url: string, init?: RequestInit) => Promise<Response>;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A service whose asks wait on the app's links; `app` gets `baseUrl`. */
function answering(baseUrl: string) {
  const service = createInteractionService({ store: createMemoryAskStore() });
  const app = createAnswerApp({
    service,
    secret: randomBytes(32),
    baseUrl,
    operatorToken: OPERATOR_TOKEN,
  });
  const links: string[] = [];
  service.registerProvider(
    createWebProvider(app, { mode: 'pending', notify: (link) => void links.push(link) }),
  );
  cleanups.push(async () => {
    app.close();
    await service.close();
  });
  return { service, app, links };
}

/**
 * Follows a link as a browser would, through `send` at `internal` (the public address
 * `publicBase` maps to it, as a proxy would): page, script, form post; then the operator view.
 */
async function answerThrough(
  web: ReturnType<typeof answering>,
  send: Send,
  publicBase: string,
  internal: string,
) {
  const handle = web.service.start({ question: 'Deploy now?', options: ['Yes', 'No'] });
  await expect.poll(() => web.links.length).toBe(1);
  const link = web.links[0]!;
  expect(link.startsWith(`${publicBase}/a/${encodeURIComponent(handle.id)}?t=`)).toBe(true);
  const pageUrl = internal + link.slice(publicBase.length);
  const page = await send(pageUrl);
  expect(page.status).toBe(200);
  const html = await page.text();

  const script = new URL(/<script type="module" src="([^"]+)"/.exec(html)![1]!, pageUrl);
  expect(script.pathname.startsWith(new URL(internal).pathname)).toBe(true);
  const asset = await send(script.href);
  expect(asset.status).toBe(200);
  expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');

  const action = new URL(/<form method="post" action="([^"]+)"/.exec(html)![1]!, pageUrl);
  const token = /name="token" value="([^"]+)"/.exec(html)![1]!;
  const posted = await send(action.href, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams([
      ['token', token],
      ['action', 'submit'],
      ['q1.selection', 'option1'],
    ]).toString(),
  });
  expect(posted.status).toBe(200);
  expect(await posted.text()).toContain('Answer recorded');
  expect(await handle.outcome).toEqual({
    status: 'answered',
    answers: [{ questionId: 'q1', response: { kind: 'selection', selections: ['Yes'] } }],
  });

  const list = await send(`${internal}/asks?token=${OPERATOR_TOKEN}`);
  expect(list.status).toBe(200);
  const listed = await list.text();
  const askPage = new URL(
    new RegExp(`href="(asks/${handle.id}[^"]*)"`).exec(listed)![1]!.replaceAll('&amp;', '&'),
    `${internal}/asks`,
  );
  const history = await send(askPage.href);
  expect(history.status).toBe(200);
  expect(await history.text()).toContain('pending → answered');
}

/** Listens on loopback and resolves the server's address. */
async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The app as a node:http listener; the process keeps Node's own Request and Response. */
function nodeListener(app: AnswerApp) {
  return getRequestListener((request) => app.fetch(request), { overrideGlobalObjects: false });
}

describe('mounting the answer app', () => {
  it('under a path prefix of a Hono app, behind a proxy', async () => {
    const web = answering('https://asks.example.test/answers/');
    const site = new Hono();
    site.get('/', (c) => c.text('the host app'));
    site.route('/answers', web.app);
    const send: Send = async (url, init) => site.request(url, init);
    await answerThrough(
      web,
      send,
      'https://asks.example.test/answers',
      'http://host.local/answers',
    );
    expect(await (await site.request('/')).text()).toBe('the host app');
    // Outside the prefix the host app answers, not the answer app.
    expect((await site.request('/a/some-ask')).status).toBe(404);
  });

  it('in an Express app', async () => {
    let listener: ReturnType<typeof nodeListener> | undefined;
    const site = express();
    site.get('/', (_request, response) => {
      response.send('the host app');
    });
    site.use('/answers', (request, response) => void listener!(request, response));
    const origin = await listen(createServer(site));
    const web = answering(`${origin}/answers`);
    listener = nodeListener(web.app);
    await answerThrough(web, fetch, `${origin}/answers`, `${origin}/answers`);
    expect(await (await fetch(origin)).text()).toBe('the host app');
  });

  it('in a bare node:http server', async () => {
    let listener: ReturnType<typeof nodeListener> | undefined;
    const handle = (request: IncomingMessage, response: ServerResponse) => {
      const url = request.url ?? '/';
      if (url.startsWith('/answers/')) {
        request.url = url.slice('/answers'.length);
        void listener!(request, response);
      } else response.writeHead(404).end();
    };
    const origin = await listen(createServer(handle));
    const web = answering('https://public.example.test/answers');
    listener = nodeListener(web.app);
    await answerThrough(web, fetch, 'https://public.example.test/answers', `${origin}/answers`);
  });
});
