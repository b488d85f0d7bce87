/**
 * The MCP Apps form in Chromium: a host page mounts the `ui://` resource the server lists for
 * `ask_user` in a sandboxed frame through the ext-apps `AppBridge`, with the `ask_user` result
 * the v2 client got, and forwards the view's tool calls and messages to that client.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@modelcontextprotocol/client';
import { build } from 'esbuild';
import type { FrameLocator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../web/web-fixture.js';
import { connectAppsHost } from './apps-peers.js';

type Peers = Awaited<ReturnType<typeof connectAppsHost>>;

let browser: Awaited<ReturnType<typeof launchChromium>>;
let hostServer: Server;
let hostUrl: string;
const open: { page: Page; peers: Peers }[] = [];

beforeAll(async () => {
  const bundle = await build({
    entryPoints: ['test/mcp/fixtures/apps-host.ts'],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    logLevel: 'silent',
  });
  const script = bundle.outputFiles[0]!.text;
  hostServer = createServer((request, response) => {
    if (request.url === '/host.js') {
      response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' });
      response.end(script);
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(
      '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test host</title><script type="module" src="/host.js"></script></head><body></body></html>',
    );
  });
  await new Promise<void>((resolve) => hostServer.listen(0, '127.0.0.1', resolve));
  hostUrl = `http://127.0.0.1:${(hostServer.address() as AddressInfo).port}/`;
  browser = await launchChromium();
}, 60_000);

afterEach(async () => {
  for (const { page, peers } of open.splice(0)) {
    await page.close();
    await peers.close();
  }
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => hostServer?.close(resolve));
});

/** Calls `ask_user` as the model would, and mounts the form the host is pointed at. */
async function mountForm(
  args: Record<string, unknown>,
  options: { tamper?: (html: string) => string; takes?: 'message' | 'context' } = {},
) {
  const peers = await connectAppsHost();
  const page = await browser.context.newPage();
  open.push({ page, peers });
  const messages: { method: string; content: { type: string; text: string }[]; role?: string }[] =
    [];
  await page.exposeFunction('hostCallTool', (params: Parameters<Client['callTool']>[0]) =>
    peers.client.callTool(params),
  );
  await page.exposeFunction(
    'hostMessage',
    (params: Omit<(typeof messages)[number], 'method'>, method: string) => {
      messages.push({ ...params, method });
    },
  );
  const { tools } = await peers.client.listTools();
  const askUser = tools.find((tool) => tool.name === 'ask_user')!;
  const uri = (askUser._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri;
  if (uri === undefined) throw new Error('ask_user names no ui:// resource for this host.');
  const result = await peers.client.callTool({ name: 'ask_user', arguments: args });
  const resource = await peers.client.readResource({ uri });
  const contents = resource.contents[0] as { text: string };
  const html = contents.text;
  await page.goto(hostUrl);
  await page.waitForFunction(() => typeof window.mountApp === 'function');
  await page.evaluate(
    ([document, input, toolResult, takes]) => window.mountApp(document, input, toolResult, takes),
    [options.tamper?.(html) ?? html, args, result, options.takes ?? 'message'] as const,
  );
  const frame = page.frameLocator('iframe');
  const form = result._meta?.['ask-engine/app-form'] as { askId: string } | undefined;
  if (form === undefined) throw new Error(`No form in the result: ${JSON.stringify(result)}`);
  const { askId } = form;
  return { peers, page, frame, messages, result, askId, html, resource: contents };
}

const question = {
  question: 'Which database should the service use?',
  header: 'Database',
  options: [{ title: 'Postgres' }, { title: 'SQLite', description: 'One file, no server.' }],
};

async function waitForForm(frame: FrameLocator): Promise<void> {
  await frame.getByRole('button', { name: 'Send answer' }).waitFor();
}

describe('the ask_user form as an MCP App', { timeout: 60_000 }, () => {
  it('renders the ask in the host, and its answer settles the ask and reaches the agent', async () => {
    const { peers, frame, messages, result, askId } = await mountForm(question);
    expect((result.content as { text: string }[])[0]!.text).toContain('End your turn now');
    await waitForForm(frame);
    await expect(frame.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Database');
    await frame.getByLabel('SQLite').check();
    await frame.getByRole('button', { name: 'Send answer' }).click();
    await frame.getByText('Answer recorded').waitFor();

    const ask = await peers.service.get(askId);
    expect(ask?.outcome).toEqual({
      status: 'answered',
      answers: [{ questionId: 'q1', response: { kind: 'selection', selections: ['SQLite'] } }],
    });
    // The deferred call told the model to wait for the user's next message: this is it.
    await expect.poll(() => messages.length).toBe(1);
    expect(messages[0]).toMatchObject({ method: 'ui/message', role: 'user' });
    expect(messages[0]!.content[0]!.text).toContain(`Reply to ask_user (ask ${askId})`);
    expect(messages[0]!.content[0]!.text).toContain('Selected: "SQLite"');
  });

  it('shows model text with markup as text: no element of it is made', async () => {
    const markup = {
      question: 'Pick <b>one</b> <script>document.title = "question script ran"</script>',
      header: 'Markup <i>test</i>',
      context: '<img src="x" onerror="document.title = \'context img ran\'">',
      options: [
        { title: '<a href="https://evil.test">link</a>' },
        { title: '**bold** & <u>under</u>' },
      ],
    };
    const { frame } = await mountForm(markup);
    await waitForForm(frame);
    await expect(frame.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(
      'Markup <i>test</i>',
    );
    await frame.getByText(markup.question).waitFor();
    await frame.getByText(markup.context).waitFor();
    await frame.getByLabel('<a href="https://evil.test">link</a>').waitFor();
    for (const tag of ['b', 'i', 'u', 'a', 'img', 'main script']) {
      await expect(frame.locator(tag).count()).resolves.toBe(0);
    }
    await expect(frame.locator('title').textContent()).resolves.toBe('Your answer is needed');
  });

  it('holds its Content-Security-Policy: an inline script slipped into the document does not run', async () => {
    const injected =
      '<script>document.documentElement.dataset.injected = "ran"</script><img src="x" onerror="document.documentElement.dataset.handler = \'ran\'">';
    const inject = (html: string) => html.replace('</main>', `</main>${injected}`);
    const { frame, html, resource } = await mountForm(question, { tamper: inject });
    expect(resource).toMatchObject({
      mimeType: 'text/html;profile=mcp-app',
      _meta: { ui: { csp: { connectDomains: [], resourceDomains: [] } } },
    });
    expect(html).toMatch(
      /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-[A-Za-z0-9+/=]+'; style-src 'sha256-[A-Za-z0-9+/=]+'; form-action 'none'; base-uri 'none'">/,
    );
    // The form's own script ran under the same policy: it rendered the ask.
    await waitForForm(frame);
    await expect(frame.locator('html').getAttribute('data-injected')).resolves.toBeNull();
    await expect(frame.locator('html').getAttribute('data-handler')).resolves.toBeNull();

    // The control: the same document without its policy runs what was slipped in, so the
    // assertions above fail when the policy does not hold.
    const unguarded = await mountForm(question, {
      tamper: (html) =>
        inject(html.replace(/<meta http-equiv="Content-Security-Policy"[^>]*>/, '')),
    });
    await waitForForm(unguarded.frame);
    await expect(unguarded.frame.locator('html').getAttribute('data-injected')).resolves.toBe(
      'ran',
    );
  });

  it("says why an answer cannot be sent, in the page script's words, and takes the corrected one", async () => {
    const { peers, frame, askId } = await mountForm({
      question: 'What should the release be called?',
      allowFreeform: true,
    });
    await waitForForm(frame);
    // An empty text is refused by the page's own script before anything is sent.
    await frame.getByRole('button', { name: 'Send answer' }).click();
    await expect
      .poll(() => frame.locator('#live-status').textContent())
      .toBe('Type your answer to “What should the release be called?”.');
    await expect(peers.service.get(askId)).resolves.toMatchObject({ state: 'deferred' });

    await frame.getByLabel('Your answer').fill('Lighthouse');
    await frame.getByRole('button', { name: 'Send answer' }).click();
    await frame.getByText('Answer recorded').waitFor();
    await expect(peers.service.get(askId)).resolves.toMatchObject({
      state: 'answered',
      outcome: {
        answers: [{ questionId: 'q1', response: { kind: 'freeform', text: 'Lighthouse' } }],
      },
    });
  });

  it('puts the outcome in the model context where the host takes no messages', async () => {
    const { frame, messages, askId } = await mountForm(question, { takes: 'context' });
    await waitForForm(frame);
    await frame.getByLabel('Postgres').check();
    await frame.getByRole('button', { name: 'Send answer' }).click();
    await frame.getByText('Answer recorded').waitFor();
    await expect.poll(() => messages.length).toBe(1);
    expect(messages[0]).toMatchObject({ method: 'ui/update-model-context' });
    expect(messages[0]!.content[0]!.text).toContain(`Reply to ask_user (ask ${askId})`);
    expect(messages[0]!.content[0]!.text).toContain('Selected: "Postgres"');
  });

  it('declines: the ask ends cancelled by the user, never answered', async () => {
    const { peers, frame, messages, askId } = await mountForm(question);
    await waitForForm(frame);
    await frame.getByRole('button', { name: 'Decline to answer' }).click();
    await frame.getByText('You declined to answer').waitFor();
    await expect(peers.service.get(askId)).resolves.toMatchObject({
      outcome: { status: 'cancelled', reason: 'user' },
    });
    await expect.poll(() => messages.length).toBe(1);
    expect(messages[0]!.content[0]!.text).toContain('dismissed the question without answering');
  });
});
