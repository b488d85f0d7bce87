/**
 * The package as `npm pack` makes it and a user installs it, built once for every test that
 * needs it (test/package.test.ts, test/cli/installed-bin.test.ts) instead of once per file.
 *
 * `stage/` is the package folder: `dist/` built from the sources as `npm run build` does it
 * (`tsc -p tsconfig.build.json`, then scripts/build-web-assets.mjs), with package.json, LICENSE
 * and the other files package.json's `files` ships (the README, the guides, the examples).
 * `--noCheck`: the same output, without checking the types again (`npm run typecheck` does that). `project/` is a fresh project with the packed tarball
 * installed, offline: the package's runtime dependencies come from this checkout's node_modules
 * as `file:` overrides.
 *
 * Kept in the ignored `.scratch/packed-package/<fingerprint>/`, where the fingerprint covers the
 * size and modification time of every file the package is made from: any change builds it anew.
 * It lives inside the repository, so imports from `stage/` resolve the peers from this
 * checkout's node_modules, as they would from a user's project that installed them.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const CACHE = join(ROOT, '.scratch', 'packed-package');
/** What the package is made from, besides the folders `tsc -p tsconfig.build.json` compiles. */
const FILES = [
  'package.json',
  'LICENSE',
  'tsconfig.json',
  'tsconfig.build.json',
  'scripts/build-web-assets.mjs',
  'node_modules/typescript/package.json',
  'node_modules/esbuild/package.json',
];
const FOLDERS = ['src', 'machines'];

export interface PackedPackage {
  /** The package folder that was packed, `dist/` built. */
  stage: string;
  /** The tarball `npm pack` wrote. */
  tarball: string;
  /** A fresh project with the tarball and the terminal UI installed, as the README says to. */
  project: string;
  /**
   * A fresh project with the tarball alone: the engine-only install. Outside the repository,
   * so nothing in this checkout's node_modules (the optional peers) can be found from it.
   */
  engineOnly: string;
}

/** The optional peer a project adds for the terminal UI and the CLI's ask and demo. */
export const TERMINAL_UI = '@mariozechner/pi-tui';

let packed: Promise<PackedPackage> | undefined;

/**
 * The built, packed and installed package of the current sources.
 *
 * @example
 * const { project } = await packedPackage();
 * execFile(join(project, 'node_modules/.bin/ask-engine'), ['--help']);
 */
export function packedPackage(): Promise<PackedPackage> {
  packed ??= findOrBuild().catch((error: unknown) => {
    packed = undefined;
    throw error;
  });
  return packed;
}

async function findOrBuild(): Promise<PackedPackage> {
  const print = fingerprint();
  const dir = join(CACHE, print);
  const result: PackedPackage = {
    stage: join(dir, 'stage'),
    tarball: join(dir, `ask-engine-${packageVersion()}.tgz`),
    project: join(dir, 'project'),
    engineOnly: join(tmpdir(), `ask-engine-engine-only-${print}`),
  };
  const ready = join(dir, 'ready');
  for (;;) {
    if (existsSync(ready) && existsSync(result.engineOnly)) return result;
    mkdirSync(CACHE, { recursive: true });
    if (takeLock(`${dir}.lock`)) break;
    // Another test file is building the same package: wait for it.
    await new Promise((done) => setTimeout(done, 250));
  }
  try {
    rmSync(dir, { recursive: true, force: true });
    rmSync(result.engineOnly, { recursive: true, force: true });
    await build(result);
    writeFileSync(ready, '');
    removeOtherBuilds(dir, result.engineOnly);
    return result;
  } finally {
    rmSync(`${dir}.lock`, { recursive: true, force: true });
  }
}

