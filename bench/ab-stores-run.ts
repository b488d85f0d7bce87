/**
 * The process `npm run bench:ab` runs (bench/ab-stores.ts builds it and both builds of the
 * stores): imports the two bundles, then times every workload of bench/ab-workloads.ts on both,
 * interleaved in short chunks (alternating which build goes first), and prints per workload the
 * median and the spread of the per-round ratios after / before, with the load average.
 * Its one argument is the JSON of `AbRunConfig`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { postgresMissing, startPostgresCluster } from '../test/support/postgres-cluster.js';
import { type Build, type Places, type Side, STORE_KINDS, workloads } from './ab-workloads.js';

export interface AbRunConfig {
  before: BuiltSide;
  after: BuiltSide;
  rounds: number;
  chunkMs: number;
  /** Words a workload's name must contain one of (case-insensitive); empty: every workload. */
  only: string[];
}

/** One build: its bundle and what it was built from, for the report. */
export interface BuiltSide {
  bundle: string;
  source: string;
}

interface Result {
  name: string;
  /** Per-round ratios after / before of the time on the clock, sorted. */
  ratios: number[];
  /** Per-round ratios after / before of this process's CPU time, sorted. */
  cpuRatios: number[];
  beforeNs: number;
  afterNs: number;
  loadStart: number;
  loadEnd: number;
}

const config = readConfig(process.argv[2]);

const places: Places = { dir: mkdtempSync(join(tmpdir(), 'ask-engine-ab-stores-')) };
/** The cluster being started or running, so an interrupted start is cleaned up too. */
let cluster: ReturnType<typeof startPostgresCluster> | undefined;
let cleaned: Promise<void> | undefined;
const cleanup = () => {
  cleaned ??= (async () => {
    try {
      // A cluster that failed to start removed itself (its error is reported where it was awaited).
      const started = await cluster?.catch(() => undefined);
      await started?.destroy();
    } finally {
      rmSync(places.dir, { recursive: true, force: true });
    }
  })();
  return cleaned;
};
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  // Every signal is caught (the same one may come twice: from the terminal and relayed by
  // bench/ab-stores.ts), so the cleanup under way is never cut short.
  process.on(signal, () => {
    if (cleaned === undefined) {
      console.error(`\n${signal}: stopping; removing the PostgreSQL cluster and the temp files.`);
    }
    void cleanup().finally(() => process.exit(130));
  });
}

const failed: string[] = [];
try {
  await main();
} finally {
  await cleanup();
}
if (failed.length > 0) console.error(`\nFailed: ${failed.join('; ')}`);
process.exit(failed.length === 0 ? (process.exitCode ?? 0) : 1);

async function main(): Promise<void> {
  const before = await load('before', config.before);
  const after = await load('after', config.after);
  const { only } = config;
  const chosen = workloads(STORE_KINDS, places).filter(
    (workload) =>
      only.length === 0 ||
      only.some((word) => workload.name.toLowerCase().includes(word.toLowerCase())),
  );
  if (chosen.length === 0) {
    console.error(`No workload matches ${only.join(', ')}.`);
    process.exitCode = 2;
    return;
  }
  let run = chosen;
  if (chosen.some((workload) => workload.kind === 'PostgreSQL')) {
    if (postgresMissing !== undefined) {
      console.log(`PostgreSQL workloads skipped: ${postgresMissing}.`);
      run = chosen.filter((workload) => workload.kind !== 'PostgreSQL');
    } else {
      cluster = startPostgresCluster();
      places.postgresUrl = (await cluster).url;
    }
  }
  console.log(`before: ${config.before.source}`);
  console.log(`after:  ${config.after.source}`);
  console.log(
    `${config.rounds} rounds of ${config.chunkMs} ms chunks per build, alternating which goes first; ratio = after / before per round (below 1: after is faster)\n`,
  );
  const loadStart = loadavg()[0]!;
  const results: Result[] = [];
  for (const [index, workload] of run.entries()) {
    if (cleaned !== undefined) return; // interrupted
    try {
      const result = await measure(workload.name, before, after, workload.setup, index % 2 === 1);
      results.push(result);
      console.log(line(result));
    } catch (error) {
      failed.push(workload.name);
      console.error(`${workload.name}: FAILED\n${(error as Error).stack ?? error}`);
    }
  }
  console.log(`\n${table(results)}`);
  console.log(
    `\nload average (1 min): ${loadStart.toFixed(2)} at the start, ${loadavg()[0]!.toFixed(2)} at the end`,
  );
}

function readConfig(text: string | undefined): AbRunConfig {
  if (text === undefined) throw new Error('Run by bench/ab-stores.ts (npm run bench:ab).');
  return JSON.parse(text) as AbRunConfig;
}

/** The build's public exports the workloads use; a missing one is named. */
async function load(label: string, side: BuiltSide): Promise<Build> {
  const entry = (await import(pathToFileURL(side.bundle).href)) as Record<
    string,
    Record<string, unknown> | undefined
  >;
  const exported = (module: string, name: string) => {
    const value = entry[module]?.[name];
    if (typeof value !== 'function') {
      throw new Error(
        `The ${label} build (${side.source}) does not export the function ${name} from ${module === 'root' ? 'ask-engine' : `ask-engine/${module}`}.`,
      );
    }
    return value;
  };
  return {
    label,
    createInteractionService: exported(
      'root',
      'createInteractionService',
    ) as Build['createInteractionService'],
    createMemoryAskStore: exported('root', 'createMemoryAskStore') as Build['createMemoryAskStore'],
    createSqliteAskStore: exported(
      'sqlite',
      'createSqliteAskStore',
    ) as Build['createSqliteAskStore'],
    createPostgresAskStore: exported(
      'postgres',
      'createPostgresAskStore',
    ) as Build['createPostgresAskStore'],
  };
}

