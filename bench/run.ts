/**
 * Runs every `bench/*.bench.ts` in its own process, one after another (`npm run bench`). Each
 * file is first compiled to plain JavaScript with esbuild (the project's code bundled in, its
 * dependencies left as imports), then run by `node`: figures are those of built JavaScript,
 * not of a loader transpiling on the fly. `npm run bench -- terminal form` runs only the files
 * whose names contain one of the words.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(here)
  .filter((file) => file.endsWith('.bench.ts'))
  .filter((file) => only.length === 0 || only.some((name) => file.includes(name)))
  .sort();

// Inside the project, so the bundles resolve the project's node_modules.
const out = mkdtempSync(join(here, '.built-'));
let failed = 0;
try {
  for (const file of files) {
    console.log(`\n# ${file}`);
    const outfile = join(out, file.replace(/\.ts$/, '.mjs'));
    await build({
      entryPoints: [join(here, file)],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      conditions: ['ask-engine:source'],
      logLevel: 'warning',
    });
    const run = spawnSync(process.execPath, ['--expose-gc', outfile], {
      stdio: 'inherit',
    });
    if (run.status !== 0) failed++;
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}
process.exitCode = failed === 0 ? 0 : 1;
