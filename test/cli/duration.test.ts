import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../src/cli/duration.js';

describe('parseDuration', () => {
  it('reads bare milliseconds and units', () => {
    expect(parseDuration('1500')).toBe(1500);
    expect(parseDuration('1000ms')).toBe(1000);
    expect(parseDuration('30s')).toBe(30_000);
    expect(parseDuration('1.5m')).toBe(90_000);
    expect(parseDuration('1h')).toBe(3_600_000);
  });

  it('rejects zero, negatives, words and anything under the one-second minimum, quoting the value', () => {
    for (const bad of ['0', '-1s', 'soon', '5 days', '500ms', '0.5s', '999'])
      expect(() => parseDuration(bad)).toThrow(JSON.stringify(bad));
  });

  it('tells whoever wrote seconds as a bare number how to write them', () => {
    expect(() => parseDuration('30')).toThrow(/at least 1s .*for 30 seconds write 30s/);
  });
});
