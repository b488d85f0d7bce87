/**
 * Every benchmark figure goes through `record`: it prints the figure with the load average it
 * was taken at, and, when `bench/run.ts` asks for it (`ASK_ENGINE_BENCH_RESULTS`), appends it as
 * one JSON line, from which `npm run bench:doc` writes the tables of docs/benchmarks.md. No
 * figure is typed into a document by hand.
 */
import { appendFileSync } from 'node:fs';
import { loadavg } from 'node:os';

/** The environment variable naming the JSON Lines file `bench/run.ts` collects figures in. */
export const RESULTS_ENV = 'ASK_ENGINE_BENCH_RESULTS';
/** Set by `bench/run.ts` to the benchmark file being run, so each figure names its source. */
export const FILE_ENV = 'ASK_ENGINE_BENCH_FILE';

export interface Figure {
  /** What was measured, as the table shows it. */
  name: string;
  /** The measured value, in `unit`. */
  value: number;
  /** `x` for a ratio against a floor, else the unit of `value` (`ms`, `MB`, `B`, `s`). */
  unit: string;
  /** The value must stay at or under this; absent for figures shown for scale only. */
  goal?: number;
  /** What the value is compared with, for the table (e.g. `31 µs vs 0.6 µs`). */
  detail?: string;
  /**
   * The options the figure was taken with when they are not the ones a user gets; absent
   * means the defaults. A figure under another configuration sits next to the default one.
   */
  config?: string;
}

export interface RecordedFigure extends Figure {
  file: string;
  /** The 1-minute load average when the figure was taken. */
  load: number;
  ok?: boolean;
  at: string;
}

/** Prints `figure` with its verdict and the load average, and collects it for the docs. */
export function record(figure: Figure): RecordedFigure {
  const load = loadavg()[0]!;
  const recorded: RecordedFigure = {
    ...figure,
    file: process.env[FILE_ENV] ?? 'unknown',
    load: Math.round(load * 100) / 100,
    at: new Date().toISOString(),
  };
  if (figure.goal !== undefined) recorded.ok = figure.value <= figure.goal;
  const verdict =
    figure.goal === undefined
      ? '(for scale)'
      : `(goal <= ${formatValue(figure.goal, figure.unit)}) ${recorded.ok ? 'ok' : 'OVER'}`;
  const config = figure.config === undefined ? '' : ` [${figure.config}]`;
  const detail = figure.detail === undefined ? '' : ` (${figure.detail})`;
  console.log(
    `${figure.name}${config}: ${formatValue(figure.value, figure.unit)}${detail} ${verdict} [load ${load.toFixed(2)}]`,
  );
  const out = process.env[RESULTS_ENV];
  if (out !== undefined && out !== '') appendFileSync(out, `${JSON.stringify(recorded)}\n`);
  return recorded;
}

/** `12.3x`, `4.1 ms`, `1,537 B`: the value with its unit, rounded for reading. */
export function formatValue(value: number, unit: string): string {
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  const text = value.toLocaleString('en', {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
  return unit === 'x' ? `${text}x` : `${text} ${unit}`;
}
