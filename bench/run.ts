/**
 * Runs every `bench/*.bench.ts` in its own process, one after another (`npm run bench`). Each
 * file is first compiled to plain JavaScript with esbuild (the project's code bundled in, its
 * dependencies left as imports), then run by `node`: figures are those of built JavaScript,
 * not of a loader transpiling on the fly. `npm run bench -- terminal form` runs only the files
 * whose names contain one of the words. `--doc` (`npm run bench:doc`) then writes the figures
 * into the tables of docs/benchmarks.md.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readFigures, writeBenchDocs } from './bench-doc.js';
import { bundleForBench } from './bundle.js';
import { FILE_ENV, RESULTS_ENV } from './record.js';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const doc = args.includes('--doc');
const only = args.filter((arg) => arg !== '--doc');
const unknown = only.filter((arg) => arg.startsWith('-'));
if (unknown.length > 0) {
  console.error(`Unknown option ${unknown.join(', ')}; the only option is --doc.`);
  process.exit(2);
}
const files = readdirSync(here)
  .filter((file) => file.endsWith('.bench.ts'))
  .filter((file) => only.length === 0 || only.some((name) => file.includes(name)))
  .sort();
if (files.length === 0) {
  console.error(`No benchmark file matches ${only.join(', ')}.`);
  process.exit(2);
}

// Inside the project, so the bundles resolve the project's node_modules.
const out = mkdtempSync(join(here, '.built-'));
const results = join(out, 'figures.jsonl');
writeFileSync(results, '');
const failed: string[] = [];
try {
  for (const file of files) {
    console.log(`\n# ${file}`);
    const outfile = join(out, file.replace(/\.ts$/, '.mjs'));
    await bundleForBench({ entryPoints: [join(here, file)], outfile });
    const run = spawnSync(process.execPath, ['--expose-gc', outfile], {
      stdio: 'inherit',
      env: { ...process.env, [RESULTS_ENV]: results, [FILE_ENV]: file.replace(/\.bench\.ts$/, '') },
    });
    if (run.status !== 0) failed.push(file);
  }
  if (doc) {
    // A file that failed (it crashed or could not measure) keeps its earlier figures: a half-run
    // never replaces a whole one. A missed goal is no failure: it is written, with its verdict.
    const figures = readFigures(readFileSync(results, 'utf8')).filter(
      (figure) => !failed.includes(`${figure.file}.bench.ts`),
    );
    writeBenchDocs(new URL('../', import.meta.url), figures);
    console.log(`\nWrote ${figures.length} figures to docs/benchmarks.md.`);
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}
if (failed.length > 0) console.error(`\nFailed: ${failed.join(', ')}`);
process.exitCode = failed.length === 0 ? 0 : 1;