async function measure(
  name: string,
  before: Build,
  after: Build,
  setup: (build: Build) => Promise<Side>,
  afterFirst: boolean,
): Promise<Result> {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const loadStart = loadavg()[0]!;
  const sides: Side[] = [];
  try {
    // Which build's store is set up and warmed first alternates from workload to workload, so
    // whatever being first does (a file or a database made earlier, a heap filled earlier) is
    // not always the same build's.
    const earlier = await setup(afterFirst ? after : before);
    sides.push(earlier);
    const later = await setup(afterFirst ? before : after);
    sides.push(later);
    const [b, a] = afterFirst ? [later, earlier] : [earlier, later];
    const chunkNs = config.chunkMs * 1e6;
    // Warm both up, so the optimizing compiler has seen both before the first round counts.
    await chunk(earlier.run, chunkNs * 2);
    await chunk(later.run, chunkNs * 2);
    const rounds: { before: Chunk; after: Chunk; ratio: number; cpuRatio: number }[] = [];
    for (let round = 0; round < config.rounds; round++) {
      const beforeFirst = round % 2 === 0;
      const first = await chunk(beforeFirst ? b.run : a.run, chunkNs);
      const second = await chunk(beforeFirst ? a.run : b.run, chunkNs);
      const timed = beforeFirst
        ? { before: first, after: second }
        : { before: second, after: first };
      rounds.push({
        ...timed,
        ratio: timed.after.wallNs / timed.before.wallNs,
        cpuRatio: timed.after.cpuNs / timed.before.cpuNs,
      });
    }
    rounds.sort((x, y) => x.ratio - y.ratio);
    const middle = rounds[rounds.length >> 1]!;
    return {
      name,
      ratios: rounds.map((round) => round.ratio),
      cpuRatios: rounds.map((round) => round.cpuRatio).sort((x, y) => x - y),
      beforeNs: middle.before.wallNs,
      afterNs: middle.after.wallNs,
      loadStart,
      loadEnd: loadavg()[0]!,
    };
  } finally {
    for (const side of sides) await side.close();
  }
}

/** One chunk's time per call: on the clock, and the CPU time of this process (all threads). */
interface Chunk {
  wallNs: number;
  cpuNs: number;
}

/** Calls `run` one at a time for about `budgetNs`. */
async function chunk(run: () => Promise<unknown>, budgetNs: number): Promise<Chunk> {
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  const end = start + BigInt(Math.round(budgetNs));
  let calls = 0;
  let now = start;
  while (now < end) {
    await run();
    calls++;
    now = process.hrtime.bigint();
  }
  const used = process.cpuUsage(cpu);
  return {
    wallNs: Number(now - start) / calls,
    cpuNs: ((used.user + used.system) * 1e3) / calls,
  };
}

/** The value at fraction `q` of sorted `values` (nearest rank). */
function quantile(values: readonly number[], q: number): number {
  return values[Math.min(values.length - 1, Math.max(0, Math.round(q * (values.length - 1))))]!;
}

function summary(result: Result) {
  const r = result.ratios;
  const cpu = result.cpuRatios;
  return {
    median: `${r[r.length >> 1]!.toFixed(3)}x`,
    quartiles: `${quantile(r, 0.25).toFixed(3)}-${quantile(r, 0.75).toFixed(3)}`,
    range: `${r[0]!.toFixed(3)}-${r[r.length - 1]!.toFixed(3)}`,
    // Of two builds of the same code, each is the slower in about half the rounds.
    slower: `${r.filter((ratio) => ratio > 1).length}/${r.length}`,
    cpu: `${cpu[cpu.length >> 1]!.toFixed(3)}x (${quantile(cpu, 0.25).toFixed(3)}-${quantile(cpu, 0.75).toFixed(3)})`,
    times: `${time(result.afterNs)} vs ${time(result.beforeNs)}`,
    load: `${result.loadStart.toFixed(2)}-${result.loadEnd.toFixed(2)}`,
  };
}

function line(result: Result): string {
  const s = summary(result);
  return `${result.name}: ${s.median} (quartiles ${s.quartiles}, range ${s.range}; after slower in ${s.slower} rounds; CPU time ${s.cpu}; ${s.times} in the median round) [load ${s.load}]`;
}

function table(all: readonly Result[]): string {
  const rows = all.map((result) => {
    const s = summary(result);
    return `| ${result.name} | ${s.median} | ${s.quartiles} | ${s.range} | ${s.slower} | ${s.cpu} | ${s.times} | ${s.load} |`;
  });
  return [
    '| workload | after / before, median | quartiles | range | after slower in | CPU time, median (quartiles) | after vs before (median round) | load |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}

/** A time per call in the largest unit that keeps it readable. */
function time(ns: number): string {
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(2)} ms`;
  if (ns >= 1e3) return `${(ns / 1e3).toFixed(1)} µs`;
  return `${ns.toFixed(0)} ns`;
}
