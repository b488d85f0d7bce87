/**
 * The CLI as the terminal tests start it: `src/cli/main.ts` bundled once per test file into one
 * JavaScript file, which node starts in a fifth of the time a TypeScript loader takes. Fit for
 * `ask` and `demo` (pure JavaScript); commands that load native modules or files next to their
 * own module (`serve`, `resume --store`) run from the sources (`run-cli.ts`). The
 * installed-package test runs the real built package.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { buildSync } from 'esbuild';

const ROOT = resolve(import.meta.dirname, '../..');
let bundled: string | undefined;

/** `[node, bundle]`: the command that runs the CLI from the current sources. */
export function cliProgram(): string[] {
  if (bundled === undefined) {
    const file = join(mkdtempSync(join(tmpdir(), 'ask-engine-cli-bundle-')), 'ask-engine.mjs');
    buildSync({
      entryPoints: [join(ROOT, 'src/cli/main.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      outfile: file,
      // pi-tui's optional native helper; never loaded on Linux terminals.
      external: ['koffi'],
      // Some bundled dependencies are CommonJS and call require().
      banner: {
        js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
      },
      logLevel: 'error',
    });
    bundled = file;
  }
  return [process.execPath, bundled];
}

/** Deletes this worker's bundle; for a test file's `afterAll`, once its CLI processes are gone. */
export function removeCliBundle(): void {
  if (bundled === undefined) return;
  rmSync(dirname(bundled), { recursive: true, force: true });
  bundled = undefined;
}
