// The API reference (`npm run docs`, written to docs/api): one module per public entry, read
// from package.json's exports map, so a new subpath is documented the day it is added.
import { readFileSync } from 'node:fs';

const { exports } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));

/** @type {Partial<import('typedoc').TypeDocOptions>} */
export default {
  entryPoints: Object.values(exports)
    .map((target) => (typeof target === 'object' ? target['ask-engine:source'] : undefined))
    .filter((source) => source !== undefined),
  out: 'docs/api',
  name: 'ask-engine',
  // The landing page is the README, and the guides it links to are pages of the reference.
  readme: 'README.md',
  projectDocuments: ['docs/*.md'],
  excludePrivate: true,
  excludeInternal: true,
  validation: { notExported: true, invalidLink: true, notDocumented: false },
  // A type a public signature names and its entry does not export, or a broken link, fails the
  // run: the reference never points at something it does not show.
  treatWarningsAsErrors: true,
  // Source links need a hosted remote, which a checkout may not have.
  disableSources: true,
  compilerOptions: { customConditions: ['ask-engine:source'] },
};
