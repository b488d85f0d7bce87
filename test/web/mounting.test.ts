/**
 * The answer app mounted under a path prefix of another server: a Hono app, an Express app
 * and a bare node:http server, each reached at a public address (`baseUrl`) that differs from
 * where the app sees its requests. A person follows the link, the page's relative links lead
 * to its script and its form's target, and the answer is recorded; also where the host server
 * parses the body before its routes (Express's parsers, Fastify's @fastify/formbody).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import formbody from '@fastify/formbody';
import { getRequestListener } from '@hono/node-server';
import { createInteractionService, createMemoryAskStore } from 'ask-engine';
import { type AnswerApp, createAnswerApp, createWebProvider } from 'ask-engine/web';
import express from 'express';
import type { FastifyReply, FastifyRequest } from 'fastify';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { OPERATOR_TOKEN } from './web-fixture.js';

type Send = (url: string, init?: RequestInit) => Promise<Response>;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A service whose asks wait on the app's links; `app` gets `baseUrl`. */
function answering(baseUrl: string, options: { maxBodyBytes?: number } = {}) {
  const service = createInteractionService({ store: createMemoryAskStore() });
  const app = createAnswerApp({
    service,
    secret: randomBytes(32),
    baseUrl,
    operatorToken: OPERATOR_TOKEN,
    ...options,
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

/**
 * The app as a node:http listener, as the docs mount it: `fetch` gets the Node request and
 * response (`env`) too. The process keeps Node's own Request and Response.
 */
function nodeListener(app: Pick<AnswerApp, 'fetch'>) {
  return getRequestListener(app.fetch, { overrideGlobalObjects: false });
}

/** An Express app with `parsers` before its routes and the answer app at `/answers`. */
async function expressWithParsers(parsers: express.RequestHandler[], maxBodyBytes?: number) {
  let listener: ReturnType<typeof nodeListener> | undefined;
  const site = express();
  for (const parser of parsers) site.use(parser);
  site.use('/answers', (request, response) => void listener!(request, response));
  const origin = await listen(createServer(site));
  const web = answering(`${origin}/answers`, maxBodyBytes === undefined ? {} : { maxBodyBytes });
  listener = nodeListener(web.app);
  return { web, origin };
}

/**
 * A Fastify app with @fastify/formbody parsing forms, the answer app in a route under
 * `/answers`; with `handOver` the route gives the answer app the body Fastify parsed.
 */
async function fastifyWithFormbody(handOver: boolean) {
  const site = Fastify();
  await site.register(formbody);
  const origin = await listen(site.server);
  const web = answering(`${origin}/answers`);
  const listener = nodeListener(new Hono().route('/answers', web.app));
  const route = (request: FastifyRequest, reply: FastifyReply) => {
    reply.hijack();
    if (handOver) (request.raw as { body?: unknown }).body = request.body;
    void listener(request.raw, reply.raw);
  };
  site.all('/answers', route);
  site.all('/answers/*', route);
  await site.ready();
  return { web, origin };
}

/** The ask's page at its link, read for its form's target and token. */
async function openForm(web: ReturnType<typeof answering>) {
  const handle = web.service.start({ question: 'Deploy now?', options: ['Yes', 'No'] });
  await expect.poll(() => web.links.length).toBe(1);
  const pageUrl = web.links[0]!;
  const html = await (await fetch(pageUrl)).text();
  const action = new URL(/<form method="post" action="([^"]+)"/.exec(html)![1]!, pageUrl);
  const token = /name="token" value="([^"]+)"/.exec(html)![1]!;
  return { handle, action, token };
}

function postForm(url: URL, fields: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: fields,
  });
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

  it.each([
    ['express.urlencoded()', () => [express.urlencoded()]],
    ['express.urlencoded({ extended: true })', () => [express.urlencoded({ extended: true })]],
    ['express.json()', () => [express.json()]],
    ['express.json() and express.urlencoded()', () => [express.json(), express.urlencoded()]],
  ])('in an Express app that registers %s before its routes', async (_name, parsers) => {
    const { web, origin } = await expressWithParsers(parsers());
    await answerThrough(web, fetch, `${origin}/answers`, `${origin}/answers`);
  });

  it('in a Fastify app that parses forms (@fastify/formbody) and hands the body over', async () => {
    const { web, origin } = await fastifyWithFormbody(true);
    await answerThrough(web, fetch, `${origin}/answers`, `${origin}/answers`);
  });

  it('refuses an answer whose body a host read and kept from it, and logs the fix', async () => {
    const { web } = await fastifyWithFormbody(false);
    const warnings: string[] = [];
    const onWarning = (warning: Error) => void warnings.push(warning.message);
    process.on('warning', onWarning);
    cleanups.push(() => void process.off('warning', onWarning));
    const { handle, action, token } = await openForm(web);
    const posted = await postForm(action, `token=${token}&action=submit&q1.selection=option1`);
    expect(posted.status).toBe(500);
    expect(await posted.text()).toContain('This answer could not be read');
    await expect.poll(() => warnings.length).toBe(1);
    expect(warnings[0]).toContain(`POST /answers/a/${encodeURIComponent(handle.id)} was read`);
    expect(warnings[0]).toContain('@fastify/formbody');
    expect(warnings[0]).toContain('request.raw.body = request.body');
    expect((await web.service.get(handle.id))?.state).toBe('pending');
  });

  it('checks a host-parsed answer as it checks a posted one: token, size and fields', async () => {
    const { web } = await expressWithParsers(
      [express.urlencoded({ extended: true, limit: '1mb' })],
      2048,
    );
    const { handle, action, token } = await openForm(web);
    const other = token.replace(/^./, (first) => (first === 'A' ? 'B' : 'A'));
    const forged = await postForm(action, `token=${other}&action=submit&q1.selection=option1`);
    expect(forged.status).toBe(403);
    expect(await forged.text()).toContain('This link is not valid');
    const large = await postForm(
      action,
      `token=${token}&action=submit&q1.selection=option1&q1.comment=${'x'.repeat(4096)}`,
    );
    expect(large.status).toBe(413);
    const nested = await postForm(action, `token=${token}&action=submit&q1[selection]=option1`);
    expect(nested.status).toBe(400);
    expect(await nested.text()).toContain('reached this app as an object');
    const twice = await postForm(action, `token=${token}&token=${token}&q1.selection=option1`);
    expect(twice.status).toBe(400);
    expect((await web.service.get(handle.id))?.state).toBe('pending');
    const answered = await postForm(action, `token=${token}&action=submit&q1.selection=option1`);
    expect(answered.status).toBe(200);
    expect((await handle.outcome).status).toBe('answered');
  });
});
