/**
 * How a benchmark is built before it runs: bundled to plain JavaScript with esbuild, the
 * project's code in (its TypeScript sources, through the `ask-engine:source` condition) and its
 * dependencies left as imports, so figures are those of built JavaScript. `npm run bench`
 * (run.ts) and `npm run bench:ab` (ab-stores.ts) build the same way.
 */
import { type BuildOptions, build } from 'esbuild';

export async function bundleForBench(
  input: Pick<BuildOptions, 'entryPoints' | 'stdin' | 'outfile'>,
): Promise<void> {
  await build({
    ...input,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    conditions: ['ask-engine:source'],
    logLevel: 'warning',
  });
}
