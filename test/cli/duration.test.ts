import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../src/cli/duration.js';

describe('parseDuration', () => {
  it('reads bare milliseconds and units', () => {
    expect(parseDuration('1500')).toBe(1500);
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('30s')).toBe(30_000);
    expect(parseDuration('1.5m')).toBe(90_000);
    expect(parseDuration('1h')).toBe(3_600_000);
  });

  it('rejects zero, negatives and words, quoting the value', () => {
    for (const bad of ['0', '-1s', 'soon', '5 days'])
      expect(() => parseDuration(bad)).toThrow(JSON.stringify(bad));
  });
});
