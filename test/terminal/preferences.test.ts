import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolvePreferences } from '../../src/terminal/preferences.js';
import {
  getSettingsPath,
  loadTerminalSettings,
  SettingsFileError,
} from '../../src/terminal/settings-file.js';
import { parseShortcut } from '../../src/terminal/shortcut.js';

describe('parseShortcut', () => {
  it('normalizes keys and disables with off, none, disabled or empty', () => {
    expect(parseShortcut('Alt+O')).toBe('alt+o');
    expect(parseShortcut('ctrl+shift+pageup')).toBe('ctrl+shift+pageUp');
    for (const value of ['off', 'NONE', 'disabled', '', '  '])
      expect(parseShortcut(value)).toBeNull();
  });

  it('rejects what pi-tui cannot match, quoting the value', () => {
    expect(() => parseShortcut('hyper+x')).toThrow('"hyper+x"');
    expect(() => parseShortcut('ctrl+')).toThrow(TypeError);
    expect(() => parseShortcut('ctrl+ctrl+g')).toThrow('repeats');
  });
});

describe('resolvePreferences', () => {
  it('defaults to inline, auto, alt+o, ctrl+g', () => {
    expect(resolvePreferences(undefined)).toEqual({
      displayMode: 'inline',
      singleSelectLayout: 'auto',
      overlayToggleKey: 'alt+o',
      commentToggleKey: 'ctrl+g',
    });
  });

  it('lets hints change defaults and local preferences win over hints', () => {
    const hints = { displayMode: 'overlay', commentToggleKey: 'ctrl+k' } as const;
    expect(resolvePreferences(hints)).toMatchObject({
      displayMode: 'overlay',
      commentToggleKey: 'ctrl+k',
    });
    expect(
      resolvePreferences(hints, { displayMode: 'inline', commentToggleKey: 'off' }),
    ).toMatchObject({
      displayMode: 'inline',
      commentToggleKey: null,
    });
  });

  it('ignores a hint key it cannot use rather than break the UI', () => {
    expect(resolvePreferences({ overlayToggleKey: 'banana+q' }).overlayToggleKey).toBe('alt+o');
  });

  it('never lets a hint bind esc, ctrl+c, ctrl+d, enter, tab, space or an arrow', () => {
    for (const key of [
      'escape',
      'Esc',
      'ctrl+c',
      'Ctrl+D',
      'enter',
      'return',
      'tab',
      'shift+tab',
      'space',
      'up',
      'alt+left',
      'alt+enter',
    ]) {
      const resolved = resolvePreferences({ overlayToggleKey: key, commentToggleKey: key });
      expect(resolved, key).toMatchObject({
        overlayToggleKey: 'alt+o',
        commentToggleKey: 'ctrl+g',
      });
    }
  });

  it('refuses a reserved key as a local preference, saying why', () => {
    expect(() => parseShortcut('escape')).toThrow(/"escape" is reserved: Esc, Ctrl\+C/);
    expect(() => resolvePreferences(undefined, { commentToggleKey: 'ctrl+c' })).toThrow('reserved');
  });
});

describe('settings file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ask-engine-settings-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is found through ASK_ENGINE_SETTINGS, else under the config directory', () => {
    expect(getSettingsPath({ ASK_ENGINE_SETTINGS: '/x/s.json' })).toBe('/x/s.json');
    expect(getSettingsPath({ XDG_CONFIG_HOME: '/cfg' })).toBe(
      join('/cfg', 'ask-engine', 'settings.json'),
    );
  });

  it('is optional', () => {
    expect(loadTerminalSettings(join(dir, 'missing.json'))).toEqual({});
  });

  it('reads known keys', () => {
    const file = join(dir, 'ok.json');
    writeFileSync(file, '{"displayMode":"overlay","overlayToggleKey":"none"}');
    expect(loadTerminalSettings(file)).toEqual({
      displayMode: 'overlay',
      overlayToggleKey: 'none',
    });
  });

  it('refuses a reserved key, naming the file and the key', () => {
    const file = join(dir, 'reserved.json');
    writeFileSync(file, '{"overlayToggleKey":"enter"}');
    expect(() => loadTerminalSettings(file)).toThrow(
      new RegExp(`${file} has a bad "overlayToggleKey": "enter" is reserved`),
    );
    expect(() => loadTerminalSettings(file)).toThrow(SettingsFileError);
  });

  it('names the file and the key when malformed', () => {
    const file = join(dir, 'bad.json');
    writeFileSync(file, '{"singleSelectLayout":"grid"}');
    expect(() => loadTerminalSettings(file)).toThrow(`${file} has a bad "singleSelectLayout"`);
    writeFileSync(file, '{"displaymode":"inline"}');
    expect(() => loadTerminalSettings(file)).toThrow('"displaymode": unknown preference');
    writeFileSync(file, '{oops');
    expect(() => loadTerminalSettings(file)).toThrow(`${file} is not valid JSON`);
    writeFileSync(file, '[]');
    expect(() => loadTerminalSettings(file)).toThrow('must hold a JSON object');
  });
});
