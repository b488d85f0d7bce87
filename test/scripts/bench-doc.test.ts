/** The benchmark tables are written from recorded figures only (bench/record.ts, bench/bench-doc.ts). */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { mergeFigures, readFigures, renderTable, replaceTable } from '../../bench/bench-doc.js';
import { FILE_ENV, RESULTS_ENV, type RecordedFigure, record } from '../../bench/record.js';

const root = new URL('../../', import.meta.url);
const START = '<!-- bench:table:start';
const END = '<!-- bench:table:end -->';

function tableIn(file: string): string {
  const text = readFileSync(new URL(file, root), 'utf8');
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  expect(start, `${file} has the generated table's markers`).toBeGreaterThan(-1);
  return text.slice(text.indexOf('\n', start) + 1, end).trim();
}

function figure(file: string, name: string, value: number, config?: string): RecordedFigure {
  return {
    file,
    name,
    value,
    unit: 'x',
    goal: 2,
    ok: value <= 2,
    load: 1.5,
    at: '2026-12-01T00:00:00.000Z',
    ...(config === undefined ? {} : { config }),
  };
}

describe('benchmark tables', () => {
  const saved = { results: process.env[RESULTS_ENV], file: process.env[FILE_ENV] };
  afterEach(() => {
    for (const [key, value] of [
      [RESULTS_ENV, saved.results],
      [FILE_ENV, saved.file],
    ] as const) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });

  it('docs/benchmarks.md shows exactly the table docs/benchmarks.json renders to', () => {
    const json = new URL('docs/benchmarks.json', root);
    const figures = existsSync(json)
      ? (JSON.parse(readFileSync(json, 'utf8')) as RecordedFigure[])
      : [];
    const expected = figures.length === 0 ? '' : renderTable(figures);
    expect(tableIn('docs/benchmarks.md')).toBe(expected);
  });

  it('records a figure with its verdict, load and source file as one JSON line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ask-engine-bench-'));
    try {
      const out = join(dir, 'figures.jsonl');
      process.env[RESULTS_ENV] = out;
      process.env[FILE_ENV] = 'ask-storm';
      record({ name: 'stall', value: 25, unit: 'ms', goal: 20 });
      record({ name: 'scale', value: 3, unit: 'x', config: 'sweeper off' });
      const [over, scale] = readFigures(readFileSync(out, 'utf8'));
      expect(over).toMatchObject({ file: 'ask-storm', name: 'stall', value: 25, ok: false });
      expect(over?.load).toBeGreaterThanOrEqual(0);
      expect(scale).toMatchObject({ config: 'sweeper off' });
      expect(scale).not.toHaveProperty('ok');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a run of some files replaces all of their figures and keeps the others', () => {
    const kept = [figure('a', 'one', 1), figure('a', 'gone', 1), figure('b', 'two', 1)];
    const merged = mergeFigures(kept, [figure('a', 'one', 3), figure('a', 'one', 1.5, 'other')]);
    expect(merged.map((each) => [each.file, each.name, each.value, each.config])).toEqual([
      ['b', 'two', 1, undefined],
      ['a', 'one', 3, undefined],
      ['a', 'one', 1.5, 'other'],
    ]);
  });

  it('labels a figure taken under other options and marks a missed goal', () => {
    const table = renderTable([figure('s', 'durable | ask', 2.5, "synchronous: 'normal'")]);
    expect(table).toContain("durable \\| ask [synchronous: 'normal']");
    expect(table).toContain('**missed**');
  });

  it('refuses a document without the markers, naming it', () => {
    expect(() => replaceTable('# nothing here', 'table', 'README.md')).toThrow(/README\.md/);
    expect(replaceTable(`a\n${START} x -->\nold\n${END}\nb`, 'new', 'f')).toBe(
      `a\n${START} x -->\nnew\n${END}\nb`,
    );
  });
});
