/** The static files of the pages: the stylesheet and the browser scripts bundled from the codec. */
import { readFile } from 'node:fs/promises';
import { PAGE_STYLE } from './page-style.js';

export interface Asset {
  type: string;
  body: Buffer;
}

/** The browser entries, bundled by scripts/build-web-assets.mjs into `assets/<name>.js`. */
export const BROWSER_ENTRIES = ['answer-page', 'operator-view'] as const;

export interface Assets {
  /** The asset named `name` (e.g. `answer-page.js`), or undefined when there is none. */
  get(name: string): Promise<Asset | undefined>;
}

/**
 * The pages' static files, each loaded once, on first request. The built package ships the
 * bundles next to this module (`npm run build`); from the TypeScript sources (tests, tsx) they
 * are bundled here with esbuild, a development dependency. A script that cannot be loaded is
 * reported once as a process warning and answered 404: the pages work without it.
 */
export function createAssets(): Assets {
  const style: Asset = { type: 'text/css; charset=utf-8', body: Buffer.from(PAGE_STYLE) };
  const scripts = new Map<string, Promise<Asset | undefined>>();
  return {
    get(name) {
      if (name === 'web.css') return Promise.resolve(style);
      const entry = BROWSER_ENTRIES.find((candidate) => `${candidate}.js` === name);
      if (entry === undefined) return Promise.resolve(undefined);
      let script = scripts.get(name);
      if (script === undefined) {
        script = loadBundle(entry).then(
          (body): Asset => ({ type: 'text/javascript; charset=utf-8', body }),
          (error: unknown) => {
            process.emitWarning(
              `ask-engine/web: serving the pages without ${name}: ${(error as Error).message}`,
            );
            return undefined;
          },
        );
        scripts.set(name, script);
      }
      return script;
    },
  };
}

function loadBundle(name: string): Promise<Buffer> {
  return loadBrowserBundle(
    new URL(`./assets/${name}.js`, import.meta.url),
    new URL(`./browser/${name}${sourceExtension(import.meta.url)}`, import.meta.url),
  );
}

/** `.ts` for a module running from the TypeScript sources, `.js` in the built package. */
export function sourceExtension(moduleUrl: string): '.ts' | '.js' {
  return moduleUrl.endsWith('.ts') ? '.ts' : '.js';
}

/**
 * A browser script: the built package's bundle at `built`, else the entry at `source` bundled
 * here with esbuild (a development dependency), as when running from the TypeScript sources.
 */
export async function loadBrowserBundle(built: URL, source: URL): Promise<Buffer> {
  try {
    return await readFile(built);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  let esbuild: typeof import('esbuild');
  try {
    esbuild = await import('esbuild');
  } catch {
    throw new Error(
      `ask-engine: the browser bundle ${built.pathname} is missing; run \`npm run build\` (it bundles the browser scripts) or install esbuild.`,
    );
  }
  return Buffer.from(await bundleBrowserEntry(esbuild, source));
}

/** Bundles one browser entry for the page; shared with the build script's settings. */
export async function bundleBrowserEntry(
  esbuild: typeof import('esbuild'),
  entry: URL,
): Promise<string> {
  const result = await esbuild.build({
    entryPoints: [decodeURIComponent(entry.pathname)],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    minify: true,
    write: false,
    logLevel: 'silent',
    legalComments: 'none',
  });
  return result.outputFiles[0]!.text;
}
