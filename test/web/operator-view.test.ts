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

  describe('read by a person, 1280 and 360 px wide', () => {
    /** Asks that fill every column: an agent, a deadline, who answered, long questions. */
    async function fillTheList() {
      const waiting = await web.ask(
        {
          question: 'Deploy the billing service to production now?',
          options: ['Yes', 'No'],
          agent: 'release-manager',
        },
        { timeoutMs: 2 * 60 * 60 * 1000 },
      );
      const answered = await web.ask({
        questions: [
          {
            question: 'Which database for the reporting cluster?',
            options: ['Postgres', 'SQLite'],
          },
          { question: 'Anything else before the migration starts?' },
        ],
        agent: 'planner',
      });
      await web.service.answer(
        answered.handle.id,
        [
          { questionId: 'q1', response: { kind: 'selection', selections: ['Postgres'] } },
          { questionId: 'q2', response: null },
        ],
        { by: { recipient: 'alexandra.longname@example.com', channel: 'email' } },
      );
      return { waiting, answered };
    }

    it('draws a statechart whose labels cover no state and no other label', async () => {
      const { waiting } = await fillTheList();
      for (const width of [1280, 360]) {
        const page = await browser.context.newPage();
        await page.setViewportSize({ width, height: 900 });
        for (const path of ['', `/${encodeURIComponent(waiting.handle.id)}`]) {
          await page.goto(view(path));
          // Boxes of what the browser drew (the SVG's own units), labels and states.
          const drawn = await page.evaluate(() => {
            const box = (element: Element) => {
              const { x, y, width, height } = (element as SVGGraphicsElement).getBBox();
              return { x, y, width, height };
            };
            const svg = document.querySelector('svg.statechart')!;
            return {
              labels: [...svg.querySelectorAll('.edge text')].map((text) => ({
                text: text.textContent ?? '',
                ...box(text),
              })),
              states: [...svg.querySelectorAll('.state')].map((state) => ({
                text: state.getAttribute('data-state') ?? '',
                ...box(state.querySelector('rect')!),
              })),
              view: {
                width: (svg as SVGSVGElement).viewBox.baseVal.width,
                height: (svg as SVGSVGElement).viewBox.baseVal.height,
              },
            };
          });
          expect(drawn.labels.length).toBeGreaterThan(5);
          const clashes: string[] = [];
          for (const [i, label] of drawn.labels.entries()) {
            for (const other of [...drawn.labels.slice(i + 1), ...drawn.states]) {
              if (intersect(label, other)) clashes.push(`"${label.text}" / "${other.text}"`);
            }
            expect(label.x).toBeGreaterThanOrEqual(0);
            expect(label.x + label.width).toBeLessThanOrEqual(drawn.view.width);
            expect(label.y + label.height).toBeLessThanOrEqual(drawn.view.height);
          }
          expect(clashes).toEqual([]);
        }
        await page.close();
      }
      waiting.handle.cancel('user');
    });

    it('breaks table cells only between words, and writes every time the way the mails do', async () => {
      const { waiting, answered } = await fillTheList();
      const created = (await web.service.get(waiting.handle.id))!.createdAt;
      for (const width of [1280, 360]) {
        const page = await browser.context.newPage();
        await page.setViewportSize({ width, height: 900 });
        for (const path of ['', `/${encodeURIComponent(answered.handle.id)}`]) {
          await page.goto(view(path));
          // Each run of letters and digits in a cell must sit on one line.
          const broken = await page.evaluate(() => {
            const found: string[] = [];
            for (const cell of document.querySelectorAll('th, td:not(.history)')) {
              const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
              for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
                for (const word of (node.textContent ?? '').matchAll(/[\p{L}\p{N}]+/gu)) {
                  const range = document.createRange();
                  range.setStart(node, word.index);
                  range.setEnd(node, word.index + word[0].length);
                  const tops = new Set(
                    [...range.getClientRects()].map((rect) => Math.round(rect.top)),
                  );
                  if (tops.size > 1) found.push(word[0]);
                }
              }
            }
            return found;
          });
          expect(broken).toEqual([]);
          expect(
            await page.evaluate(() => document.documentElement.scrollWidth),
          ).toBeLessThanOrEqual(width);
        }
        const row = page.locator(`tr[data-ask="${waiting.handle.id}"]`);
        await page.goto(view());
        expect(await row.locator('td').nth(4).textContent()).toBe(
          `${new Date(created).toISOString().slice(0, 16).replace('T', ' ')} UTC`,
        );
        const times = await page.locator('td time').allTextContents();
        expect(times.length).toBeGreaterThan(4);
        for (const time of times) expect(time).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
        await page.close();
      }
      waiting.handle.cancel('user');
    });
  });
});

/** Whether two boxes share any area. */
function intersect(
  a: { x: number; y: number; width: number; height: number },
  b: { x: number; y: number; width: number; height: number },
): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}
