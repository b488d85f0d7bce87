/** The answer page in Debian's Chromium: every question kind, with and without JavaScript. */
import { createInteractionService, createMemoryAskStore } from 'ask-engine';
import { createWebProvider } from 'ask-engine/web';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, startWebService } from './web-fixture.js';

type Chromium = Awaited<ReturnType<typeof launchChromium>>;
type Web = Awaited<ReturnType<typeof startWebService>>;

let js: Chromium;
let noJs: Chromium;
let web: Web;

beforeAll(async () => {
  [js, noJs, web] = await Promise.all([
    launchChromium(),
    launchChromium({ javaScriptEnabled: false }),
    startWebService(),
  ]);
});

afterAll(async () => {
  await Promise.all([js?.close(), noJs?.close(), web?.close()]);
});

const openPages: Page[] = [];

afterEach(async () => {
  await Promise.all(openPages.splice(0).map(closePage));
});

/**
 * Closes a page, without waiting on a renderer that a loaded machine has stalled (Chromium's
 * close can hang on a page busy with a submitted form); the browser closes after all tests.
 */
async function closePage(page: Page): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    page.close().catch(() => undefined),
    new Promise((resolve) => {
      timer = setTimeout(resolve, 5_000);
    }),
  ]);
  clearTimeout(timer);
}

async function open(link: string, browser = js): Promise<Page> {
  const page = await browser.context.newPage();
  openPages.push(page);
  await page.bringToFront();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  (page as Page & { errors: string[] }).errors = errors;
  const response = await page.goto(link);
  expect(response?.status()).toBe(200);
  return page;
}

function pageErrors(page: Page): string[] {
  return (page as Page & { errors: string[] }).errors;
}

const send = (page: Page) => page.getByRole('button', { name: 'Send answer' }).click();

