/** The keys a person always needs to answer or leave an ask: no hint or preference may bind them. */

/** Esc, Ctrl+C, Ctrl+D, Enter, Tab, space and the arrows, as key names (any modifiers added). */
export const RESERVED_KEYS = [
  'escape',
  'ctrl+c',
  'ctrl+d',
  'enter',
  'tab',
  'space',
  'up',
  'down',
  'left',
  'right',
] as const;

// Keys reserved with any modifiers: `shift+tab` moves back, `alt+enter` types a new line.
const RESERVED_BASES = new Set(['escape', 'enter', 'tab', 'space', 'up', 'down', 'left', 'right']);
const ALIASES: Record<string, string> = {
  esc: 'escape',
  return: 'enter',
  arrowup: 'up',
  arrowdown: 'down',
  arrowleft: 'left',
  arrowright: 'right',
  ' ': 'space',
};

/**
 * Why `shortcut` may not be bound by a hint or a preference, or `undefined` when it may. The
 * check reads the shortcut as a person or a model writes it (`Escape`, `esc`, `Ctrl+C`,
 * `shift+Tab`); whether it names a real key is the shortcut parser's business. Browser-safe, so
 * the request normalizer, the terminal's preferences and the CLI flags all refuse the same keys
 * with the same words.
 *
 * @example
 * getReservedKeyProblem('ctrl+c') // => '"ctrl+c" is reserved: ...'
 * getReservedKeyProblem('alt+o')  // => undefined
 */
export function getReservedKeyProblem(shortcut: string): string | undefined {
  const key = readKey(shortcut);
  if (key === undefined) return undefined;
  const reserved =
    RESERVED_BASES.has(key.base) ||
    (key.modifiers.length === 1 &&
      key.modifiers[0] === 'ctrl' &&
      (key.base === 'c' || key.base === 'd'));
  if (!reserved) return undefined;
  return `${JSON.stringify(shortcut)} is reserved: Esc, Ctrl+C, Ctrl+D, Enter, Tab, space and the arrow keys are how a person answers or leaves an ask, so no shortcut may bind them. Pick another key like "alt+o" or "ctrl+g", or "off"`;
}

function readKey(shortcut: string): { modifiers: string[]; base: string } | undefined {
  const lower = shortcut.trim().toLowerCase();
  if (lower === '') return shortcut === ' ' ? { modifiers: [], base: 'space' } : undefined;
  // `ctrl++` names the plus key.
  const plusKey = lower.endsWith('++');
  const parts = (plusKey ? lower.slice(0, -2) : lower).split('+').map((part) => part.trim());
  const base = plusKey ? '+' : parts.pop();
  if (base === undefined) return undefined;
  return { modifiers: parts, base: ALIASES[base] ?? base };
}
