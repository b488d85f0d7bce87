/** The `--ask-user-*` flags every command takes, mapped to terminal preferences. */
import { checkPreference, type TerminalPreferenceInput } from '../terminal/preferences.js';
import { UsageError } from './usage-error.js';

export const PREFERENCE_FLAGS = {
  'ask-user-display-mode': 'displayMode',
  'ask-user-single-select-layout': 'singleSelectLayout',
  'ask-user-overlay-toggle-key': 'overlayToggleKey',
  'ask-user-comment-toggle-key': 'commentToggleKey',
} as const;

/** `parseArgs` option declarations for the preference flags. */
export const preferenceFlagOptions = Object.fromEntries(
  Object.keys(PREFERENCE_FLAGS).map((flag) => [flag, { type: 'string' as const }]),
) as Record<keyof typeof PREFERENCE_FLAGS, { type: 'string' }>;

/**
 * The preferences the flags set. Throws a `UsageError` naming the flag and the value.
 *
 * @example
 * readPreferenceFlags({ 'ask-user-display-mode': 'overlay' }) // => { displayMode: 'overlay' }
 */
export function readPreferenceFlags(
  values: Partial<Record<string, string | boolean | undefined>>,
): TerminalPreferenceInput {
  const result: Record<string, string> = {};
  for (const [flag, key] of Object.entries(PREFERENCE_FLAGS)) {
    const value = values[flag];
    if (typeof value !== 'string') continue;
    const problem = checkPreference(key, value);
    if (problem !== undefined) throw new UsageError(`--${flag}: ${problem}.`);
    result[key] = value;
  }
  return result as TerminalPreferenceInput;
}
