/**
 * `npm run bench:ab -- <before> [<after>]`: the stores of two builds compared in one process.
 * `<before>` is a commit; `<after>` is a commit too, or, when absent, the working tree this
 * file is in (uncommitted changes included). A commit is checked out with `git worktree add`
 * in a temp folder (its node_modules a link to this project's). The same entry (the public
 * exports of `ask-engine`, `ask-engine/sqlite` and `ask-engine/postgres`) is bundled from each
 * tree with esbuild as bench/run.ts bundles, by bundleForBench (the project's code in,
 * dependencies as imports, resolved from this project's node_modules for both), and bench/ab-stores-run.ts imports both
 * bundles in one `node` process and times the workloads of bench/ab-workloads.ts on them,
 * interleaved. The worktrees and the temp folders are removed at the end, also on failure or
 * interruption.
 *
 * Options: `--rounds N` (per-round ratios per workload, default 61), `--chunk-ms N` (the length
 * of one build's chunk, default 40), `--only WORD` (repeatable: the workloads whose names
 * contain one of the words, e.g. `--only SQLite --only list`).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AbRunConfig, BuiltSide } from './ab-stores-run.js';
import { bundleForBench } from './bundle.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = dirname(here);
const USAGE =
  'Usage: npm run bench:ab -- <before-commit> [<after-commit>] [--rounds N] [--chunk-ms N] [--only WORD]...';

/** The entry bundled from each tree: the public exports the workloads may use. */
const ENTRY = `
export * as root from './src/index.js';
export * as sqlite from './src/sqlite.js';
export * as postgres from './src/postgres.js';
`;

const options = parseArgs(process.argv.slice(2));

// Everything made on the way, removed by `cleanup` (in `finally`, or on a signal).
const worktrees: string[] = [];
const trees = mkdtempSync(join(tmpdir(), 'ask-engine-ab-'));
// Inside the project, so both bundles import the project's node_modules.
const built = mkdtempSync(join(here, '.built-ab-'));
let child: ChildProcess | undefined;
let cleaned = false;
function cleanup(): void {
  if (cleaned) return;
  cleaned = true;
  for (const worktree of worktrees) {
    const removed = git(['worktree', 'remove', '--force', worktree], false);
    if (removed.status !== 0) {
      console.error(
        `Could not remove the worktree ${worktree} (${removed.stderr.trim()}); its folder is deleted, \`git worktree prune\` forgets it.`,
      );
    }
  }
  rmSync(trees, { recursive: true, force: true });
  rmSync(built, { recursive: true, force: true });
}
let interrupted: NodeJS.Signals | undefined;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    interrupted = signal;
    // The run cleans up its cluster and files, then this process removes the rest once it ends.
    if (child !== undefined && child.exitCode === null && child.signalCode === null) {
      child.kill(signal);
    } else {
      cleanup();
      process.exit(130);
    }
  });
}

let status = 1;
try {
  const before = await side('before', options.before);
  const after = await side('after', options.after);
  const runner = join(built, 'run.mjs');
  await bundleForBench({ entryPoints: [join(here, 'ab-stores-run.ts')], outfile: runner });
  const config: AbRunConfig = {
    before,
    after,
    rounds: options.rounds,
    chunkMs: options.chunkMs,
    only: options.only,
  };
  status = await run(process.execPath, ['--expose-gc', runner, JSON.stringify(config)]);
} finally {
  cleanup();
}
process.exit(interrupted === undefined ? status : 130);

interface Options {
  before: string;
  after: string | undefined;
  rounds: number;
  chunkMs: number;
  only: string[];
}

function parseArgs(args: string[]): Options {
  const positional: string[] = [];
  const only: string[] = [];
  // 21 rounds, as bench/ratio.ts takes, left two builds of the same code 0.8x to 1.9x apart
  // at load 9 on 2 cores; 61 kept them within 0.85x to 1.11x, in about 2.5 minutes.
  let rounds = 61;
  let chunkMs = 40;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const value = () => {
      const next = args[++i];
      if (next === undefined) fail(`${arg} needs a value.`);
      return next;
    };
    if (arg === '--rounds') rounds = integer(arg, value(), 3, 1_000);
    else if (arg === '--chunk-ms') chunkMs = integer(arg, value(), 1, 1_000);
    else if (arg === '--only') only.push(value());
    else if (arg.startsWith('-')) fail(`Unknown option ${arg}.`);
    else positional.push(arg);
  }
  const [before, after, ...rest] = positional;
  if (before === undefined) fail('Name the commit to compare with.');
  if (rest.length > 0) fail(`One or two commits, got ${positional.join(' ')}.`);
  return {
    before: commitOf(before),
    after: after === undefined ? undefined : commitOf(after),
    rounds,
    chunkMs,
    only,
  };
}

/** The full hash of `name`, a commit of this repository. */
function commitOf(name: string): string {
  const resolved = git(['rev-parse', '--verify', '--quiet', `${name}^{commit}`], false);
  if (resolved.status !== 0) fail(`${name} is not a commit of ${root}.`);
  return resolved.stdout.trim();
}

function integer(name: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) {
    fail(`${name} takes an integer from ${min} to ${max}, got ${JSON.stringify(text)}.`);
  }
  return value;
}

function fail(message: string): never {
  console.error(`${message}\n${USAGE}`);
  process.exit(2);
}

/** The commit (or, without one, this working tree) bundled into `built/<label>.mjs`. */
async function side(label: string, commit: string | undefined): Promise<BuiltSide> {
  let tree = root;
  let source: string;
  if (commit === undefined) {
    const head = described('HEAD');
    const changed = git(['status', '--porcelain', '--untracked-files=no'], true).stdout.trim();
    source = `the working tree at ${head}${changed === '' ? '' : ' (with uncommitted changes)'}`;
  } else {
    source = described(commit);
    tree = join(trees, label);
    git(['worktree', 'add', '--detach', '--quiet', tree, commit], true);
    worktrees.push(tree);
    symlinkSync(realpathSync(join(root, 'node_modules')), join(tree, 'node_modules'), 'dir');
  }
  const outfile = join(built, `${label}.mjs`);
  await bundleForBench({
    stdin: { contents: ENTRY, resolveDir: tree, sourcefile: 'ab-entry.ts', loader: 'ts' },
    outfile,
  });
  return { bundle: outfile, source };
}

/** `abc1234 Subject of the commit` (the subject cut at 72 characters). */
function described(commit: string): string {
  const [hash = commit, subject = ''] = git(['log', '-1', '--format=%h%n%s', commit], true)
    .stdout.trim()
    .split('\n');
  return `${hash} ${subject.length > 72 ? `${subject.slice(0, 71)}…` : subject}`;
}

function git(args: string[], check: boolean) {
  const result = spawnSync('git', ['-C', root, ...args], { encoding: 'utf8' });
  if (check && result.status !== 0) {
    throw new Error(`git ${args.join(' ')} failed: ${result.stderr.trim()}`);
  }
  return result;
}

function run(command: string, args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    child = spawn(command, args, { stdio: 'inherit' });
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve(code ?? (signal === null ? 1 : 128)));
  });
}
