/** HTML built by a tagged template that escapes every interpolated value unless it is markup. */
import { escapeControlCharacters } from '../form/escape-text.js';

/** Markup made by `html` (or trusted by construction); everything else is escaped. */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

type Interpolation = Html | string | number | boolean | null | undefined | readonly Interpolation[];

/**
 * @example
 * html`<p class="q">${question.question}</p>` // the question's `<b>` shows as `&lt;b&gt;`
 */
export function html(strings: TemplateStringsArray, ...values: Interpolation[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1]!;
  return new Html(out);
}

/** Text written by a model or a person: control characters visible, markup inert, lines kept. */
export function shownText(text: string): Html {
  return new Html(escapeHtml(escapeControlCharacters(text, true)));
}

export function escapeHtml(text: string): string {
  // Most text has nothing to escape: one scan, no copy.
  if (!NEEDS_ESCAPE.test(text)) return text;
  let out = '';
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const entity = entityOf(text.charCodeAt(i));
    if (entity === undefined) continue;
    out += text.slice(start, i) + entity;
    start = i + 1;
  }
  return out + text.slice(start);
}

const NEEDS_ESCAPE = /[&<>"']/;

function entityOf(code: number): string | undefined {
  switch (code) {
    case 0x26:
      return '&amp;';
    case 0x3c:
      return '&lt;';
    case 0x3e:
      return '&gt;';
    case 0x22:
      return '&quot;';
    case 0x27:
      return '&#39;';
    default:
      return undefined;
  }
}

function render(value: Interpolation): string {
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}
