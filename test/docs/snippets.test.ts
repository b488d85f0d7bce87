/**
 * Every code block of the README and the guides is a file in docs/snippets/, type-checked with
 * the project (`npm run typecheck`) and run here as written: bundled like the benchmarks (the
 * project's sources under its `ask-engine:source` condition, packages as they are installed),
 * run by `node` with no terminal, against the real parts it talks to (PostgreSQL, an SMTP
 * server, a webhook receiver), each with the output its page promises.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeBlocks, readSnippet, snippetPages, withSnippets } from '../../scripts/snippets.js';
import { startHttpRecorder } from '../notify/http-recorder.js';
import { startSmtpReceiver } from '../notify/smtp-receiver.js';
import { createTestSubscription } from '../notify/web-push-browser.js';
import { startWebhookReceiver } from '../notify/webhook-receiver.js';
import {
  type PostgresCluster,
  postgresMissing,
  startPostgresCluster,
} from '../support/postgres-cluster.js';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const SNIPPETS = 'docs/snippets';
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<
  'dependencies' | 'peerDependencies' | 'devDependencies',
  Record<string, string>
>;
const installedPackages = [
  ...Object.keys(manifest.dependencies),
  ...Object.keys(manifest.peerDependencies),
  ...Object.keys(manifest.devDependencies),
];
const pages = snippetPages(ROOT).map((page) => ({
  page,
  text: readFileSync(join(ROOT, page), 'utf8'),
}));

describe('the pages', () => {
  it('mark every TypeScript or JavaScript block with the snippet file it shows', () => {
    const unmarked = pages.flatMap(({ page, text }) =>
      codeBlocks(text, page)
        .filter((block) => /^(ts|typescript|js|javascript|mjs|tsx)$/.test(block.language))
        .filter((block) => block.snippet === undefined)
        .map((block) => `${block.page}:${block.line}`),
    );
    expect(unmarked).toEqual([]);
  });

  it('show each snippet exactly as its file has it (npm run docs:snippets copies them in)', () => {
    for (const { page, text } of pages) {
      expect(
        withSnippets(text, page, (path) => readSnippet(ROOT, path)),
        page,
      ).toBe(text);
    }
  });

  it('show every snippet file somewhere', () => {
    const shown = new Set(
      pages.flatMap(({ page, text }) => codeBlocks(text, page).map((block) => block.snippet)),
    );
    const files = readdirSync(join(ROOT, SNIPPETS)).map((name) => `${SNIPPETS}/${name}`);
    expect(files.filter((file) => !shown.has(file))).toEqual([]);
  });

  it('open the README with the two commands and fit its first screen in 60 lines', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n');
    expect(readme.slice(0, 6).join('\n')).toMatch(
      /^# ask-engine\n\n```sh\nnpm ci && npm run demo .*\nnpm ci && npm run setup && npm test .*\n```$/,
    );
    const firstScreen = readme.slice(0, readme.indexOf('## Guides'));
    expect(firstScreen.length).toBeLessThanOrEqual(60);
    expect(firstScreen.join('\n')).toContain('npm install ask-engine');
    expect(firstScreen.join('\n')).toContain(
      '<!-- snippet: docs/snippets/readme-agent-loop.ts -->',
    );
  });
});

describe('the examples', () => {
  it('each name a Run line for a fresh clone (the sources, no dist/ needed) and one for the installed package', () => {
    const examples = readdirSync(join(ROOT, 'examples')).filter((name) => name.endsWith('.ts'));
    expect(examples.length).toBeGreaterThan(0);
    for (const name of examples) {
      const text = readFileSync(join(ROOT, 'examples', name), 'utf8');
      expect(text, name).toContain(
        ` * Run (in a clone): node --conditions=ask-engine:source --import tsx examples/${name}\n` +
          ` * Run (installed): npx tsx node_modules/ask-engine/examples/${name}\n`,
      );
    }
  });
});

describe.concurrent('every snippet runs as written', () => {
  // Inside the project, so the bundles resolve its node_modules.
  const out = mkdtempSync(join(ROOT, 'docs', '.built-'));
  let cluster: PostgresCluster | undefined;
  const bundles = new Map<string, string>();

  beforeAll(async () => {
    const files = readdirSync(join(ROOT, SNIPPETS)).filter((name) => name.endsWith('.ts'));
    await Promise.all(
      files.map(async (name) => {
        const outfile = join(out, name.replace(/\.ts$/, '.mjs'));
        await build({
          entryPoints: [join(ROOT, SNIPPETS, name)],
          outfile,
          bundle: true,
          platform: 'node',
          format: 'esm',
          target: 'node20',
          // ask-engine itself from its sources; every other package as installed.
          external: installedPackages,
          conditions: ['ask-engine:source'],
          logLevel: 'warning',
        });
        bundles.set(name, outfile);
      }),
    );
  }, 60_000);

  afterAll(async () => {
    rmSync(out, { recursive: true, force: true });
    await cluster?.destroy();
  });

  /** Runs a snippet with no controlling terminal (a new session), as CI and a pipe would. */
  async function runSnippet(name: string, env: Record<string, string> = {}): Promise<string> {
    const bundle = bundles.get(name);
    if (bundle === undefined) throw new Error(`No snippet ${name} in ${SNIPPETS}.`);
    const { stdout } = await run('setsid', ['--wait', process.execPath, bundle], {
      cwd: out,
      // TMPDIR: what a snippet makes in the temp folder is removed with the built ones.
      env: {
        ...process.env,
        ASK_ENGINE_SETTINGS: join(out, 'no-settings.json'),
        TMPDIR: out,
        ...env,
      },
      timeout: 30_000,
    });
    return stdout;
  }

  it('readme-agent-loop: without a terminal, says nobody could be asked', async () => {
    const stdout = await runSnippet('readme-agent-loop.ts');
    expect(stdout).toMatch(/^cancelled$/m);
    expect(stdout).toMatch(/do not assume an answer|not available|unavailable/i);
  });

  it('terminal-provider: without a terminal, cancelled and never a guess', async () => {
    expect(await runSnippet('terminal-provider.ts')).toBe('cancelled\n');
  });

  it('custom-provider: the tool result and the permission check', async () => {
    const stdout = await runSnippet('custom-provider.ts');
    expect(stdout).toContain('Selected: "SQLite"');
    expect(stdout).toMatch(/not running it \(answered\)\n$/);
  });

  it('durable-resume: asked once under one key, resumed by another service', async () => {
    expect(await runSnippet('durable-resume.ts')).toBe(
      'posted to thread-42: Which region?\ndeferred true\nanswered\nanswered\nstart\nprovider.deferred\nresume\n',
    );
  });

  it('sqlite-store: deferred in one store handle, resumed through another on the file', async () => {
    expect(await runSnippet('sqlite-store.ts')).toBe('deferred\nanswered\n');
  });

  it.skipIf(postgresMissing !== undefined && !process.env.CI)(
    'postgres-store: on a real PostgreSQL server',
    async () => {
      cluster = await startPostgresCluster();
      expect(await runSnippet('postgres-store.ts', { DATABASE_URL: cluster.url })).toBe(
        'answered\nanswered\n',
      );
    },
    60_000,
  );

  it('web-answer-page: defers to a link whose page shows the question', async () => {
    const stdout = await runSnippet('web-answer-page.ts');
    expect(stdout).toMatch(
      /^The agent has a question for you: http:\/\/127\.0\.0\.1:\d+\/a\/\S+\?t=\S+\ndeferred\n200 true\n$/,
    );
  });

  it('mcp-server: a real MCP client of each era answers through elicitation', async () => {
    const stdout = await runSnippet('mcp-server.ts');
    expect(stdout).toContain('the client shows: Deploy now?');
    expect(stdout.match(/Selected: \\"No\\"|Selected: "No"/g)).toHaveLength(2);
    expect(stdout).toContain('2025-11-25');
    expect(stdout).toContain('2026-07-28');
  });

  it('notify-channels: a mail reaches a real SMTP server and a signed webhook verifies', async () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const smtp = await startSmtpReceiver();
    const hooks = await startWebhookReceiver(secret);
    try {
      const stdout = await runSnippet('notify-channels.ts', {
        SMTP_URL: smtp.url,
        WEBHOOK_URL: hooks.url,
        WEBHOOK_SECRET: secret,
      });
      expect(stdout).toBe('sent: one mail, one signed webhook\n');
      expect(smtp.received.map((mail) => mail.rcptTo)).toEqual([['alice@example.com']]);
      expect(smtp.received[0]?.mail.text).toContain('Deploy now?');
      expect(hooks.received.map((hook) => hook.verified.ok)).toEqual([true]);
    } finally {
      await smtp.close();
      await hooks.close();
    }
  });

  it('notify-provider: the ask is deferred and alice gets her mail from the outbox', async () => {
    const stdout = await runSnippet('notify-provider.ts');
    expect(stdout).toMatch(/^deferred\n/);
    expect(stdout).toContain('alice@example.com');
  });

  it('push-channels: alice gets an ntfy message with two buttons, bob an encrypted web push', async () => {
    const receiver = await startHttpRecorder();
    const bob = createTestSubscription(`${receiver.url}/push/bob`);
    try {
      const stdout = await runSnippet('push-channels.ts', {
        NTFY_URL: receiver.url,
        WEB_PUSH_SUBSCRIPTION: JSON.stringify(bob.json),
      });
      expect(stdout).toBe('deferred\nsent\n');
      const ntfy = receiver.received.find((request) => request.path === '/');
      const message = JSON.parse(ntfy?.body.toString('utf8') ?? '{}');
      expect(message.topic).toBe('alice-approvals-7c41d9e2');
      expect(message.actions.map((action: { label: string }) => action.label)).toEqual([
        'Deploy',
        'Hold',
      ]);
      const pushed = receiver.received.find((request) => request.path === '/push/bob');
      expect(JSON.parse(bob.decrypt(pushed!.body)).body).toContain('Deploy release 4.2?');
    } finally {
      await receiver.close();
    }
  });

  it('otel-traces: one span per ask, an event per transition, on the real SDK', async () => {
    expect(await runSnippet('otel-traces.ts')).toBe('ask-engine.ask start → provider.answered\n');
  });

  it('answered-by: who answered, kept under redaction', async () => {
    const stdout = await runSnippet('answered-by.ts');
    expect(stdout).toContain("{ recipient: 'alice@example.com', channel: 'email' }");
    expect(stdout).toMatch(
      /answers: '\[redacted\]',\s+answeredBy: \{ recipient: 'u024be7lh', channel: 'slack' \}/,
    );
  });

  it('quorum: two of three approve; the same person twice is refused and counted once', async () => {
    expect(await runSnippet('quorum.ts')).toBe(
      [
        'Needs 2 people of ana, ben, cy giving the same answer; picking Deny ends it at once. Responded so far: ana. 1 more response needed.',
        'duplicate',
        "answered [ 'ana', 'cy' ]",
        "response.recorded { by: 'ana', answers: '[redacted]' }",
        "response.refused { by: 'ana', reason: 'duplicate' }",
        "response.recorded { by: 'cy', answers: '[redacted]', decided: 'quorum' }",
        '',
      ].join('\n'),
    );
  });

  it('claude-can-use-tool: the SDK gets the edited input, and the answers keyed by question', async () => {
    const stdout = await runSnippet('claude-can-use-tool.ts');
    expect(stdout).toContain("updatedInput: { command: 'npm test -- --run' }");
    expect(stdout).toContain("{ 'Which database?': 'SQLite' }");
  });

  it('list-asks: what waits for a person, and the asks of one agent in one session', async () => {
    expect(await runSnippet('list-asks.ts')).toBe("2\n[ 'Deploy?' ]\n");
  });

  it('retention: a purge deletes no open ask', async () => {
    expect(await runSnippet('retention.ts')).toBe('0\n');
  });

  it('openai-agents-approvals: the run waits, one other host continues it once approved', async () => {
    expect(await runSnippet('openai-agents-approvals.ts')).toBe(
      'waiting\nshell: approve\nclaimed\nCleaned the build folder.\n',
    );
  });

  it('ai-sdk-loop: the shell runs only after the person allowed it', async () => {
    expect(await runSnippet('ai-sdk-loop.ts')).toBe(
      'Done: {"type":"text","value":"ran rm -rf build/"}\n',
    );
  });

  it('langgraph-node: the graph pauses on the deferred ask and resumes with the answer', async () => {
    const stdout = await runSnippet('langgraph-node.ts');
    expect(stdout).toMatch(/askId: '.+'/);
    expect(stdout).toMatch(/SQLite\n$/);
  });
});
