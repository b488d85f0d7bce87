/**
 * Measures a subject against a floor in the same run and prints the ratio against its goal.
 * Floor and subject alternate in short chunks (at most 50 ms each), so a noisy neighbour on a
 * shared machine skews both sides of a round alike; the figure is the median of the per-round
 * ratios.
 */
import { record } from './record.js';

export interface RatioResult {
  name: string;
  subjectNs: number;
  floorNs: number;
  ratio: number;
  /** The ratio the figure must stay under; absent for figures shown for scale only. */
  goal?: number;
  /** The options the subject ran with when they are not the defaults. */
  config?: string;
}

export interface RatioOptions {
  /** Per-round ratios the median is taken of; at least 15. Default 21. */
  rounds?: number;
  /** Length of one chunk of floor or subject calls, in ms; at most 50. Default 40. */
  chunkMs?: number;
  /** The options the subject runs with when they are not the defaults (see `record`). */
  config?: string;
}

/**
 * Times `subject` and `floor` (each returning a value or a promise, awaited one call at a
 * time) in alternating chunks, and reports the median of the per-round ratios.
 */
export async function timeRatio(
  name: string,
  goal: number | undefined,
  floor: () => unknown,
  subject: () => unknown,
  options: RatioOptions = {},
): Promise<RatioResult> {
  const rounds = Math.max(options.rounds ?? 21, 15);
  const chunkNs = Math.min(options.chunkMs ?? 40, 50) * 1e6;
  // Warm both up, so the optimizing compiler has seen them before the first round counts.
  await chunk(floor, chunkNs * 2);
  await chunk(subject, chunkNs * 2);
  const samples: { floor: number; subject: number; ratio: number }[] = [];
  for (let round = 0; round < rounds; round++) {
    // Alternate which side goes first, so neither always runs on a warmer cache.
    const first = round % 2 === 0;
    const a = await chunk(first ? floor : subject, chunkNs);
    const b = await chunk(first ? subject : floor, chunkNs);
    const floorNs = first ? a : b;
    const subjectNs = first ? b : a;
    samples.push({ floor: floorNs, subject: subjectNs, ratio: subjectNs / floorNs });
  }
  samples.sort((x, y) => x.ratio - y.ratio);
  const middle = samples[samples.length >> 1]!;
  return report({
    name,
    ...(goal === undefined ? {} : { goal }),
    ...(options.config === undefined ? {} : { config: options.config }),
    subjectNs: middle.subject,
    floorNs: middle.floor,
  });
}

/** Nanoseconds per call of `fn`, calling it for about `budgetNs`. */
async function chunk(fn: () => unknown, budgetNs: number): Promise<number> {
  const start = process.hrtime.bigint();
  const end = start + BigInt(Math.round(budgetNs));
  let calls = 0;
  let now = start;
  while (now < end) {
    // Reading the clock costs about as much as the floor: read it every 16 calls.
    for (let i = 0; i < 16; i++) {
      const result = fn();
      if (result instanceof Promise) sink = await result;
      else sink = result;
    }
    calls += 16;
    now = process.hrtime.bigint();
  }
  return Number(now - start) / calls;
}

/** Results land here so the optimizer cannot drop the calls that produced them. */
export let sink: unknown;

/** Records one ratio (see `record`): `name: ratio (subject unit vs floor unit) verdict [load]`. */
export function report(result: Omit<RatioResult, 'ratio'>, unit = 'ns'): RatioResult {
  const ratio = result.subjectNs / result.floorNs;
  record({
    name: result.name,
    value: ratio,
    unit: 'x',
    detail: `${amount(result.subjectNs, unit)} vs floor ${amount(result.floorNs, unit)}`,
    ...(result.goal === undefined ? {} : { goal: result.goal }),
    ...(result.config === undefined ? {} : { config: result.config }),
  });
  return { ...result, ratio };
}

/** The median of `values` (sorted copy). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
}

/** A time in the largest unit that keeps it readable (`31.2 µs`), anything else as given. */
function amount(value: number, unit: string): string {
  if (unit === 'ms') return amount(value * 1e6, 'ns');
  if (unit !== 'ns') return `${fmt(value)} ${unit}`;
  if (value >= 1e9) return `${fmt(value / 1e9)} s`;
  if (value >= 1e6) return `${fmt(value / 1e6)} ms`;
  if (value >= 1e3) return `${fmt(value / 1e3)} µs`;
  return `${fmt(value)} ns`;
}

function fmt(value: number): string {
  return value >= 100 ? value.toFixed(0) : value.toFixed(value >= 10 ? 1 : 2);
}
