/** Normalized questions for the form codec tests. */
import type { AskUserQuestion } from '../../src/data.js';

export function question(id: string, overrides: Partial<AskUserQuestion> = {}): AskUserQuestion {
  return {
    id,
    question: `Question ${id}?`,
    header: id.toUpperCase(),
    options: [{ title: 'Yes' }, { title: 'No' }],
    allowMultiple: false,
    allowFreeform: false,
    allowComment: false,
    ...overrides,
  };
}

/** A question with options that also takes a typed answer and a comment. */
export const open = question('q1', { allowFreeform: true, allowComment: true });
/** A multi-select question. */
export const tags = question('q2', {
  options: [{ title: 'Red' }, { title: 'Green' }, { title: 'Blue' }],
  allowMultiple: true,
  allowComment: true,
});
/** A question with no options: a typed answer only. */
export const typed = question('q3', { options: [], allowFreeform: true });