describe('answering in the browser', () => {
  it('answers a single-select question by its option', async () => {
    const { handle, link } = await web.ask({ question: 'Deploy now?', options: ['Yes', 'No'] });
    const page = await open(link);
    await page.getByLabel('No', { exact: true }).check();
    await send(page);
    await expect.poll(() => page.locator('h1').textContent()).toBe('Answer recorded');
    expect(await handle.outcome).toEqual({
      status: 'answered',
      answers: [{ questionId: 'q1', response: { kind: 'selection', selections: ['No'] } }],
    });
    expect(await page.locator('.recorded').textContent()).toContain('No');
    expect(pageErrors(page)).toEqual([]);
  });

  it('answers a multi-select question with a comment', async () => {
    const { handle, link } = await web.ask({
      question: 'Which regions?',
      header: 'Regions',
      options: ['eu', 'us', 'ap'],
      allowMultiple: true,
      allowComment: true,
    });
    const page = await open(link);
    await page.getByLabel('eu').check();
    await page.getByLabel('ap').check();
    await page.getByLabel('Comment (optional)').fill('ap later 😀');
    await send(page);
    expect(await handle.outcome).toEqual({
      status: 'answered',
      answers: [
        {
          questionId: 'q1',
          response: { kind: 'selection', selections: ['eu', 'ap'], comment: 'ap later 😀' },
        },
      ],
    });
  });

  it('takes a typed answer where options and text are both allowed; the mode follows the typing', async () => {
    const { handle, link } = await web.ask({
      question: 'Which database?',
      options: ['Postgres', 'SQLite'],
      allowFreeform: true,
    });
    const page = await open(link);
    await page.getByLabel('Your answer').fill('DuckDB');
    expect(await page.getByLabel('Type an answer').isChecked()).toBe(true);
    expect(await page.locator('#live-status').textContent()).toBe('Ready to send.');
    await send(page);
    expect(await handle.outcome).toEqual({
      status: 'answered',
      answers: [{ questionId: 'q1', response: { kind: 'freeform', text: 'DuckDB' } }],
    });
  });

  it('answers a question without options with its text', async () => {
    const { handle, link } = await web.ask({ question: 'Release name?' });
    const page = await open(link);
    await page.getByLabel('Your answer').fill('line one\nline two');
    await send(page);
    expect(await handle.outcome).toEqual({
      status: 'answered',
      answers: [{ questionId: 'q1', response: { kind: 'freeform', text: 'line one\nline two' } }],
    });
  });

  it('skips a wizard question and answers the other', async () => {
    const { handle, link } = await web.ask({
      questions: [
        { question: 'Database?', header: 'DB', options: ['Postgres', 'SQLite'] },
        { question: 'Anything else?', header: 'Notes' },
      ],
    });
    const page = await open(link);
    const db = page.getByRole('group', { name: 'DB', exact: true });
    await db.getByLabel('SQLite').check();
    expect(await db.getByLabel('Pick from the options').isChecked()).toBe(true);
    await page.getByRole('group', { name: 'Notes' }).getByLabel('Skip this question').check();
    await send(page);
    expect(await handle.outcome).toEqual({
      status: 'answered',
      answers: [
        { questionId: 'q1', response: { kind: 'selection', selections: ['SQLite'] } },
        { questionId: 'q2', response: null },
      ],
    });
    expect(await page.locator('.recorded').textContent()).toContain('Skipped');
  });

  it('refuses an incomplete answer in the page, then sends the corrected one', async () => {
    const { handle, link } = await web.ask({
      questions: [
        { question: 'Database?', header: 'DB', options: ['Postgres', 'SQLite'] },
        { question: 'Anything else?', header: 'Notes' },
      ],
    });
    const page = await open(link);
    await page.getByRole('group', { name: 'Notes' }).getByLabel('Your answer').fill('keep this');
    await send(page);
    // The script stops the submit and says what is missing; nothing reached the service.
    expect(await page.locator('#live-status').textContent()).toBe(
      'Choose how you answer “DB”: “Pick from the options” or “Skip this question”.',
    );
    expect(handle.getSnapshot().state).toBe('pending');
    await page
      .getByRole('group', { name: 'DB', exact: true })
      .getByLabel('Skip this question')
      .check();
    await send(page);
    expect(await handle.outcome).toEqual({
      status: 'answered',
      answers: [
        { questionId: 'q1', response: null },
        { questionId: 'q2', response: { kind: 'freeform', text: 'keep this' } },
      ],
    });
  });

  it('counts bytes against the 32 KiB limit and blocks an oversized text', async () => {
    const { handle, link } = await web.ask({ question: 'Paste the log' });
    const page = await open(link);
    const field = page.getByLabel('Your answer');
    await field.fill('é'.repeat(16_385)); // 32 770 bytes of UTF-8
    expect(await page.locator('[id="q1.text.count"]').textContent()).toBe(
      '32770 of 32768 bytes: 2 bytes too long.',
    );
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    await send(page);
    expect(await page.locator('#live-status').textContent()).toBe(
      'Your answer to “Paste the log” is too long (at most 32 KiB); shorten it and send again.',
    );
    await field.fill('é'.repeat(16_384));
    expect(await page.locator('[id="q1.text.count"]').textContent()).toBe('32768 of 32768 bytes.');
    await send(page);
    const outcome = await handle.outcome;
    expect(outcome.status === 'answered' && outcome.answers[0]?.response).toEqual({
      kind: 'freeform',
      text: 'é'.repeat(16_384),
    });
  });

  it('declines without answering, past the page’s own checks', async () => {
    const { handle, link } = await web.ask({ question: 'Paste the log' });
    const page = await open(link);
    await page.getByRole('button', { name: 'Decline to answer' }).click();
    await expect.poll(() => page.locator('h1').textContent()).toBe('You declined to answer');
    expect(await handle.outcome).toMatchObject({ status: 'cancelled', reason: 'user' });
    expect(pageErrors(page)).toEqual([]);
  });

  it('works from the keyboard alone', async () => {
    const { handle, link } = await web.ask({ question: 'Deploy now?', options: ['Yes', 'No'] });
    const page = await open(link);
    const focused = () => page.evaluate(() => document.activeElement?.id ?? '');
    await page.keyboard.press('Tab'); // the first option of the radio group
    expect(await focused()).toBe('q1.selection.option1');
    await page.keyboard.press('ArrowDown'); // moves to and checks "No"
    expect(await focused()).toBe('q1.selection.option2');
    expect(await page.getByLabel('No', { exact: true }).isChecked()).toBe(true);
    await page.keyboard.press('Tab'); // the send button
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Send answer');
    await Promise.all([page.waitForURL(link.split('?')[0]!), page.keyboard.press('Enter')]);
    expect(await handle.outcome).toEqual({
      status: 'answered',
      answers: [{ questionId: 'q1', response: { kind: 'selection', selections: ['No'] } }],
    });
  });

  it('shows Markdown, HTML and control characters from the model as inert text', async () => {
    const evil =
      '**bold** <img src=x id=injected> [link](http://example.invalid) \u001b[31m red \u202e';
    const { handle, link } = await web.ask({
      question: evil,
      header: '<script>window.pwned=1</script>',
      context: '# Plan\n- <b>step</b>',
      options: [{ title: '<i>Yes</i>', description: '`code` & "quotes"' }, 'No'],
    });
    const page = await open(link);
    expect(await page.locator('#injected, i, b, script:not([src])').count()).toBe(0);
    expect(await page.evaluate(() => (window as { pwned?: number }).pwned)).toBeUndefined();
    const text = await page.locator('main').textContent();
    expect(text).toContain(
      '**bold** <img src=x id=injected> [link](http://example.invalid) \\x1b[31m red \\u202e',
    );
    expect(text).toContain('<script>window.pwned=1</script>');
    expect(text).toContain('# Plan\n- <b>step</b>');
    expect(text).toContain('`code` & "quotes"');
    await page.getByLabel('<i>Yes</i>').check();
    await send(page);
    expect(await handle.outcome).toMatchObject({
      status: 'answered',
      answers: [{ response: { selections: ['<i>Yes</i>'] } }],
    });
  });

  it('fits a 360 px wide screen; screenshots for the README', async () => {
    const { handle, link } = await web.ask(
      {
        agent: 'migration-planner',
        questions: [
          {
            question: 'Review the plan before I start.',
            header: 'Plan review',
            context: '1. Add the migration\n2. Backfill in batches of 10 000 rows\n3. Switch reads',
            options: [{ title: 'Approve', description: 'Start now' }, { title: 'Revise' }],
            allowComment: true,
            allowFreeform: true,
            intent: { kind: 'plan-review', approve: 'Approve' },
          },
          {
            question: 'Which regions first?',
            header: 'Regions',
            options: ['eu', 'us', 'ap'],
            allowMultiple: true,
          },
        ],
      },
      // No deadline: a time on the page would change the screenshots on every run.
    );
    for (const width of [1280, 360]) {
      const page = await open(link);
      await page.setViewportSize({ width, height: 800 });
      await page.getByRole('group', { name: 'Plan review' }).getByLabel('Approve').check();
      await page
        .getByRole('group', { name: 'Plan review' })
        .getByLabel('Comment (optional)')
        .fill('Go ahead, batches of 5 000 please.');
      const plan = page.getByRole('group', { name: 'Plan review' });
      expect(await plan.getByLabel('Pick from the options').isChecked()).toBe(true);
      await page.getByRole('group', { name: 'Regions' }).getByLabel('eu').check();
      await page.getByRole('group', { name: 'Regions' }).getByLabel('ap').check();
      expect(await page.locator('#live-status').textContent()).toBe('Ready to send.');
      const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(scrollWidth).toBeLessThanOrEqual(width);
      await page.screenshot({ path: `docs/web-${width}.png`, fullPage: true });
    }
    handle.cancel('user');
  });
});

