/**
 * The package as a user installs it: built JavaScript, resolved through the exports map, in
 * plain Node. Each script runs in the packed package's folder (test/support/packed-package.ts), so
 * `ask-engine` resolves to its `dist/` as the package resolves itself.
 */
import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { packedPackage, shippedSources } from './support/packed-package.js';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '..');
/** The packed package's folder: package.json and the `dist/` `npm run build` makes. */
let stage: string;
/** The tarball `npm pack` wrote, and a fresh project it was installed into. */
let tarball: string;
let project: string;
/** A fresh project with the tarball alone, where no optional peer can be found. */
let engineOnly: string;

/** The commands of the README's Install section, comments dropped. */
async function readmeInstallCommands(): Promise<string[]> {
  const readme = await readFile(join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('\n## Install\n'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return block
    .split('\n')
    .map((line) => line.replace(/#.*$/, '').trim())
    .filter((line) => line !== '');
}

describe('the built package', () => {
  beforeAll(async () => {
    ({ stage, tarball, project, engineOnly } = await packedPackage());
  }, 180_000);

  it('installs from a clone as the README says: npm pack, then npm install of the tarball it wrote', async () => {
    const [pack, install, terminal] = await readmeInstallCommands();
    expect(pack).toBe('npm ci && npm pack');
    // `npm pack` builds dist/ first in a clone, as the tests' own build does.
    const manifest = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
    expect(manifest.scripts.prepack).toBe('npm run build');
    // The tarball the README names is the one npm pack writes (its name follows the version).
    const [command, target, ...rest] = install?.split(' ').slice(1) ?? [];
    expect([command, rest]).toEqual(['install', []]);
    expect(basename(target ?? '')).toBe(basename(tarball));
    expect(terminal).toBe('npm install @mariozechner/pi-tui');
    // The project got it through that command: npm recorded the tarball as its dependency.
    const installed = JSON.parse(await readFile(join(project, 'package.json'), 'utf8'));
    const spec: string = installed.dependencies['ask-engine'];
    expect(spec.startsWith('file:') && resolve(project, spec.slice('file:'.length))).toBe(tarball);
  });

  it('ships what package.json names: the README, the guides and the examples the guides point to', async () => {
    const { stdout } = await run('tar', ['-tzf', tarball]);
    const packed = stdout.split('\n').map((entry) => entry.replace(/^package\//, ''));
    const examples = (await readdir(join(root, 'examples'))).filter((name) => name.endsWith('.ts'));
    expect(examples.length).toBeGreaterThan(0);
    expect(shippedSources()).toEqual(
      expect.arrayContaining(examples.map((name) => `examples/${name}`)),
    );
    expect(packed).toEqual(expect.arrayContaining(['README.md', 'LICENSE', ...shippedSources()]));
  });

  it('type-checks the shipped examples against the published types, as a user compiles them', async () => {
    const installed = join(project, 'node_modules', 'ask-engine');
    const examples = (await readdir(join(installed, 'examples'))).map((name) =>
      join(installed, 'examples', name),
    );
    // The project's strictest options, without the condition that maps ask-engine to src/: the
    // examples import ask-engine by name and get the .d.ts files of dist/. The frameworks they
    // use (ai, LangGraph, pi) are found in this checkout's node_modules, up from the project.
    await expect(
      run(
        process.execPath,
        [
          join(root, 'node_modules/typescript/bin/tsc'),
          '--noEmit',
          '--strict',
          '--noUncheckedIndexedAccess',
          '--exactOptionalPropertyTypes',
          '--verbatimModuleSyntax',
          '--skipLibCheck',
          '--target',
          'es2022',
          '--module',
          'nodenext',
          '--moduleResolution',
          'nodenext',
          '--types',
          'node',
          ...examples,
        ],
        { cwd: project },
      ).catch((error: { stdout: string }) => Promise.reject(new Error(error.stdout))),
    ).resolves.toBeDefined();
  }, 120_000);

  it('runs a shipped example where the package is installed, with tsx', async () => {
    // The Run (installed) line of the example, with this checkout's tsx.
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', 'node_modules/ask-engine/examples/web-mount.ts'],
      { cwd: project },
    );
    expect(stdout).toMatch(/posted to \/answers\/a\/[^:]+: 200/);
    expect(stdout).toContain('"selections":["Yes"]');
  }, 60_000);

  it('imports every entry from dist without a TypeScript loader', async () => {
    const script = `
      const root = await import('ask-engine');
      const data = await import('ask-engine/data');
      const terminal = await import('ask-engine/terminal');
      const mcp = await import('ask-engine/mcp');
      const notify = await import('ask-engine/notify');
      const otel = await import('ask-engine/otel');
      const sqlite = await import('ask-engine/sqlite');
      const store = sqlite.createSqliteAskStore({ path: ':memory:' });
      const stored = await store.get('none');
      await store.close();
      const postgres = await import('ask-engine/postgres');
      // The client connects on first use: a store that is never used opens no connection.
      await postgres.createPostgresAskStore({ connectionString: 'postgres://nobody@127.0.0.1:1/none' }).close();
      const service = root.createInteractionService({ otel: otel.createOtel() });
      service.registerProvider(root.createScriptedProvider([{ cancel: 'user' }]));
      const outcome = await service.ask({ question: 'Ship it?', options: ['Yes', 'No'] });
      console.log(JSON.stringify({
        root: Object.keys(root).length,
        data: Object.keys(data).length,
        terminal: Object.keys(terminal).length,
        mcp: Object.keys(mcp).sort(),
        notify: typeof notify.createWebhookChannel,
        otel: Object.keys(otel),
        sqlite: Object.keys(sqlite),
        stored: stored === undefined,
        postgres: Object.keys(postgres).sort(),
        outcome,
        from: import.meta.resolve('ask-engine'),
      }));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
      cwd: stage,
    });
    const result = JSON.parse(stdout);
    expect(result.from).toMatch(/\/dist\/src\/index\.js$/);
    expect(result.outcome).toEqual({ status: 'cancelled', reason: 'user' });
    expect(result.root).toBeGreaterThan(result.data);
    expect(result.terminal).toBeGreaterThan(0);
    expect(result.mcp).toEqual([
      'DECLINED',
      'DISMISSED',
      'TASK_CANCELLED',
      'createAskUserMcpServer',
      'createElicitationProvider',
      'createElicitationSchemaValidator',
    ]);
    expect(result.notify).toBe('function');
    expect(result.otel).toEqual(['createOtel']);
    expect(result.sqlite).toEqual(['createSqliteAskStore']);
    expect(result.stored).toBe(true);
    expect(result.postgres).toEqual(['CorruptAskRowError', 'createPostgresAskStore']);
  });

  it('imports the framework adapters from dist, each with its framework', async () => {
    const script = `
      const aiSdk = await import('ask-engine/ai-sdk');
      const langgraph = await import('ask-engine/langgraph');
      const pi = await import('ask-engine/pi');
      const claude = await import('ask-engine/claude');
      const openaiAgents = await import('ask-engine/openai-agents');
      const chat = await import('ask-engine/chat');
      console.log(JSON.stringify({
        aiSdk: typeof aiSdk.askUserTool,
        langgraph: typeof langgraph.askOrInterrupt,
        pi: typeof pi.default,
        claude: typeof claude.createCanUseTool,
        openaiAgents: typeof openaiAgents.askRunApprovals,
        chat: typeof chat.createChatProvider,
        from: import.meta.resolve('ask-engine/pi'),
      }));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
      cwd: stage,
    });
    expect(JSON.parse(stdout)).toEqual({
      aiSdk: 'function',
      langgraph: 'function',
      pi: 'function',
      claude: 'function',
      openaiAgents: 'function',
      chat: 'function',
      from: expect.stringMatching(/\/dist\/src\/pi\/index\.js$/),
    });
  });

  it('keeps the terminal UI, the MCP SDK and OpenTelemetry out of the root entry', async () => {
    const { build } = await import('esbuild');
    const result = await build({
      entryPoints: [`${root}/src/index.ts`],
      bundle: true,
      write: false,
      metafile: true,
      platform: 'node',
      format: 'esm',
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.some((file) => file.includes('xstate'))).toBe(true);
    expect(inputs.some((file) => file.includes('src/engine/service.ts'))).toBe(true);
    expect(
      inputs.filter((file) =>
        /pi-tui|src\/terminal|@modelcontextprotocol|src\/mcp|src\/notify|src\/chat\/|node_modules\/chat\/|standardwebhooks|@opentelemetry|src\/otel\//.test(
          file,
        ),
      ),
    ).toEqual([]);
    expect(inputs.filter((file) => file.includes('sqlite'))).toEqual([]);
    expect(inputs.filter((file) => file.includes('postgres'))).toEqual([]);
  });

  it('serves the web answer page and its bundled script from dist', async () => {
    const script = `
      const { createInteractionService } = await import('ask-engine');
      const { createWebAnswerServer, createWebProvider } = await import('ask-engine/web');
      const service = createInteractionService();
      const server = await createWebAnswerServer({ service, secret: 'a'.repeat(32) });
      service.registerProvider(createWebProvider(server));
      const outcome = await service.ask({ question: 'Ship it?', options: ['Yes', 'No'] });
      const link = await server.linkFor(outcome.interactionId);
      const page = await (await fetch(link)).text();
      const bundle = await fetch(server.url + '/assets/answer-page.js');
      console.log(JSON.stringify({
        from: import.meta.resolve('ask-engine/web'),
        status: outcome.status,
        page: page.includes('Ship it?') && page.includes('assets/answer-page.js'),
        bundle: bundle.status,
        bytes: (await bundle.text()).length,
      }));
      await server.close();
      await service.close();`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
      cwd: stage,
    });
    const result = JSON.parse(stdout);
    expect(result.from).toMatch(/\/dist\/src\/web\/index\.js$/);
    expect(result).toMatchObject({ status: 'deferred', page: true, bundle: 200 });
    expect(result.bytes).toBeGreaterThan(1000);
    // Served from the file `npm run build` wrote, so a user needs no bundler at run time.
    const built = await readFile(`${stage}/dist/src/web/assets/answer-page.js`, 'utf8');
    expect(built.length).toBe(result.bytes);
  });

  it('imports the notify entry without web-push, and a Web Push send names the missing peer', async () => {
    const script = `
      const { generateKeyPairSync, randomBytes } = await import('node:crypto');
      const { createWebPushChannel } = await import('ask-engine/notify');
      const key = () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
      const point = (jwk) => Buffer.concat([Buffer.of(4), Buffer.from(jwk.x, 'base64url'), Buffer.from(jwk.y, 'base64url')]).toString('base64url');
      const server = key();
      const browser = key();
      const channel = createWebPushChannel({
        vapid: { subject: 'mailto:ops@example.com', publicKey: point(server), privateKey: server.d },
      });
      const address = JSON.stringify({
        endpoint: 'https://push.example.net/v2/abc',
        keys: { p256dh: point(browser), auth: randomBytes(16).toString('base64url') },
      });
      const question = { id: 'q1', question: 'Ship?', header: 'Q1', options: [], allowMultiple: false, allowFreeform: true, allowComment: false };
      const notification = { kind: 'created', askId: 'ask-1', at: Date.now(), questions: [question], recipient: { id: 'alice', channel: 'web-push', address } };
      const error = await channel.send(notification, new AbortController().signal).catch((e) => e);
      console.log(error.message);`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
      cwd: engineOnly,
    });
    expect(stdout).toBe(
      'createWebPushChannel needs the web-push package, an optional peer dependency of ask-engine: install web-push@^3.6.7.\n',
    );
  });

  it('runs the ask-engine bin from dist', async () => {
    const { stdout } = await run(process.execPath, ['dist/src/cli/main.js', '--help'], {
      cwd: stage,
    });
    expect(stdout).toMatch(/ask-engine ask/);
    expect(stdout).toMatch(/ask-engine demo/);
    expect(stdout).toMatch(/ask-engine mcp/);
  });
});
