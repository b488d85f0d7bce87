/** Presentation preferences: defaults, the person's local choices, and the caller's hints. */
import type { KeyId } from '@mariozechner/pi-tui';
import type { AskUserHints } from '../contracts/tool-input.js';
import { parseShortcut } from './shortcut.js';

/** `inline`: the ask is drawn between two separators; `overlay`: in a framed box. */
export type DisplayMode = 'inline' | 'overlay';
/**
 * `auto`: a single-select question whose options have descriptions shows them in a split pane
 * when the terminal is 100+ columns wide; `list`: always one list.
 */
export type SingleSelectLayout = 'auto' | 'list';

/** Resolved preferences: a `null` shortcut is disabled. */
export interface TerminalPreferences {
  displayMode: DisplayMode;
  singleSelectLayout: SingleSelectLayout;
  overlayToggleKey: KeyId | null;
  commentToggleKey: KeyId | null;
}

/** What a settings file or CLI flags may set; shortcuts as written (`alt+o`, `off`). */
export interface TerminalPreferenceInput {
  displayMode?: DisplayMode;
  singleSelectLayout?: SingleSelectLayout;
  overlayToggleKey?: string;
  commentToggleKey?: string;
}

/** What applies when neither the person nor a hint chose: inline, auto, `alt+o`, `ctrl+g`. */
export const DEFAULT_TERMINAL_PREFERENCES: Readonly<TerminalPreferences> = Object.freeze({
  displayMode: 'inline',
  singleSelectLayout: 'auto',
  overlayToggleKey: 'alt+o',
  commentToggleKey: 'ctrl+g',
});

/** Every preference a settings file or CLI flag may set; an unknown key is refused naming these. */
export const PREFERENCE_KEYS = [
  'displayMode',
  'singleSelectLayout',
  'overlayToggleKey',
  'commentToggleKey',
] as const;

/**
 * Merges, from weakest to strongest: defaults, the caller's per-call hints, the person's local
 * preferences. The person's terminal is theirs: a hint never overrides what they chose.
 * A hint that is not usable (an unknown key name, or a key the person needs such as Esc or
 * Ctrl+C) is ignored, since the model wrote it and the normalizer already refuses it; a local
 * preference that is not usable throws, since the person can fix it.
 *
 * @example
 * resolvePreferences({ displayMode: 'overlay' }, { displayMode: 'inline' }).displayMode // => 'inline'
 */
export function resolvePreferences(
  hints: AskUserHints | undefined,
  local: TerminalPreferenceInput = {},
): TerminalPreferences {
  const result: TerminalPreferences = { ...DEFAULT_TERMINAL_PREFERENCES };
  if (hints !== undefined) {
    if (hints.displayMode === 'inline' || hints.displayMode === 'overlay') {
      result.displayMode = hints.displayMode;
    }
    if (hints.singleSelectLayout === 'auto' || hints.singleSelectLayout === 'list') {
      result.singleSelectLayout = hints.singleSelectLayout;
    }
    for (const key of ['overlayToggleKey', 'commentToggleKey'] as const) {
      const value = hints[key];
      if (typeof value !== 'string') continue;
      try {
        result[key] = parseShortcut(value);
      } catch {
        // A model's typo must not break the person's UI; the default stays.
      }
    }
  }
  if (local.displayMode !== undefined) result.displayMode = local.displayMode;
  if (local.singleSelectLayout !== undefined) result.singleSelectLayout = local.singleSelectLayout;
  if (local.overlayToggleKey !== undefined) {
    result.overlayToggleKey = parseShortcut(local.overlayToggleKey);
  }
  if (local.commentToggleKey !== undefined) {
    result.commentToggleKey = parseShortcut(local.commentToggleKey);
  }
  return result;
}

/**
 * Checks one preference value as a person wrote it; returns the problem as a clause without a
 * final stop (each caller ends the sentence) or `undefined`. Shared by the settings file, the
 * CLI flags and the terminal provider's options so all say the same thing.
 */
export function checkPreference(key: string, value: unknown): string | undefined {
  switch (key) {
    case 'displayMode':
      return value === 'inline' || value === 'overlay'
        ? undefined
        : `expected "inline" or "overlay", got ${JSON.stringify(value)}`;
    case 'singleSelectLayout':
      return value === 'auto' || value === 'list'
        ? undefined
        : `expected "auto" or "list", got ${JSON.stringify(value)}`;
    case 'overlayToggleKey':
    case 'commentToggleKey':
      if (typeof value !== 'string') {
        return `expected a shortcut string like "alt+o" or "off", got ${JSON.stringify(value)}`;
      }
      try {
        parseShortcut(value);
        return undefined;
      } catch (error) {
        // A clause like every other problem here: the caller ends the sentence.
        return (error as Error).message.replace(/\.$/, '');
      }
    default:
      return `unknown preference; known: ${PREFERENCE_KEYS.join(', ')}`;
  }
}
