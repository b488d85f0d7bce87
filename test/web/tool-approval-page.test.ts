/**
 * A tool approval on the answer page, in Debian's Chromium and over plain HTTP: the edit fields
 * come prefilled with the proposed input, an edit approved there settles the ask with the edited
 * input and both digests, and an edit the tool's schema refuses is refused naming the field,
 * live in the page and by the server, with nothing recorded.
 */
import { askToolApproval, type ToolApprovalCall } from 'ask-engine';
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

const call: ToolApprovalCall = {
  toolName: 'deploy',
  toolCallId: 'call-7',
  input: { service: 'api', replicas: 2, flags: ['--fast'] },
  inputSchema: {
    type: 'object',
    properties: {
      service: { type: 'string', description: 'Which <service> to deploy', minLength: 1 },
      replicas: { type: 'integer', minimum: 1, maximum: 10 },
      flags: { type: 'array', items: { type: 'string' } },
    },
    required: ['service', 'replicas'],
    additionalProperties: false,
  },
};

/** Starts an approval and resolves with its decision's promise and the ask's link. */
async function approval() {
  const link = new Promise<string>((resolve) => {
    const before = web.links.length;
    const poll = setInterval(() => {
      if (web.links.length > before) {
        clearInterval(poll);
        resolve(web.links.at(-1)!);
      }
    }, 10);
  });
  const decision = askToolApproval(web.service, call);
  // Settled by each test; a failing test leaves it to the service's close.
  decision.catch(() => undefined);
  return { decision, link: await link };
}

/** The ask a link answers: the last segment of its path. */
const askIdOf = (link: string) => decodeURIComponent(new URL(link).pathname.split('/').at(-1)!);

describe('a tool approval on the answer page', () => {
  it('shows the input prefilled, and approves an edit made in the browser', async () => {
    const { decision, link } = await approval();
    const page = await browser.context.newPage();
    await page.goto(link);
    expect(await page.getByLabel('service', { exact: true }).inputValue()).toBe('api');
    expect(await page.getByLabel('replicas', { exact: true }).inputValue()).toBe('2');
    expect(await page.getByLabel('flags', { exact: true }).inputValue()).toBe('[\n  "--fast"\n]');
    // The schema's description is shown as written, never as markup.
    expect(await page.locator('.edit-help').first().textContent()).toBe(
      'Which <service> to deploy',
    );
    await page.getByLabel('replicas', { exact: true }).fill('3');
    await page.getByLabel('Approve', { exact: true }).check();
    await expect.poll(() => page.locator('#live-status').textContent()).toBe('Ready to send.');
    await page.getByRole('button', { name: 'Send answer' }).click();
    await page.locator('.recorded-input').waitFor();
    const result = await decision;
    expect(result).toMatchObject({
      approved: true,
      input: { flags: ['--fast'], replicas: 3, service: 'api' },
      edited: { fields: ['replicas'] },
    });
    await page.close();
  });

  it('refuses, live in the page, an edit the schema refuses, naming the field', async () => {
    const { decision, link } = await approval();
    const page = await browser.context.newPage();
    await page.goto(link);
    await page.getByLabel('Approve', { exact: true }).check();
    await page.getByLabel('replicas', { exact: true }).fill('11');
    await expect
      .poll(() => page.locator('#live-status').textContent())
      .toMatch(
        /The value of “replicas” for “Approve tool” is not accepted: at \/replicas, above 10/,
      );
    await page.getByLabel('flags', { exact: true }).fill('["--fast"');
    await page.getByLabel('replicas', { exact: true }).fill('2');
    await expect
      .poll(() => page.locator('#live-status').textContent())
      .toMatch(/The value of “flags” for “Approve tool” is not accepted: it is not valid JSON/);
    await page.close();
    await web.service.cancel(askIdOf(link), 'user');
    expect((await decision).approved).toBe(false);
  });

  it('refuses the same over HTTP without the script, and records nothing', async () => {
    const { decision, link } = await approval();
    const response = await fetch(link.split('?')[0]!, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams([
        ['token', tokenOf(link)],
        ['action', 'submit'],
        ['q1.selection', 'option1'],
        ['q1.edit1', 'api'],
        ['q1.edit2', '0'],
        ['q1.edit3', '[]'],
      ]).toString(),
    });
    expect(response.status).toBe(422);
    const page = await response.text();
    expect(page).toContain(
      'The value of “replicas” for “Approve tool” is not accepted: at /replicas, below 1.',
    );
    // Still open: the page answers it once corrected.
    const askId = askIdOf(link);
    expect((await web.service.get(askId))?.outcome).toBeUndefined();
    await web.service.cancel(askId, 'user');
    expect((await decision).approved).toBe(false);
  });
});
