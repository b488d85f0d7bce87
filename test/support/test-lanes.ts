/**
 * Which test files belong to the fast lane (`npm run test:fast`): every file that reaches, through
 * its own imports and the test helpers it imports, none of the things that make a test slow —
 * a browser, a database server, a child process (CLI runs, workers, tmux), a bundler or the
 * TypeScript compiler. Derived from the sources on each run, so a new test that starts
 * PostgreSQL leaves the fast lane by importing the fixture that starts it; there is no list.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** Modules whose use makes a test file slow, each with the reason the lane report prints. */
export const SLOW_MODULES: ReadonlyMap<string, string> = new Map([
  ['playwright-core', 'drives a browser'],
  ['postgres', 'needs a PostgreSQL server'],
  ['node:child_process', 'runs child processes (CLI, workers, tmux)'],
  ['node:worker_threads', 'runs worker threads'],
  ['esbuild', 'bundles a program'],
  ['typescript', 'runs the TypeScript compiler'],
]);

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"]([^'"]+)['"]/g;

/** Every `*.test.ts` under `root`, relative to `cwd`, sorted. */
export function testFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.test.ts')) found.push(path);
    }
  };
  walk(root);
  return found.sort();
}

/**
 * The reason `file` is slow (the slow module and the chain of test files that reach it), or
 * `undefined` when nothing it imports is slow. Only the test tree is followed: the sources under
 * src/ are what every lane tests, and their optional drivers are imported by name from tests.
 */
export function slowReason(file: string, testRoot: string): string | undefined {
  const seen = new Set<string>();
  const visit = (path: string, chain: string[]): string | undefined => {
    if (seen.has(path)) return undefined;
    seen.add(path);
    for (const match of readFileSync(path, 'utf8').matchAll(IMPORT)) {
      const specifier = match[1] as string;
      const slow = SLOW_MODULES.get(specifier);
      if (slow !== undefined) return `${[...chain, specifier].join(' → ')} (${slow})`;
      if (!specifier.startsWith('.')) continue;
      const local = localModule(resolve(dirname(path), specifier));
      if (local === undefined || !local.startsWith(testRoot)) continue;
      const reason = visit(local, [...chain, specifier]);
      if (reason !== undefined) return reason;
    }
    return undefined;
  };
  return visit(resolve(file), []);
}

/** The fast lane: the test files under `root` that `slowReason` finds nothing slow in. */
export function fastLane(root: string): string[] {
  const testRoot = resolve(root);
  return testFiles(root).filter((file) => slowReason(file, testRoot) === undefined);
}

/**
 * A test that changes what other files would share if they ran in its worker's module graph:
 * fake timers, module mocks, stubbed globals or environment, spies (on globals or on modules).
 * The fast lane runs these files isolated and the others sharing their modules.
 */
const CHANGES_SHARED_STATE = /\bvi\.(useFakeTimers|mock|doMock|stubGlobal|stubEnv|spyOn)\(/;

/** The fast lane split by whether a file changes shared state (`CHANGES_SHARED_STATE`). */
export function fastLaneParts(root: string): { shared: string[]; isolated: string[] } {
  const shared: string[] = [];
  const isolated: string[] = [];
  for (const file of fastLane(root)) {
    (CHANGES_SHARED_STATE.test(readFileSync(file, 'utf8')) ? isolated : shared).push(file);
  }
  return { shared, isolated };
}

function localModule(path: string): string | undefined {
  for (const candidate of [path, path.replace(/\.js$/, '.ts'), `${path}.ts`]) {
    if (candidate.endsWith('.ts') && existsSync(candidate)) return candidate;
  }
  return undefined;
}
