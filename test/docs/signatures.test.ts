/**
 * What the guides say a public function or method gives back is what its signature says:
 * "`server.linkFor(askId)` returns a URL" for a function that returns a Promise is a defect a
 * user meets at once. Every "`name(...)` returns / resolves / rejects" in the README and the
 * guides is checked against the declarations of that name in the public entries.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { snippetPages } from '../../scripts/snippets.js';
import { publicEntries, publicProgram, ROOT } from '../support/public-entries.js';

type Gives = 'promise' | 'value';

/** What each public function or method name gives back, over all its public declarations. */
function publicReturns(): Map<string, Set<Gives>> {
  const program = publicProgram();
  const checker = program.getTypeChecker();
  const found = new Map<string, Set<Gives>>();
  const note = (name: string, type: ts.Type) => {
    for (const signature of type.getCallSignatures()) {
      const returned = checker.getReturnTypeOfSignature(signature);
      const parts = returned.isUnion() ? returned.types : [returned];
      const set = found.get(name) ?? new Set<Gives>();
      for (const part of parts) set.add(isPromise(part) ? 'promise' : 'value');
      found.set(name, set);
    }
  };
  for (const { file } of publicEntries()) {
    const source = program.getSourceFile(file);
    const module = source === undefined ? undefined : checker.getSymbolAtLocation(source);
    if (module === undefined) throw new Error(`${file} exports nothing.`);
    for (const exported of checker.getExportsOfModule(module)) {
      const symbol =
        exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const declaration = symbol.declarations?.[0];
      if (declaration === undefined) continue;
      note(exported.getName(), checker.getTypeOfSymbolAtLocation(symbol, declaration));
      // The methods of an exported interface, class or object type (`service.get`, `server.linkFor`).
      if (
        symbol.flags &
        (ts.SymbolFlags.Interface | ts.SymbolFlags.Class | ts.SymbolFlags.TypeAlias)
      ) {
        const type = checker.getDeclaredTypeOfSymbol(symbol);
        for (const member of checker.getPropertiesOfType(type)) {
          const at = member.declarations?.[0] ?? declaration;
          note(member.getName(), checker.getTypeOfSymbolAtLocation(member, at));
        }
      }
    }
  }
  return found;
}

function isPromise(type: ts.Type): boolean {
  const name = type.getSymbol()?.getName();
  return name === 'Promise' || name === 'PromiseLike';
}

interface Claim {
  page: string;
  text: string;
  name: string;
  verb: 'returns' | 'resolves' | 'rejects';
}

/** Every "`x.name(...)` returns|resolves|rejects" of the README and the guides. */
function documentedClaims(): Claim[] {
  const pattern =
    /`(?:await )?(?:[\w$]+\.)*([\w$]+)\([^`]*\)`(?: \(and `[^`]*`\))? (returns|resolves|rejects)\b/g;
  return snippetPages(ROOT).flatMap((page) => {
    const text = readFileSync(join(ROOT, page), 'utf8').replace(/\s+/g, ' ');
    return [...text.matchAll(pattern)].map((match) => ({
      page,
      text: match[0],
      name: match[1] as string,
      verb: match[2] as Claim['verb'],
    }));
  });
}

describe('the documented signatures', () => {
  const returns = publicReturns();
  const claims = documentedClaims();

  it('are found in the pages (the check reads what the guides say)', () => {
    expect(claims.map((claim) => claim.name)).toEqual(
      expect.arrayContaining(['linkFor', 'inboxLinkFor']),
    );
  });

  it('name what the function gives back: a Promise resolves or rejects, a value is returned', () => {
    const wrong = claims.flatMap((claim) => {
      const gives = returns.get(claim.name);
      if (gives === undefined)
        return [`${claim.page}: ${claim.text}: no public function or method ${claim.name}`];
      const needed: Gives = claim.verb === 'returns' ? 'value' : 'promise';
      return gives.has(needed)
        ? []
        : [`${claim.page}: ${claim.text}: ${claim.name} gives ${[...gives].join(' or ')}`];
    });
    expect(wrong).toEqual([]);
  });
});
