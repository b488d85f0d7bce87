/** Parses a shortcut preference (`alt+o`, `ctrl+g`, `off`) into a pi-tui key id or `null`. */
import type { KeyId } from '@mariozechner/pi-tui';
import { getReservedKeyProblem } from '../rules/reserved-keys.js';

const DISABLED = new Set(['off', 'none', 'disabled', '']);
const MODIFIERS = new Set(['ctrl', 'shift', 'alt', 'super']);
const SPECIAL_KEYS = new Set([
  'escape',
  'esc',
  'enter',
  'return',
  'tab',
  'space',
  'backspace',
  'delete',
  'insert',
  'clear',
  'home',
  'end',
  'pageUp',
  'pageDown',
  'up',
  'down',
  'left',
  'right',
  'f1',
  'f2',
  'f3',
  'f4',
  'f5',
  'f6',
  'f7',
  'f8',
  'f9',
  'f10',
  'f11',
  'f12',
]);
const SYMBOL_KEYS = "`-=[]\\;',./!@#$%^&*()_+|~{}:<>?";

/**
 * `null` when the shortcut is disabled (`off`, `none`, `disabled` or empty), else the key id.
 * Throws a `TypeError` naming the value when it is not a key pi-tui can match, or when it is a
 * key the person needs to answer or leave (`getReservedKeyProblem`: Esc, Ctrl+C, Enter, …).
 *
 * @example
 * parseShortcut('Alt+O') // => 'alt+o'
 * parseShortcut('off')   // => null
 */
export function parseShortcut(value: string): KeyId | null {
  const trimmed = value.trim();
  if (DISABLED.has(trimmed.toLowerCase())) return null;
  // `ctrl++` names the plus key; split keeps it as the final empty segment pair.
  const plusKey = trimmed.endsWith('++');
  const parts = (plusKey ? trimmed.slice(0, -2) : trimmed).split('+');
  const base = plusKey ? '+' : parts.pop();
  const modifiers = parts.map((part) => part.toLowerCase());
  if (
    base === undefined ||
    base === '' ||
    !isBaseKey(base) ||
    !modifiers.every((m) => MODIFIERS.has(m))
  ) {
    throw new TypeError(
      `Expected a shortcut like "alt+o" or "ctrl+g" (modifiers ctrl, shift, alt, super) or "off", got ${JSON.stringify(value)}.`,
    );
  }
  if (new Set(modifiers).size !== modifiers.length) {
    throw new TypeError(`Shortcut ${JSON.stringify(value)} repeats a modifier.`);
  }
  const reserved = getReservedKeyProblem(trimmed);
  if (reserved !== undefined) throw new TypeError(`${reserved}.`);
  const key = base.length === 1 ? base.toLowerCase() : normalizeSpecial(base);
  return [...modifiers, key].join('+') as KeyId;
}

function isBaseKey(base: string): boolean {
  if (base.length === 1) return /[a-z0-9]/i.test(base) || SYMBOL_KEYS.includes(base);
  return SPECIAL_KEYS.has(normalizeSpecial(base));
}

function normalizeSpecial(base: string): string {
  const lower = base.toLowerCase();
  if (lower === 'pageup') return 'pageUp';
  if (lower === 'pagedown') return 'pageDown';
  return lower;
}
