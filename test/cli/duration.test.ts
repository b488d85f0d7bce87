import { describe, expect, it } from 'vitest';
import { MAX_DURATION_MS, parseDuration } from '../../src/cli/duration.js';

describe('parseDuration', () => {
  it('reads bare milliseconds and units', () => {
    expect(parseDuration('--timeout', '1500')).toBe(1500);
    expect(parseDuration('--timeout', '1000ms')).toBe(1000);
    expect(parseDuration('--timeout', '30s')).toBe(30_000);
    expect(parseDuration('--timeout', '1.5m')).toBe(90_000);
    expect(parseDuration('--timeout', '1h')).toBe(3_600_000);
  });

  it('rejects zero, negatives, words and anything under the one-second minimum, naming the flag and the value', () => {
    for (const bad of ['0', '-1s', 'soon', '5 days', '500ms', '0.5s', '999'])
      expect(() => parseDuration('--timeout', bad)).toThrow(`--timeout ${JSON.stringify(bad)}`);
  });

  it('tells whoever wrote seconds as a bare number how to write them', () => {
    expect(() => parseDuration('--timeout', '30')).toThrow(/from 1s .*for 30 seconds write 30s/);
  });

  it('takes every duration from one second to 100 years, both edges included', () => {
    expect(parseDuration('--since', '1000')).toBe(1000);
    expect(parseDuration('--since', '1s')).toBe(1000);
    expect(parseDuration('--since', '876000h')).toBe(MAX_DURATION_MS);
    expect(parseDuration('--since', String(MAX_DURATION_MS))).toBe(MAX_DURATION_MS);
    expect(MAX_DURATION_MS).toBe(100 * 365 * 24 * 3_600_000);
  });

  it('refuses a duration past 100 years, naming the flag, the value and the range', () => {
    for (const far of [
      '99999999999h',
      '876001h',
      String(MAX_DURATION_MS + 1),
      '1e400',
      `${'9'.repeat(400)}h`,
    ]) {
      expect(() => parseDuration('--since', far)).toThrow(`--since ${JSON.stringify(far)}`);
    }
    expect(() => parseDuration('--since', '99999999999h')).toThrow(
      '--since "99999999999h" is out of range: give a duration from 1s to 876000h (100 years).',
    );
    expect(() => parseDuration('--since', String(MAX_DURATION_MS + 1))).toThrow(/out of range/);
  });
});
