// Bundles the web pages' browser scripts (src/web/browser/*) into dist/src/web/assets/, after
// `tsc -p tsconfig.build.json`: the built package serves these files and never needs esbuild.
import { mkdir, writeFile } from 'node:fs/promises';
import * as esbuild from 'esbuild';

const web = new URL('../dist/src/web/', import.meta.url);
const { BROWSER_ENTRIES, bundleBrowserEntry } = await import(new URL('assets.js', web).href);
await mkdir(new URL('assets/', web), { recursive: true });
for (const name of BROWSER_ENTRIES) {
  const code = await bundleBrowserEntry(esbuild, new URL(`browser/${name}.js`, web));
  await writeFile(new URL(`assets/${name}.js`, web), code);
  console.log(`dist/src/web/assets/${name}.js: ${code.length} bytes`);
}
