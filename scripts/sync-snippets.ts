/** `npm run docs:snippets`: copies every docs/snippets/ file into the blocks that name it. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readSnippet, snippetPages, withSnippets } from './snippets.js';

const root = resolve(import.meta.dirname, '..');
let changed = 0;
for (const page of snippetPages(root)) {
  const file = join(root, page);
  const before = readFileSync(file, 'utf8');
  const after = withSnippets(before, page, (path) => readSnippet(root, path));
  if (after !== before) {
    writeFileSync(file, after);
    changed++;
    console.log(`updated ${page}`);
  }
}
console.log(changed === 0 ? 'Every snippet is up to date.' : `${changed} pages updated.`);
