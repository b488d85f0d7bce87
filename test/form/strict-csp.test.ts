/**
 * The codec's compiled checks generate code; a page whose Content Security Policy forbids that
 * (no 'unsafe-eval') must still decode answers, through TypeBox's interpreter.
 */
import { existsSync } from 'node:fs';
import { build } from 'esbuild';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CHROMIUM = '/usr/bin/chromium';

const PAGE_PROGRAM = `
  let evalBlocked = false;
  try { new Function('return 1')(); } catch { evalBlocked = true; }
  const questions = [{
    id: 'q1', question: 'Which database?', header: 'DB',
    options: [{ title: 'Postgres' }, { title: 'Cafe\\u0301' }],
    allowMultiple: false, allowFreeform: false, allowComment: false,
  }];
  const form = data.buildAskUserForm(questions);
  const encoded = data.encodeAskUserFormAnswer(form, [
    { questionId: 'q1', response: { kind: 'selection', selections: ['café'] } },
  ]);
  const decoded = data.decodeAskUserFormAnswer(questions, encoded);
  let refused = '';
  try {
    data.decodeAskUserFormAnswer(questions, { action: 'submit', values: { 'q1.selection': 7 } });
  } catch (error) {
    refused = error.message;
  }
  return { evalBlocked, decoded, refused };
`;

let bundle: string;
let browser: Browser;

beforeAll(async () => {
  const result = await build({
    entryPoints: ['src/data.ts'],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    logLevel: 'silent',
  });
  bundle = result.outputFiles[0]!.text;
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing; install the chromium package.`);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
});

afterAll(async () => {
  await browser?.close();
});

describe('the form codec under a strict Content Security Policy', () => {
  it('decodes answers with code generation forbidden', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.setContent(
      `<!doctype html><meta http-equiv="Content-Security-Policy" content="script-src blob: 'unsafe-inline'"><title>csp</title>`,
    );
    const result = (await page.evaluate(`(async () => {
      const url = URL.createObjectURL(new Blob([${JSON.stringify(bundle)}], { type: 'text/javascript' }));
      const data = await import(url);
      ${PAGE_PROGRAM}
    })()`)) as { evalBlocked: boolean; decoded: unknown; refused: string };
    await page.close();

    expect(errors).toEqual([]);
    // The page really forbids generated code, so the interpreter did the checking.
    expect(result.evalBlocked).toBe(true);
    expect(result.decoded).toEqual([
      { questionId: 'q1', response: { kind: 'selection', selections: ['Cafe\u0301'] } },
    ]);
    expect(result.refused).toBe(
      'Question "q1", field "q1.selection": has 7, which is not one of its options (option1..option2).',
    );
  });
});
