import { describe, expect, it } from 'vitest';
import { normalizeAskUserRequest } from '../../src/rules/normalize.js';
import { getReservedKeyProblem, RESERVED_KEYS } from '../../src/rules/reserved-keys.js';

describe('getReservedKeyProblem', () => {
  it('refuses the keys a person needs to answer or leave, however they are written', () => {
    for (const key of [
      ...RESERVED_KEYS,
      'Escape',
      'esc',
      'ESC',
      'Ctrl+C',
      'ctrl + d',
      'Return',
      'shift+tab',
      'alt+enter',
      'ctrl+up',
      'ArrowLeft',
      ' ',
    ]) {
      expect(getReservedKeyProblem(key), JSON.stringify(key)).toMatch(
        /is reserved: Esc, Ctrl\+C, Ctrl\+D, Enter, Tab, space and the arrow keys/,
      );
    }
  });

  it('quotes the key it refuses', () => {
    expect(getReservedKeyProblem('Ctrl+C')).toMatch(/^"Ctrl\+C" is reserved/);
  });

  it('allows every other key, and leaves disabling and unknown names to the parser', () => {
    for (const key of [
      'alt+o',
      'ctrl+g',
      'ctrl+shift+c',
      'alt+c',
      'c',
      'd',
      'f2',
      'off',
      '',
      'banana+q',
    ]) {
      expect(getReservedKeyProblem(key), key).toBeUndefined();
    }
  });
});

describe('the request normalizer', () => {
  for (const key of [
    'escape',
    'Esc',
    'ctrl+c',
    'ctrl+d',
    'enter',
    'tab',
    'space',
    'up',
    'shift+tab',
  ]) {
    it(`refuses a hint that binds ${key}, saying why`, () => {
      const result = normalizeAskUserRequest({ question: 'Ship it?', overlayToggleKey: key });
      expect(result.ok).toBe(false);
      expect(result.ok ? '' : result.error.message).toMatch(/"overlayToggleKey": .*reserved/);
    });
  }

  it('keeps a hint that binds a free key, and "off"', () => {
    for (const key of ['alt+o', 'ctrl+g', 'off']) {
      const result = normalizeAskUserRequest({ question: 'Ship it?', commentToggleKey: key });
      expect(result.ok).toBe(true);
    }
  });
});