async function build({ stage, tarball, project, engineOnly }: PackedPackage): Promise<void> {
  await run(
    process.execPath,
    [
      join(ROOT, 'node_modules/typescript/bin/tsc'),
      '-p',
      join(ROOT, 'tsconfig.build.json'),
      '--noCheck',
      '--outDir',
      join(stage, 'dist'),
    ],
    { cwd: ROOT },
  );
  // The rest of `npm run build`: the script bundles the pages' scripts into ../dist/ from itself.
  mkdirSync(join(stage, 'scripts'));
  copyFileSync(
    join(ROOT, 'scripts/build-web-assets.mjs'),
    join(stage, 'scripts/build-web-assets.mjs'),
  );
  await run(process.execPath, [join(stage, 'scripts/build-web-assets.mjs')], { cwd: stage });
  for (const file of ['package.json', 'LICENSE', ...shippedSources()]) {
    mkdirSync(dirname(join(stage, file)), { recursive: true });
    copyFileSync(join(ROOT, file), join(stage, file));
  }
  const dir = resolve(tarball, '..');
  const { stdout } = await run(
    'npm',
    ['pack', '--ignore-scripts', '--json', '--pack-destination', dir],
    { cwd: stage },
  );
  const [report] = JSON.parse(stdout) as [{ filename: string }];
  if (join(dir, report.filename) !== tarball) {
    throw new Error(`npm pack wrote ${report.filename}, not ${tarball} as expected.`);
  }
  const { dependencies } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  const fromCheckout = (names: string[]) =>
    Object.fromEntries(names.map((name) => [name, `file:${join(ROOT, 'node_modules', name)}`]));
  const install = async (folder: string, peers: string[]) => {
    mkdirSync(folder);
    writeFileSync(
      join(folder, 'package.json'),
      JSON.stringify({
        name: 'fresh-project',
        version: '1.0.0',
        private: true,
        dependencies: fromCheckout(peers),
        overrides: fromCheckout(Object.keys(dependencies)),
      }),
    );
    // The tarball goes in as the README's Install says (`npm install <tarball>`), offline.
    // --legacy-peer-deps: npm's tree builder fails ("reading 'matches'") placing a linked
    // (file:) package that is also an optional peer; optional peers are never installed for
    // the project anyway, so skipping their placement changes nothing else.
    await run(
      'npm',
      [
        'install',
        '--offline',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        '--legacy-peer-deps',
        tarball,
      ],
      { cwd: folder },
    );
  };
  await Promise.all([install(project, [TERMINAL_UI]), install(engineOnly, [])]);
}

/** The size and modification time of every file the package is made from, hashed. */
function fingerprint(): string {
  const files = [
    ...FILES,
    ...shippedSources(),
    ...FOLDERS.flatMap((folder) => filesUnder(folder)),
  ].sort();
  const hash = createHash('sha256').update(process.version);
  for (const file of files) {
    const { size, mtimeMs } = statSync(join(ROOT, file));
    hash.update(`${file}\0${size}\0${mtimeMs}\n`);
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * The files package.json's `files` ships besides the built `dist/`, read from it: a file by
 * name, or a `*` in a file's name (`docs/*.md`, `examples/*.ts`).
 */
export function shippedSources(): string[] {
  const { files } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    files: string[];
  };
  return files
    .filter((entry) => !entry.startsWith('dist/'))
    .flatMap((entry) => {
      if (!entry.includes('*')) return [entry];
      const [folder, name] = [dirname(entry), basename(entry)];
      const pattern = new RegExp(`^${name.split('*').map(escapeRegExp).join('[^/]*')}$`);
      return readdirSync(join(ROOT, folder))
        .filter((file) => pattern.test(file))
        .map((file) => `${folder}/${file}`);
    });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function filesUnder(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(ROOT.length + 1));
}

function packageVersion(): string {
  return (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string })
    .version;
}

/** Takes the build lock, or says another living process holds it. */
function takeLock(lock: string): boolean {
  try {
    mkdirSync(lock);
    writeFileSync(join(lock, 'pid'), String(process.pid));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  // A lock left by a process that died (a run stopped with Ctrl-C) is taken over.
  const owner = Number(readFileIfAny(join(lock, 'pid')));
  if (owner > 0 && !alive(owner)) rmSync(lock, { recursive: true, force: true });
  return false;
}

function readFileIfAny(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Older builds are of sources that changed since: they are never used again. */
function removeOtherBuilds(keep: string, keepEngineOnly: string): void {
  for (const entry of readdirSync(CACHE)) {
    const path = join(CACHE, entry);
    if (path === keep || entry.endsWith('.lock') || existsSync(`${path}.lock`)) continue;
    rmSync(path, { recursive: true, force: true });
  }
  for (const entry of readdirSync(tmpdir())) {
    const path = join(tmpdir(), entry);
    if (entry.startsWith('ask-engine-engine-only-') && path !== keepEngineOnly) {
      rmSync(path, { recursive: true, force: true });
    }
  }
}
