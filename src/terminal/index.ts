/**
 * `ask-engine/terminal`: the terminal provider, its preferences and its building blocks.
 *
 * @module ask-engine/terminal
 */

export type { EditorField, QuestionDraft, QuestionRow } from './ask-draft.js';
export { type AskPageState, AskView, type AskViewOptions } from './ask-view.js';
export { openInteractiveTerminal, type TerminalStreams } from './controlling-terminal.js';
export { toLiteralText } from './literal-text.js';
export {
  checkPreference,
  DEFAULT_TERMINAL_PREFERENCES,
  type DisplayMode,
  PREFERENCE_KEYS,
  resolvePreferences,
  type SingleSelectLayout,
  type TerminalPreferenceInput,
  type TerminalPreferences,
} from './preferences.js';
export {
  getSettingsPath,
  loadTerminalSettings,
  SETTINGS_PATH_ENV,
  SettingsFileError,
} from './settings-file.js';
export { parseShortcut } from './shortcut.js';
export {
  createTerminalProvider,
  type TerminalProvider,
  type TerminalProviderOptions,
} from './terminal-provider.js';
export { TtyTerminal } from './tty-terminal.js';
