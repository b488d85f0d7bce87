/**
 * Ask ids derived from keys are stored: every release must derive the same id from a key, or a
 * retried call would start a second ask. `base36` must spell exactly what `toString(36)` does.
 */
import { describe, expect, it } from 'vitest';
import { askIdForKey, base36 } from '../../src/engine/ask-ids.js';

describe('ask ids of keys', () => {
  it('are the ids earlier releases derived', () => {
    // Taken from the release before `base36` (hashes spelled by `toString(36)`).
    expect(
      ['', 'deploy-42', 'call_abc123', 'thread/7:task-1:0', 'ключ 🚀'].map(askIdForKey),
    ).toEqual([
      'key-sb6s380xqj1247s7v64qa',
      'key-kfwztwv0mcmz47obitrc',
      'key-25xo2f2siiy1ydbhr1uapf',
      'key-10kb3zgx09969m4pp54mx',
      'key-218blqt13po1k461syq3o1',
    ]);
  });

  it('spell every integer below 2^53 as toString(36) does', () => {
    const edges = [0, 1, 35, 36, 2 ** 31 - 1, 2 ** 31, 2 ** 32, 36 ** 9, 36 ** 10 - 1];
    for (let power = 31; power <= 53; power++) {
      edges.push(2 ** power - 1, 2 ** power - 36, 2 ** power - 37);
    }
    let seed = 12345;
    const random = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed;
    };
    for (let n = 0; n < 100_000; n++) edges.push((random() & 0x1fffff) * 2 ** 32 + random());
    for (const value of edges) {
      if (base36(value) !== value.toString(36)) {
        expect(base36(value), String(value)).toBe(value.toString(36));
      }
    }
    expect(edges.length).toBeGreaterThan(100_000);
  });
});
