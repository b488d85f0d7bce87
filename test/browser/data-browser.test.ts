import { existsSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { build, type Metafile } from 'esbuild';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CHROMIUM = '/usr/bin/chromium';

// Runs in the page with the bundle's exports as `data`; plain JavaScript.
const PAGE_PROGRAM = `
  const questions = [
    {
      id: 'q1',
      question: 'Which **database**?',
      header: 'DB',
      options: [{ title: 'Postgres' }, { title: 'SQLite', description: '<b>small</b>' }],
      allowMultiple: false,
      allowFreeform: true,
      allowComment: true,
    },
    {
      id: 'q2',
      question: 'Anything else?',
      header: 'Notes',
      options: [],
      allowMultiple: false,
      allowFreeform: true,
      allowComment: false,
    },
  ];
  const form = JSON.parse(JSON.stringify(data.buildAskUserForm(questions)));
  const read = data.readAskUserForm(form);
  const encoded = data.encodeAskUserFormAnswer(form, [
    { questionId: 'q1', response: { kind: 'selection', selections: ['sqlite'], comment: 'ok 😀' } },
  ]);
  const decoded = data.decodeAskUserFormAnswer(questions, JSON.parse(JSON.stringify(encoded)));
  let refused = '';
  try {
    data.decodeAskUserFormAnswer(questions, {
      action: 'submit',
      values: { 'q1.mode': 'choice', 'q1.selection': 'option9', 'q2.mode': 'skip' },
    });
  } catch (error) {
    refused = data.isUserInteractionError(error, 'INVALID_ANSWER') ? error.message : 'wrong error';
  }
  return {
    inBrowser: typeof window === 'object' && typeof globalThis.process === 'undefined',
    readBack: read && read.length,
    description: form.fields[1].options[1].description,
    encoded,
    decoded,
    refused,
  };
`;

interface PageResult {
  inBrowser: boolean;
  readBack: number | null;
  description: string;
  encoded: unknown;
  decoded: unknown;
  refused: string;
}
const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

let bundle: string;
let metafile: Metafile;
const nodeImports: string[] = [];

beforeAll(async () => {
  const result = await build({
    entryPoints: ['src/data.ts'],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    metafile: true,
    logLevel: 'silent',
    plugins: [
      {
        name: 'record-node-imports',
        setup(pluginBuild) {
          // Record and keep external, so one test reports every offender at once.
          pluginBuild.onResolve({ filter: /.*/ }, (args) => {
            if (args.path.startsWith('node:') || builtins.has(args.path.split('/')[0]!)) {
              nodeImports.push(`${args.path} (from ${args.importer})`);
              return { path: args.path, external: true };
            }
            return undefined;
          });
        },
      },
    ],
  });
  bundle = result.outputFiles[0]!.text;
  metafile = result.metafile;
});

describe('ask-engine/data in a browser bundle', () => {
  it('imports no Node built-in', () => {
    expect(nodeImports).toEqual([]);
  });

  it('pulls in neither xstate nor rxjs', () => {
    const inputs = Object.keys(metafile.inputs);
    expect(inputs.filter((input) => /node_modules\/(xstate|rxjs|@xstate)\//.test(input))).toEqual(
      [],
    );
    expect(inputs.some((input) => input.includes('@sinclair/typebox'))).toBe(true);
    expect(bundle).not.toMatch(/from ["'](xstate|rxjs)/);
  });
});

describe('ask-engine/data in headless Chromium', () => {
  let browser: Browser;

  beforeAll(async () => {
    // Fail, never skip: CI installs Debian chromium for exactly this test.
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

  it('builds a form, encodes an answer and decodes it in a real page', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.setContent('<!doctype html><title>ask-engine/data</title>');
    // A string, not a function: the test runner rewrites a function's `import()` for Node.
    const result = (await page.evaluate(`(async () => {
      const url = URL.createObjectURL(new Blob([${JSON.stringify(bundle)}], { type: 'text/javascript' }));
      const data = await import(url);
      ${PAGE_PROGRAM}
    })()`)) as PageResult;
    await page.close();

    expect(errors).toEqual([]);
    expect(result.inBrowser).toBe(true);
    expect(result.readBack).toBe(2);
    expect(result.description).toBe('\\<b\\>small\\</b\\>');
    expect(result.encoded).toEqual({
      action: 'submit',
      values: {
        'q1.mode': 'choice',
        'q1.selection': 'option2',
        'q1.comment': 'ok 😀',
        'q2.mode': 'skip',
      },
    });
    expect(result.decoded).toEqual([
      {
        questionId: 'q1',
        response: { kind: 'selection', selections: ['SQLite'], comment: 'ok 😀' },
      },
      { questionId: 'q2', response: null },
    ]);
    expect(result.refused).toContain('q1.selection');
  });
});
