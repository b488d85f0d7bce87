/**
 * Child programs as the tests start them: a TypeScript entry (the CLI, an example, a fixture)
 * bundled with esbuild into one JavaScript file that plain `node` starts in a fraction of the
 * time a TypeScript loader (tsx) takes to compile the same sources on every spawn.
 *
 * The bundle is what the sources say, never a stale copy: it is kept in the ignored
 * `.scratch/program-bundles/` folder with the list of every file esbuild read (sources and
 * bundled packages) and their size and modification time, and built again as soon as one of
 * them differs. So it is built once per change, shared by every test file and worker.
 *
 * The bundle lives inside the repository so the packages kept external (native addons:
 * better-sqlite3, koffi; esbuild itself) and the package's self-reference (`ask-engine/package.json`)
 * resolve from this checkout as they do from the sources. `ask-engine` imports resolve to the
 * TypeScript sources (the `ask-engine:source` condition). When the program serves the web pages
 * (it bundles src/web/assets.ts), their browser scripts are bundled next to it into `assets/`,
 * with the package's own `bundleBrowserEntry`, as `npm run build` places them next to the built
 * module.
 */
import { createHash, randomUUID } from 'node:crypto';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { BROWSER_ENTRIES, bundleBrowserEntry } from '../../src/web/assets.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CACHE = join(ROOT, '.scratch', 'program-bundles');
/** Packages node loads itself: native addons, and esbuild (a native binary of its own). */
const NATIVE = ['better-sqlite3', 'koffi', 'esbuild'];
/** Bump when the build settings below change, so no bundle built with the old ones is reused. */
const SETTINGS_VERSION = 1;

export interface ProgramBundleOptions {
  /** More packages left for node to load from node_modules instead of bundling them. */
  external?: string[];
}

/** A file esbuild read for a bundle, as it was then. */
interface Input {
  path: string;
  size: number;
  mtimeMs: number;
}

/** Where the current bundle of an entry is, and what it was built from. */
interface Pointer {
  dir: string;
  inputs: Input[];
}

const current = new Map<string, Promise<string>>();

/**
 * The absolute path of the JavaScript bundle of `entry` (relative to the repository), built
 * when missing or when any file it was built from changed. Run it with `node <file> ...args`.
 *
 * @example
 * const main = await bundleProgram('src/cli/main.ts');
 * spawn(process.execPath, [main, 'ask', '--help']);
 */
export function bundleProgram(entry: string, options: ProgramBundleOptions = {}): Promise<string> {
  const source = resolve(ROOT, entry);
  const external = [...new Set([...NATIVE, ...(options.external ?? [])])].sort();
  const key = createHash('sha256')
    .update(JSON.stringify({ source, external, esbuild: esbuild.version, SETTINGS_VERSION }))
    .digest('hex')
    .slice(0, 12);
  const name = `${basename(source).replace(/\.[cm]?tsx?$/, '')}-${key}`;
  let bundle = current.get(name);
  if (bundle === undefined) {
    bundle = findOrBuild(name, source, external);
    current.set(name, bundle);
    // A failed build is reported to this caller and tried again by the next.
    bundle.catch(() => current.delete(name));
  }
  return bundle;
}

async function findOrBuild(name: string, source: string, external: string[]): Promise<string> {
  const pointerFile = join(CACHE, `${name}.json`);
  const pointer = readPointer(pointerFile);
  if (pointer?.inputs.every(unchanged)) {
    return join(CACHE, pointer.dir, 'main.mjs');
  }
  mkdirSync(CACHE, { recursive: true });
  const dir = mkdtempSync(join(CACHE, `${name}.`));
  try {
    const result = await esbuild.build({
      absWorkingDir: ROOT,
      entryPoints: [source],
      outfile: join(dir, 'main.mjs'),
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      conditions: ['ask-engine:source'],
      external,
      metafile: true,
      // Some bundled packages are CommonJS and call require().
      banner: {
        js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
      },
      logLevel: 'error',
    });
    const inputs = Object.keys(result.metafile.inputs)
      .filter((path) => !path.includes(':'))
      .map((path) => resolve(ROOT, path));
    if (inputs.includes(join(ROOT, 'src/web/assets.ts'))) {
      inputs.push(...(await bundleAssets(join(dir, 'assets'))));
    }
    const next: Pointer = { dir: basename(dir), inputs: inputs.map(stamp) };
    // Another worker may read the pointer at any time: it changes in one rename.
    const written = `${pointerFile}.${randomUUID()}`;
    writeFileSync(written, JSON.stringify(next));
    renameSync(written, pointerFile);
    removeOlderBuilds(name, next.dir);
    return join(dir, 'main.mjs');
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** The pages' browser scripts, bundled into `dir`; returns the files they were built from. */
async function bundleAssets(dir: string): Promise<string[]> {
  mkdirSync(dir);
  const inputs: string[] = [];
  for (const name of BROWSER_ENTRIES) {
    const entry = pathToFileURL(join(ROOT, 'src/web/browser', `${name}.ts`));
    await writeFile(join(dir, `${name}.js`), await bundleBrowserEntry(esbuild, entry));
    const { metafile } = await esbuild.build({
      entryPoints: [join(ROOT, 'src/web/browser', `${name}.ts`)],
      absWorkingDir: ROOT,
      bundle: true,
      platform: 'browser',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    inputs.push(...Object.keys(metafile.inputs).map((path) => resolve(ROOT, path)));
  }
  return inputs;
}

function readPointer(file: string): Pointer | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Pointer;
  } catch {
    return undefined;
  }
}

function stamp(path: string): Input {
  const { size, mtimeMs } = statSync(path);
  return { path, size, mtimeMs };
}

function unchanged(input: Input): boolean {
  try {
    const { size, mtimeMs } = statSync(input.path);
    return size === input.size && mtimeMs === input.mtimeMs;
  } catch {
    return false;
  }
}

/**
 * Deletes the earlier builds of this entry once they are a minute old: a test that started one
 * just before it went stale may still be reading it.
 */
function removeOlderBuilds(name: string, keep: string): void {
  for (const entry of readdirSync(CACHE)) {
    if (!entry.startsWith(`${name}.`) || entry === keep || entry.endsWith('.json')) continue;
    const path = join(CACHE, entry);
    try {
      if (Date.now() - statSync(path).mtimeMs > 60_000)
        rmSync(path, { recursive: true, force: true });
    } catch {
      // Removed by another worker meanwhile.
    }
  }
}
