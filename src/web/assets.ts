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

async function loadBundle(name: string): Promise<Buffer> {
  try {
    return await readFile(new URL(`./assets/${name}.js`, import.meta.url));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const sourceEntry = new URL(
    `./browser/${name}${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`,
    import.meta.url,
  );
  let esbuild: typeof import('esbuild');
  try {
    esbuild = await import('esbuild');
  } catch {
    throw new Error(
      `ask-engine/web: the browser bundle assets/${name}.js is missing next to ${import.meta.url}; run \`npm run build\` (it bundles the page scripts) or install esbuild.`,
    );
  }
  return Buffer.from(await bundleBrowserEntry(esbuild, sourceEntry));
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
