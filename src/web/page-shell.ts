/** The document around every page: one stylesheet, at most one module script, nothing inline. */
import { type Html, html } from './html.js';

export interface PageShell {
  title: string;
  main: Html;
  /** A script under `assets/`, e.g. `answer-page.js`. */
  script?: string;
  /** How many folders deep the page's path is below the server root (`/a/<id>` is 1). */
  depth: number;
  /** A page of tables (the operator's): as wide as the screen allows, up to 80rem. */
  wide?: boolean;
}

export function renderPage({ title, main, script, depth, wide = false }: PageShell): string {
  // Relative asset paths, so the pages keep working behind a proxy that adds a path prefix.
  const root = depth === 0 ? './' : '../'.repeat(depth);
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title}</title>
<link rel="stylesheet" href="${root}assets/web.css">
${script === undefined ? '' : html`<script type="module" src="${root}assets/${script}"></script>`}
</head>
<body>
<main${wide ? html` class="wide"` : ''}>
${main}
</main>
</body>
</html>
`.value;
}
