/** Reads the person's terminal preferences from a JSON settings file under their config dir. */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { checkPreference, type TerminalPreferenceInput } from './preferences.js';

/** A settings file that cannot be read or holds a bad value; the message names the file and the key. */
export class SettingsFileError extends Error {
  override readonly name = 'SettingsFileError';
  /** The file that was read. */
  readonly path: string;

  constructor(path: string, message: string) {
    super(message);
    this.path = path;
  }
}

/** Environment variable that points at another settings file. */
export const SETTINGS_PATH_ENV = 'ASK_ENGINE_SETTINGS';

/**
 * Where the settings file lives: `$ASK_ENGINE_SETTINGS`, else
 * `$XDG_CONFIG_HOME/ask-engine/settings.json` (`%APPDATA%` on Windows, `~/.config` otherwise).
 *
 * @example
 * getSettingsPath({ ASK_ENGINE_SETTINGS: '/tmp/s.json' }) // => '/tmp/s.json'
 */
export function getSettingsPath(env: NodeJS.ProcessEnv = process.env): string {
  const override = env[SETTINGS_PATH_ENV];
  if (override !== undefined && override !== '') return override;
  const base =
    env.XDG_CONFIG_HOME ||
    (process.platform === 'win32' && env.APPDATA ? env.APPDATA : join(homedir(), '.config'));
  return join(base, 'ask-engine', 'settings.json');
}

/**
 * The preferences the file sets; `{}` when it does not exist. A file that exists but is not a
 * JSON object of known keys with valid values throws a `SettingsFileError` naming the file and the key.
 *
 * @example
 * // settings.json: { "displayMode": "overlay", "commentToggleKey": "off" }
 * loadTerminalSettings() // => { displayMode: 'overlay', commentToggleKey: 'off' }
 */
export function loadTerminalSettings(path: string = getSettingsPath()): TerminalPreferenceInput {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new SettingsFileError(
      path,
      `Cannot read the ask-engine settings file ${path}: ${(error as Error).message}`,
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new SettingsFileError(
      path,
      `The ask-engine settings file ${path} is not valid JSON: ${(error as Error).message}. Fix or delete it.`,
    );
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new SettingsFileError(
      path,
      `The ask-engine settings file ${path} must hold a JSON object like {"displayMode": "overlay"}.`,
    );
  }
  for (const [key, value] of Object.entries(data)) {
    const problem = checkPreference(key, value);
    if (problem !== undefined) {
      throw new SettingsFileError(
        path,
        `The ask-engine settings file ${path} has a bad "${key}": ${problem}.`,
      );
    }
  }
  return data as TerminalPreferenceInput;
}
