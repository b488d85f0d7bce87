/** The read-only view of live asks at /asks, in Chromium. */
import { createInteractionService, createScriptedProvider } from 'ask-engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMachine, readSvg } from './statechart-reading.js';
import { launchChromium, OPERATOR_TOKEN, startWebService } from './web-fixture.js';

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

const view = (path = '') => `${web.server.url}/asks${path}?token=${OPERATOR_TOKEN}`;

describe('the live asks view', () => {
  it('serves the statechart of the machine as it is', async () => {
    const response = await fetch(view());
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(readSvg(page)).toEqual(readMachine());
  });

  it('moves an ask’s highlight and grows its history as events arrive', async () => {
    const { handle } = await web.ask({ question: 'Deploy now?', options: ['Yes', 'No'] });
    const page = await browser.context.newPage();
    await page.goto(view(`/${encodeURIComponent(handle.id)}`));
    await page.getByText('Live: following new events.').waitFor();
    expect(await page.locator('.statechart .state.current').getAttribute('data-state')).toBe(
      'pending',
    );
    const stored = await page.locator('#history tr').count();
    expect(stored).toBeGreaterThanOrEqual(1);
    expect(await page.locator('#history').textContent()).toContain('start');

    await web.service.answer(handle.id, [
      { questionId: 'q1', response: { kind: 'selection', selections: ['Yes'] } },
    ]);
    await page.locator('.statechart .state.current[data-state="answered"]').waitFor();
    expect(await page.locator('.statechart .state.current').count()).toBe(1);
    expect(await page.locator('#state').textContent()).toBe('answered');
    expect(await page.locator('#history tr').count()).toBeGreaterThan(stored);
    await page.close();
  });

  it('lists new asks live, with links to their pages', async () => {
    const page = await browser.context.newPage();
    await page.goto(view());
    await page.getByText('Live: following new events.').waitFor();
    const { handle } = await web.ask({ question: 'Ship?', options: ['Yes', 'No'] });
    const row = page.locator(`#waiting tr[data-ask="${handle.id}"]`);
    await row.waitFor();
    expect(await row.locator('.ask-state').textContent()).toBe('pending');
    expect(await row.locator('.questions').textContent()).toBe('Ship?');
    expect(await page.locator('.statechart .state.current[data-state="pending"]').count()).toBe(1);
    handle.cancel('user');
    // Settled: the row moves from the waiting list to the top of the recent outcomes.
    const settled = page.locator(`#settled tr[data-ask="${handle.id}"]`);
    await expect.poll(() => settled.locator('.ask-state').textContent()).toBe('cancelled');
    expect(await page.locator(`#waiting tr[data-ask="${handle.id}"]`).count()).toBe(0);
    await page.reload();
    await page.getByText('Live: following new events.').waitFor();
    expect(await settled.locator('.ask-state').textContent()).toBe('cancelled');
    const row2 = settled;
    await row2.getByRole('link').click();
    await page.getByText('Stored history').waitFor();
    expect(await page.locator('.statechart .state.current').getAttribute('data-state')).toBe(
      'cancelled',
    );
    await page.close();
  });

  it('follows the asks of every service on the store when given the store', async () => {
    const following = await startWebService({ store: web.store, server: { store: web.store } });
    const other = createInteractionService({ store: web.store });
    other.registerProvider(createScriptedProvider([{ defer: 'thread-1' }]));
    try {
      const page = await browser.context.newPage();
      await page.goto(`${following.server.url}/asks?token=${OPERATOR_TOKEN}`);
      await page.getByText('Live: following new events.').waitFor();
      const handle = other.start({ question: 'Elsewhere?', options: ['Yes', 'No'] });
      const row = page.locator(`#inbox tr[data-ask="${handle.id}"]`);
      await expect.poll(() => row.locator('.ask-state').textContent()).toBe('deferred');
      await following.service.answer(
        handle.id,
        [{ questionId: 'q1', response: { kind: 'selection', selections: ['No'] } }],
        { by: { recipient: 'bob', channel: 'web' } },
      );
      await expect.poll(() => row.locator('.ask-state').textContent()).toBe('answered');
      expect(await row.locator('.answered-by').textContent()).toBe('bob (web)');
      await page.close();
    } finally {
      await other.close();
      await following.close();
    }
  });
});
