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
  return text.replace(/[&<>"']/g, (char) => ENTITIES[char]!);
}

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

function render(value: Interpolation): string {
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}
