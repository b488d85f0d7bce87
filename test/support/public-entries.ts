/**
 * The public entries of the package and a TypeScript program over their sources, for the tests
 * that read the public API as the reference shows it (doc comments, documented signatures).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';

export const ROOT = resolve(import.meta.dirname, '../..');

/** Each public subpath and the source file it maps to under the `ask-engine:source` condition. */
export function publicEntries(): { subpath: string; file: string }[] {
  const { exports } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    exports: Record<string, string | Record<string, string>>;
  };
  return Object.entries(exports).flatMap(([subpath, target]) => {
    const source = typeof target === 'object' ? target['ask-engine:source'] : undefined;
    return source === undefined ? [] : [{ subpath, file: join(ROOT, source) }];
  });
}

/** A program over every public entry, as a user's compiler sees the sources. */
export function publicProgram(entries = publicEntries()): ts.Program {
  return ts.createProgram(
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
}
