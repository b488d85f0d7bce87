/** Type-to-search over option titles and descriptions. */
import type { AskUserOption } from '../contracts/question.js';

/**
 * Indices of the options matching `query`: every whitespace-separated word of the query must
 * appear, case-insensitively, in the title or the description. An empty query matches all.
 *
 * @example
 * searchOptions([{ title: 'PostgreSQL' }, { title: 'SQLite' }], 'post') // => [0]
 */
export function searchOptions(options: readonly AskUserOption[], query: string): number[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const result: number[] = [];
  for (let index = 0; index < options.length; index++) {
    const option = options[index]!;
    if (words.length === 0) {
      result.push(index);
      continue;
    }
    const haystack = `${option.title}\n${option.description ?? ''}`.toLowerCase();
    if (words.every((word) => haystack.includes(word))) result.push(index);
  }
  return result;
}
