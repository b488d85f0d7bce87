/**
 * The MCP Apps form's `ui://` resource: one HTML document holding the answer page's stylesheet
 * and the view's script, under a Content-Security-Policy that lets only those two run.
 */
import { createHash } from 'node:crypto';
import { loadBrowserBundle, sourceExtension } from '../web/assets.js';
import { PAGE_STYLE } from '../web/page-style.js';
import { APP_MIME_TYPE, ASK_USER_APP_URI } from './apps-contract.js';

/** The view's browser entry (`src/mcp/apps-view.ts`), bundled into `assets/` by the build. */
export const APPS_VIEW_ENTRY = 'apps-view';

/** One content item of `resources/read`, as MCP Apps hosts read it. */
export interface AppResourceContents {
  uri: string;
  mimeType: string;
  text: string;
  _meta: {
    ui: { csp: { connectDomains: string[]; resourceDomains: string[] }; prefersBorder: boolean };
  };
}

let html: Promise<string> | undefined;

/**
 * The resource's one content item. The script and the style are inline because an Apps view
 * has no server of its own to load files from (the host renders the HTML in a sandboxed frame,
 * and the spec's default policy allows inline script and style for that reason). The
 * document's own policy narrows it to exactly these two, by hash: any other inline script,
 * handler or style does not run, no network request leaves, and the form posts nowhere.
 */
export async function readAppResource(): Promise<AppResourceContents> {
  html ??= renderAppHtml().catch((error: unknown) => {
    html = undefined;
    throw error;
  });
  return {
    uri: ASK_USER_APP_URI,
    mimeType: APP_MIME_TYPE,
    text: await html,
    // No domain of any kind: the view needs none, so the host's policy can be its tightest.
    _meta: { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } },
  };
}

async function renderAppHtml(): Promise<string> {
  const script = (
    await loadBrowserBundle(
      new URL(`./assets/${APPS_VIEW_ENTRY}.js`, import.meta.url),
      new URL(`./${APPS_VIEW_ENTRY}${sourceExtension(import.meta.url)}`, import.meta.url),
    )
  ).toString('utf8');
  // The bundle goes into a <script> element as it is: text that would end the element early
  // cannot be escaped there without changing the code, so it is refused.
  if (/<\/script|<!--/i.test(script)) {
    throw new Error(
      `ask-engine/mcp: the form's script (${APPS_VIEW_ENTRY}) holds "</script" or "<!--", which cannot be inlined; bundle it with esbuild's default escaping.`,
    );
  }
  const policy = [
    "default-src 'none'",
    `script-src '${sha256(script)}'`,
    `style-src '${sha256(PAGE_STYLE)}'`,
    "form-action 'none'",
    "base-uri 'none'",
  ].join('; ');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${policy}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Your answer is needed</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<main><p class="lead" role="status">Loading the question…</p></main>
<script type="module">${script}</script>
</body>
</html>
`;
}

function sha256(text: string): string {
  return `sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}`;
}
