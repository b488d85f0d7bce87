/** A question page's draft on the terminal: what the person has done on it, and its rows. */
import type { AskUserResponse } from '../contracts/answer.js';
import type { AskUserQuestion } from '../contracts/question.js';
import { searchOptions } from './option-search.js';

/** One selectable row of a question page. */
export type QuestionRow =
  | { kind: 'option'; index: number }
  | { kind: 'freeform' }
  /** A tool approval that allows edits: edit the input (JSON) and approve it. */
  | { kind: 'edit-input' }
  | { kind: 'skip' };

/** What the person has done so far on one question: the search, the picks, the typed text. */
export interface QuestionDraft {
  query: string;
  /** Index into `rowsFor(...)`. */
  active: number;
  /** First row of the list viewport, kept between frames so scrolling does not jump. */
  top: number;
  /** Option indices picked on a multi-select question, in option order. */
  picked: number[];
  comment: string;
  /** `undefined`: not answered yet; `null`: skipped (wizards only). */
  answer: AskUserResponse | null | undefined;
  editing: EditorField | null;
}

/** The text fields of a question page: a typed answer, a comment, a tool approval's input. */
export type EditorField = 'freeform' | 'comment' | 'input';

export function createDraft(question: AskUserQuestion): QuestionDraft {
  return {
    query: '',
    active: 0,
    top: 0,
    picked: [],
    comment: '',
    answer: undefined,
    // A question without options is answered by typing: open the editor straight away.
    editing: question.options.length === 0 ? 'freeform' : null,
  };
}

/**
 * The rows of a question page: matching options, then "type your own answer" where a typed
 * answer is allowed next to options, then "skip" in a wizard. Action rows ignore the search.
 */
export function rowsFor(
  question: AskUserQuestion,
  draft: QuestionDraft,
  isWizard: boolean,
): QuestionRow[] {
  const rows: QuestionRow[] = searchOptions(question.options, draft.query).map((index) => ({
    kind: 'option' as const,
    index,
  }));
  if (question.allowFreeform) rows.push({ kind: 'freeform' });
  if (question.intent?.kind === 'tool-approval' && question.intent.allowEdits) {
    rows.push({ kind: 'edit-input' });
  }
  if (isWizard) rows.push({ kind: 'skip' });
  return rows;
}

/**
 * The answer as plain text (model and person text unescaped; line breaks kept), and its
 * comment apart, for the review page and the closing summary.
 */
export function describeResponse(response: AskUserResponse | null | undefined): {
  text: string;
  comment?: string;
} {
  if (response === undefined) return { text: 'not answered yet' };
  if (response === null) return { text: 'skipped' };
  if (response.kind === 'freeform') return { text: response.text };
  const text = response.selections.join(', ');
  return response.comment === undefined ? { text } : { text, comment: response.comment };
}

/** A selection response carrying the draft's comment when it has one. */
export function selectionResponse(
  question: AskUserQuestion,
  indices: readonly number[],
  comment: string,
): AskUserResponse {
  const selections = indices.map((index) => question.options[index]!.title);
  const trimmed = comment.trim();
  return question.allowComment && trimmed !== ''
    ? { kind: 'selection', selections, comment: trimmed }
    : { kind: 'selection', selections };
}
