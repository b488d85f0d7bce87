/** The static files of the pages: the stylesheet and the browser scripts bundled from the codec. */
import { readFile } from 'node:fs/promises';
import { PAGE_STYLE } from './page-style.js';

export interface Asset {
  type: string;
  body: Buffer;
}

/** The browser entries, bundled by scripts/build-web-assets.mjs into `assets/<name>.js`. */
export const BROWSER_ENTRIES = ['answer-page', 'operator-view'] as const;

/**
 * Loads every asset once, at server start. The built package ships the bundles next to this
 * module (`npm run build`); from the TypeScript sources (tests, tsx) they are bundled here
 * with esbuild, a development dependency.
 */
export async function loadAssets(): Promise<Map<string, Asset>> {
  const assets = new Map<string, Asset>();
  assets.set('web.css', { type: 'text/css; charset=utf-8', body: Buffer.from(PAGE_STYLE) });
  for (const name of BROWSER_ENTRIES) {
    assets.set(`${name}.js`, {
      type: 'text/javascript; charset=utf-8',
      body: await loadBundle(name),
    });
  }
  return assets;
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
