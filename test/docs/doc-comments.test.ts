/**
 * Every public export has a doc comment: what the API reference (`npm run docs`, TypeDoc) shows
 * for it. The entries are read from package.json's exports map, so a new subpath is checked
 * the day it is added.
 */
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { publicEntries, publicProgram } from '../support/public-entries.js';

describe('the public API', () => {
  const entries = publicEntries();
  const program = publicProgram(entries);
  const checker = program.getTypeChecker();

  it('has entries to check', () => {
    expect(entries.map((entry) => entry.subpath)).toContain('.');
  });

  it.each(entries)('$subpath: every export has a doc comment', ({ file }) => {
    const source = program.getSourceFile(file);
    if (source === undefined) throw new Error(`${file} is not in the program.`);
    const module = checker.getSymbolAtLocation(source);
    if (module === undefined) throw new Error(`${file} exports nothing.`);
    const undocumented = checker
      .getExportsOfModule(module)
      .filter((symbol) => {
        const target =
          symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
        const documented =
          target.getDocumentationComment(checker).length > 0 ||
          (target.declarations ?? []).some(
            (declaration) => ts.getJSDocTags(declaration).length > 0,
          );
        return !documented;
      })
      .map((symbol) => symbol.getName())
      .sort();
    expect(undocumented).toEqual([]);
  });

  it.each(entries)(
    '$subpath: the reference names its module as it is imported',
    ({ subpath, file }) => {
      const name = subpath === '.' ? 'ask-engine' : `ask-engine/${subpath.slice(2)}`;
      const fileComment = /^\/\*\*[\s\S]*?\*\//.exec(readFileSync(file, 'utf8'))?.[0] ?? '';
      expect(fileComment).toMatch(new RegExp(`\n \\* @module ${name}\n`));
    },
  );
});
