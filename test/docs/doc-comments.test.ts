/**
 * Every public export has a doc comment: what the API reference (`npm run docs`, TypeDoc) shows
 * for it. The entries are read from package.json's exports map, so a new subpath is checked
 * the day it is added.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/** Each public subpath and the source file it maps to under the `ask-engine:source` condition. */
function publicEntries(): { subpath: string; file: string }[] {
  const { exports } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    exports: Record<string, string | Record<string, string>>;
  };
  return Object.entries(exports).flatMap(([subpath, target]) => {
    const source = typeof target === 'object' ? target['ask-engine:source'] : undefined;
    return source === undefined ? [] : [{ subpath, file: join(ROOT, source) }];
  });
}

describe('the public API', () => {
  const entries = publicEntries();
  const program = ts.createProgram(
    entries.map((entry) => entry.file),
    {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      customConditions: ['ask-engine:source'],
      skipLibCheck: true,
      noEmit: true,
    },
  );
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
