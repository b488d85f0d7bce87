/** Measures a subject against a floor in the same run and prints the ratio against its goal. */
import { do_not_optimize, measure } from 'mitata';

export interface RatioResult {
  name: string;
  subjectNs: number;
  floorNs: number;
  ratio: number;
  /** The ratio the figure must stay under; absent for figures shown for scale only. */
  goal?: number;
}

/**
 * Times `subject` and `floor` (each returning a value or a promise) alternately, three rounds,
 * and reports the median of the per-round ratios, so a noisy neighbour skews both sides alike.
 */
export async function timeRatio(
  name: string,
  goal: number | undefined,
  floor: () => unknown,
  subject: () => unknown,
): Promise<RatioResult> {
  const rounds: { subject: number; floor: number }[] = [];
  for (let round = 0; round < 3; round++) {
    const f = await measure(async () => do_not_optimize(await floor()), { min_cpu_time: 300e6 });
    const s = await measure(async () => do_not_optimize(await subject()), { min_cpu_time: 300e6 });
    rounds.push({ floor: f.p50, subject: s.p50 });
  }
  rounds.sort((a, b) => a.subject / a.floor - b.subject / b.floor);
  const middle = rounds[1]!;
  return report({
    name,
    ...(goal === undefined ? {} : { goal }),
    subjectNs: middle.subject,
    floorNs: middle.floor,
  });
}

/** Prints one result line: `name: subject, floor, ratio (goal) ok|OVER`. */
export function report(result: Omit<RatioResult, 'ratio'>, unit = 'ns'): RatioResult {
  const ratio = result.subjectNs / result.floorNs;
  const verdict =
    result.goal === undefined
      ? '(for scale)'
      : `(goal <= ${result.goal}x) ${ratio <= result.goal ? 'ok' : 'OVER'}`;
  console.log(
    `${result.name}: ${fmt(result.subjectNs)} ${unit} vs floor ${fmt(result.floorNs)} ${unit} = ${ratio.toFixed(2)}x ${verdict}`,
  );
  return { ...result, ratio };
}

function fmt(value: number): string {
  return value >= 100 ? value.toFixed(0) : value.toFixed(2);
}
