/**
 * The answer page inside your own server: `createAnswerApp` is a Hono app (Web standard
 * `fetch`), mounted here under `/answers` of a host app that keeps its own routes. Links carry
 * `baseUrl`, the address people reach the app at (behind a proxy, the public one). The person
 * is played by `fetch`: open the link, post the form the page shows.
 *
 * Express instead of Hono:
 *   import { getRequestListener } from '@hono/node-server';
 *   const listener = getRequestListener(answers.fetch, { overrideGlobalObjects: false });
 *   expressApp.use('/answers', (req, res) => void listener(req, res));
 *
 * Run (in a clone): node --conditions=ask-engine:source --import tsx examples/web-mount.ts
 * Run (installed): npx tsx node_modules/ask-engine/examples/web-mount.ts
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createInteractionService } from 'ask-engine';
import { createAnswerApp, createWebProvider } from 'ask-engine/web';
import { Hono } from 'hono';

const service = createInteractionService();
const site = new Hono();
site.get('/', (c) => c.text('The host app; answers live under /answers.'));

// Listen first to learn the port; a deployed app knows its public address in advance.
const server = serve({
  fetch: site.fetch,
  port: 0,
  hostname: '127.0.0.1',
  overrideGlobalObjects: false,
});
await new Promise((resolve) => server.once('listening', resolve));
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const answers = createAnswerApp({
  service,
  secret: randomBytes(32), // keep it stable (e.g. from the environment) so links survive restarts
  baseUrl: `${origin}/answers`,
});
site.route('/answers', answers);

let link = '';
service.registerProvider(
  createWebProvider(answers, {
    mode: 'pending',
    notify: (url) => {
      link = url;
      console.log(`link: ${url.replace(/t=.*/, 't=…')}`);
      void answerAsAPerson(url);
    },
  }),
);

/** What a browser does: open the page, post its form with the first option chosen. */
async function answerAsAPerson(url: string): Promise<void> {
  const page = await (await fetch(url)).text();
  const action = new URL(/<form method="post" action="([^"]+)"/.exec(page)![1]!, url);
  const token = /name="token" value="([^"]+)"/.exec(page)![1]!;
  const response = await fetch(action, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, action: 'submit', 'q1.selection': 'option1' }),
  });
  console.log(`posted to ${action.pathname}: ${response.status}`);
}

const outcome = await service.ask({
  question: 'Deploy to production now?',
  options: ['Yes', 'No'],
});
console.log(`outcome: ${JSON.stringify(outcome)}`);
console.log(`link started with ${origin}/answers/a/: ${link.startsWith(`${origin}/answers/a/`)}`);

answers.close();
await service.close();
await new Promise((resolve) => server.close(resolve));