describe('what the page says about the ask', () => {
  /** `2026-12-04 20:15 UTC`, as the mails write a time. */
  const asMailed = (at: number) =>
    `${new Date(at).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

  it('heads a question without a header by its text, and says who asks and by when', async () => {
    const { handle, link } = await web.ask(
      { question: 'Deploy now?', options: ['Yes', 'No'], agent: 'deploy-bot <b>v2</b>' },
      { timeoutMs: 2 * 60 * 60 * 1000 },
    );
    const deadline = (await web.service.get(handle.id))!.deadlineAt!;
    for (const browser of [js, noJs]) {
      const page = await open(link, browser);
      expect(await page.locator('h1').textContent()).toBe('Your answer is needed');
      expect(await page.title()).toBe('Your answer is needed');
      expect(await page.getByRole('group', { name: 'Deploy now?' }).count()).toBe(1);
      expect(await page.locator('main').textContent()).not.toMatch(/\bQ1\b/);
      expect(await page.locator('.asked-by').textContent()).toBe(
        `Asked by deploy-bot <b>v2</b>; answer by ${asMailed(deadline)} (in 2 hours).`,
      );
      expect(await page.locator('.asked-by b').count()).toBe(0);
      expect(await page.locator('.asked-by time').getAttribute('datetime')).toBe(
        new Date(deadline).toISOString(),
      );
    }
    handle.cancel('user');
  });

  it('shows the context a request gives all its questions once, above them', async () => {
    const context = 'The plan: add the column, backfill, switch reads.';
    const { handle, link } = await web.ask({
      context,
      questions: [
        { question: 'Start now?', options: ['Yes', 'No'] },
        { question: 'Which regions first?', header: 'Regions', options: ['eu', 'us'] },
      ],
    });
    const page = await open(link);
    expect(await page.locator('.context').allTextContents()).toEqual([context]);
    expect((await page.locator('main').textContent())!.split(context).length - 1).toBe(1);
    // A header heads its question, with the question's text below; without one, the text heads it.
    const regions = page.getByRole('group', { name: 'Regions', exact: true });
    expect(await regions.locator('.question-text').textContent()).toBe('Which regions first?');
    expect(await page.getByRole('group', { name: 'Start now?' }).count()).toBe(1);
    handle.cancel('user');
  });
});

describe('answering without JavaScript', () => {
  it('posts a plain form, shows a refusal with everything typed kept, and records the correction', async () => {
    const { handle, link } = await web.ask({
      question: 'Which database?',
      options: ['Postgres', 'SQLite'],
      allowFreeform: true,
      allowComment: true,
    });
    const page = await open(link, noJs);
    expect(await page.locator('script').getAttribute('src')).toBe('../assets/answer-page.js');
    // Text typed but the mode left on "Pick from the options": a conflict the server refuses.
    await page.getByLabel('Pick from the options').check();
    await page.getByLabel('Your answer').fill('\nDuckDB, typed by hand');
    const refused = page.waitForResponse((response) => response.request().method() === 'POST');
    await send(page);
    expect((await refused).status()).toBe(422);
    expect(await page.getByRole('alert').textContent()).toMatch(/not recorded/);
    expect(await page.getByRole('alert').textContent()).toContain(
      'You typed an answer to “Which database?” but chose “Pick from the options”; clear the text or change how you answer.',
    );
    expect(await page.getByLabel('Your answer').inputValue()).toBe('\nDuckDB, typed by hand');
    expect(await page.getByLabel('Pick from the options').isChecked()).toBe(true);
    expect(handle.getSnapshot().state).toBe('pending');
    await page.getByLabel('Type an answer').check();
    await send(page);
    expect(await page.locator('h1').textContent()).toBe('Answer recorded');
    expect(await handle.outcome).toEqual({
      status: 'answered',
      answers: [
        { questionId: 'q1', response: { kind: 'freeform', text: '\nDuckDB, typed by hand' } },
      ],
    });
  });

  it('refuses an oversized text on the server and keeps it in the form', async () => {
    const { handle, link } = await web.ask({ question: 'Paste the log' });
    const page = await open(link, noJs);
    await page.getByLabel('Your answer').fill('x'.repeat(32_769));
    await send(page);
    expect(await page.getByRole('alert').textContent()).toContain(
      'Your answer to “Paste the log” is too long (at most 32 KiB); shorten it and send again.',
    );
    expect((await page.getByLabel('Your answer').inputValue()).length).toBe(32_769);
    expect(handle.getSnapshot().state).toBe('pending');
    handle.cancel('user');
  });

  it('refuses in the person’s words, naming the question by its text, never a field id', async () => {
    const { handle, link } = await web.ask({
      questions: [
        { question: 'Which database?', options: ['Postgres', 'SQLite'] },
        { question: 'Anything else?' },
      ],
    });
    const page = await open(link, noJs);
    await page.getByRole('group', { name: 'Anything else?' }).getByLabel('Type an answer').check();
    await page.getByRole('group', { name: 'Anything else?' }).getByLabel('Your answer').fill('no');
    await send(page);
    const refusal = await page.getByRole('alert').textContent();
    expect(refusal).toContain(
      'Choose how you answer “Which database?”: “Pick from the options” or “Skip this question”.',
    );
    expect(refusal).not.toMatch(/q1|field|"choice"/);
    const database = page.getByRole('group', { name: 'Which database?' });
    await database.getByLabel('SQLite').check();
    await database.getByLabel('Skip this question').check();
    await send(page);
    expect(await page.getByRole('alert').textContent()).toContain(
      'You picked an option for “Which database?” but chose “Skip this question”; clear your choice or change how you answer.',
    );
    await page.goto(link);
    await database.getByLabel('Skip this question').check();
    await page
      .getByRole('group', { name: 'Anything else?' })
      .getByLabel('Skip this question')
      .check();
    await send(page);
    expect(await page.getByRole('alert').textContent()).toContain(
      'Answer at least one of the questions before sending; all of them are skipped now.',
    );
    expect(handle.getSnapshot().state).toBe('pending');
    handle.cancel('user');
  });

  it('says the ask has its outcome when the link is opened again', async () => {
    const { handle, link } = await web.ask({ question: 'Deploy now?', options: ['Yes', 'No'] });
    const page = await open(link, noJs);
    await page.getByLabel('Yes').check();
    await send(page);
    await handle.outcome;
    const again = await page.goto(link);
    expect(again?.status()).toBe(410);
    expect(await page.locator('main').textContent()).toMatch(
      /has been answered.*outcome is fixed/s,
    );
  });
});

describe('several services sharing one store', () => {
  it('settles an ask waiting on one service with an answer posted to another', async () => {
    const store = createMemoryAskStore();
    // Service B serves the pages; service A asks, and its provider hands out B's links.
    const answering = await startWebService({ store });
    const asking = createInteractionService({ store });
    const links: string[] = [];
    asking.registerProvider(
      createWebProvider(answering.server, {
        mode: 'pending',
        notify: (link) => void links.push(link),
      }),
    );
    try {
      const outcome = asking.ask({ question: 'Deploy now?', options: ['Yes', 'No'] });
      await expect.poll(() => links.length).toBe(1);
      expect(links[0]!.startsWith(answering.server.url)).toBe(true);
      const page = await open(links[0]!);
      await page.getByLabel('Yes').check();
      await send(page);
      expect(await page.locator('h1').textContent()).toBe('Answer recorded');
      expect(await outcome).toEqual({
        status: 'answered',
        answers: [{ questionId: 'q1', response: { kind: 'selection', selections: ['Yes'] } }],
      });
    } finally {
      await asking.close();
      await answering.close();
    }
  });

  it('defers an ask to its link and records the answer that arrives later', async () => {
    const deferring = await startWebService({ mode: 'defer' });
    try {
      const { handle, link } = await deferring.ask({
        question: 'Deploy now?',
        options: ['Yes', 'No'],
      });
      const deferred = await handle.outcome;
      expect(deferred).toMatchObject({ status: 'deferred', interactionId: handle.id });
      const page = await open(link);
      await page.getByLabel('No', { exact: true }).check();
      await send(page);
      expect(await page.locator('h1').textContent()).toBe('Answer recorded');
      expect(await deferring.service.get(handle.id)).toMatchObject({
        state: 'answered',
        outcome: {
          status: 'answered',
          answers: [{ questionId: 'q1', response: { selections: ['No'] } }],
        },
      });
    } finally {
      await deferring.close();
    }
  });
});
