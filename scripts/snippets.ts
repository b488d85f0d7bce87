/**
 * The code blocks of README.md and docs/*.md are files: each ```ts block follows a marker
 * `<!-- snippet: PATH -->` naming a file under docs/snippets/, which the project type-checks
 * and test/docs/snippets.test.ts runs. This module finds the blocks and copies the files in.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const MARKER = /^<!-- snippet: (\S+) -->$/;
const FENCE_OPEN = /^```(\w*)\s*$/;

/** One fenced code block of a page, with the snippet file its marker names (if any). */
export interface CodeBlock {
  page: string;
  /** 1-based line of the opening fence. */
  line: number;
  language: string;
  code: string;
  snippet?: string;
}

/** The pages whose code blocks are snippets: the README and every guide in docs/. */
export function snippetPages(root: string): string[] {
  const guides = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...guides];
}

/**
 * Every fenced block of `markdown`. A block's snippet is the path in the marker on the line
 * right above its opening fence.
 *
 * @example
 * codeBlocks('<!-- snippet: docs/snippets/a.ts -->\n```ts\nx\n```\n', 'README.md')
 * // => [{ page: 'README.md', line: 2, language: 'ts', code: 'x\n', snippet: 'docs/snippets/a.ts' }]
 */
export function codeBlocks(markdown: string, page: string): CodeBlock[] {
  const lines = markdown.split('\n');
  const blocks: CodeBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    const open = FENCE_OPEN.exec(lines[index] ?? '');
    if (open === null) continue;
    const end = lines.findIndex((text, at) => at > index && text.startsWith('```'));
    if (end === -1) throw new Error(`${page}:${index + 1}: a code block is never closed.`);
    const marker = MARKER.exec(lines[index - 1] ?? '');
    blocks.push({
      page,
      line: index + 1,
      language: open[1] ?? '',
      code: lines.slice(index + 1, end).join('\n') + (end > index + 1 ? '\n' : ''),
      ...(marker?.[1] === undefined ? {} : { snippet: marker[1] }),
    });
    index = end;
  }
  return blocks;
}

/**
 * `markdown` with every marked block's code replaced by its file's text (read through `read`).
 * Throws naming the page and line of a marker whose file does not exist.
 */
export function withSnippets(
  markdown: string,
  page: string,
  read: (path: string) => string,
): string {
  const lines = markdown.split('\n');
  const out: string[] = [];
  for (let index = 0; index < lines.length; index++) {
    const text = lines[index] ?? '';
    out.push(text);
    const marker = MARKER.exec(text);
    if (marker?.[1] === undefined || !FENCE_OPEN.test(lines[index + 1] ?? '')) continue;
    const end = lines.findIndex((line, at) => at > index + 1 && line.startsWith('```'));
    if (end === -1) throw new Error(`${page}:${index + 2}: a code block is never closed.`);
    let code: string;
    try {
      code = read(marker[1]);
    } catch {
      throw new Error(`${page}:${index + 1}: the snippet ${marker[1]} does not exist.`);
    }
    out.push(lines[index + 1] ?? '', code.replace(/\n$/, ''), lines[end] ?? '');
    index = end;
  }
  return out.join('\n');
}

/** Reads a snippet file relative to the project root. */
export function readSnippet(root: string, path: string): string {
  return readFileSync(join(root, path), 'utf8');
}
