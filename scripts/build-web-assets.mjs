// Bundles the web pages' browser scripts (src/web/browser/*) into dist/src/web/assets/, and the
// MCP Apps form's view (src/mcp/apps-view.ts) into dist/src/mcp/assets/, after
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

const mcp = new URL('../dist/src/mcp/', import.meta.url);
const { APPS_VIEW_ENTRY } = await import(new URL('apps-resource.js', mcp).href);
await mkdir(new URL('assets/', mcp), { recursive: true });
const view = await bundleBrowserEntry(esbuild, new URL(`${APPS_VIEW_ENTRY}.js`, mcp));
await writeFile(new URL(`assets/${APPS_VIEW_ENTRY}.js`, mcp), view);
console.log(`dist/src/mcp/assets/${APPS_VIEW_ENTRY}.js: ${view.length} bytes`);
