/** The interactive body of one ask: question pages, a wizard's tab bar and review page. */
import {
  type Component,
  Editor,
  type EditorTheme,
  type Focusable,
  matchesKey,
  type TUI,
} from '@mariozechner/pi-tui';
import type { AskUserQuestionAnswer } from '../contracts/answer.js';
import type { ProviderOutcome } from '../contracts/outcome.js';
import type { AskUserQuestion } from '../contracts/question.js';
import {
  createDraft,
  describeResponse,
  type QuestionDraft,
  type QuestionRow,
  rowsFor,
  selectionResponse,
} from './ask-draft.js';
import type { TerminalPreferences } from './preferences.js';
import { renderQuestionPage, renderReviewPage } from './render-page.js';
import { style } from './style.js';

export interface AskViewOptions {
  questions: readonly AskUserQuestion[];
  preferences: TerminalPreferences;
  /** Lines available for the view's body (the frame and margins already taken off). */
  getHeight(): number;
  /** Text for the right end of the footer (the countdown); `undefined` for none. */
  getStatus?(): string | undefined;
  /** Called once with the outcome the person chose. */
  onFinish(outcome: ProviderOutcome): void;
  /** Ctrl+C: the host decides (the CLI aborts the ask, like SIGINT). */
  onInterrupt(): void;
  /** Answers so far, whenever a wizard answer changes. */
  onProgress?(answers: AskUserQuestionAnswer[]): void;
}

const editorTheme: EditorTheme = {
  borderColor: style.dim,
  selectList: {
    selectedPrefix: style.accent,
    selectedText: style.bold,
    description: style.dim,
    scrollInfo: style.dim,
    noMatch: style.dim,
  },
};

/**
 * Renders every kind of question and turns keys into an outcome. It knows nothing of the
 * terminal or the frame around it, so tests drive it with `handleInput` and read `render`.
 *
 * @example
 * const view = new AskView(tui, { questions, preferences, getHeight: () => 20, onFinish, onInterrupt });
 * view.handleInput('\r');
 */
export class AskView implements Component, Focusable {
  readonly questions: readonly AskUserQuestion[];
  readonly drafts: QuestionDraft[];
  readonly isWizard: boolean;
  /** The shown page: a question index, or `questions.length` for the review page. */
  page = 0;
  contextExpanded = false;
  reviewNotice: string | undefined;
  #focused = false;
  #finished = false;
  readonly #tui: TUI;
  readonly #options: AskViewOptions;
  readonly #editors = new Map<string, Editor>();

  constructor(tui: TUI, options: AskViewOptions) {
    this.#tui = tui;
    this.#options = options;
    this.questions = options.questions;
    this.drafts = options.questions.map(createDraft);
    this.isWizard = options.questions.length > 1;
  }

  get preferences(): TerminalPreferences {
    return this.#options.preferences;
  }

  get focused(): boolean {
    return this.#focused;
  }

  // The editor draws the cursor only while focused; pass the focus down to the open one.
  set focused(value: boolean) {
    this.#focused = value;
    for (const [key, editor] of this.#editors)
      editor.focused = value && key === this.#openEditorKey();
  }

  get onReviewPage(): boolean {
    return this.page === this.questions.length;
  }

  invalidate(): void {
    for (const editor of this.#editors.values()) editor.invalidate();
  }

  render(width: number): string[] {
    const height = Math.max(6, this.#options.getHeight());
    const status = this.#options.getStatus?.();
    if (this.onReviewPage) return renderReviewPage(this, width, status);
    return renderQuestionPage(this, width, height, status);
  }

  /** The editor for the shown question's open text field, if one is open. */
  openEditor(): Editor | undefined {
    const key = this.#openEditorKey();
    return key === undefined ? undefined : this.#editor(key);
  }

  rows(page = this.page): QuestionRow[] {
    return rowsFor(this.questions[page]!, this.drafts[page]!, this.isWizard);
  }

  handleInput(data: string): void {
    if (this.#finished) return;
    if (matchesKey(data, 'ctrl+c')) {
      this.#options.onInterrupt();
      return;
    }
    if (matchesKey(data, 'ctrl+e')) {
      this.contextExpanded = !this.contextExpanded;
      return;
    }
    if (this.isWizard && (matchesKey(data, 'tab') || matchesKey(data, 'shift+tab'))) {
      this.#goToPage(this.page + (matchesKey(data, 'tab') ? 1 : -1));
      return;
    }
    if (this.onReviewPage) {
      this.#handleReviewInput(data);
      return;
    }
    const question = this.questions[this.page]!;
    const draft = this.drafts[this.page]!;
    draft.notice = undefined;
    const commentKey = this.preferences.commentToggleKey;
    if (commentKey !== null && matchesKey(data, commentKey) && this.#canComment(question)) {
      draft.editing = draft.editing === 'comment' ? null : 'comment';
      this.#syncFocus();
      return;
    }
    if (draft.editing !== null) {
      if (matchesKey(data, 'escape')) {
        // With nothing but the editor on the page, esc means what it means everywhere else.
        if (question.options.length === 0 && !this.isWizard) {
          this.#finish({ status: 'cancelled', reason: 'user' });
          return;
        }
        draft.editing = null;
        this.#syncFocus();
        return;
      }
      this.openEditor()?.handleInput(data);
      return;
    }
    this.#handleListInput(question, draft, data);
  }

  #handleListInput(question: AskUserQuestion, draft: QuestionDraft, data: string): void {
    const rows = this.rows();
    if (matchesKey(data, 'escape')) {
      this.#finish({ status: 'cancelled', reason: 'user' });
    } else if (matchesKey(data, 'up') || matchesKey(data, 'ctrl+p')) {
      // Wrapping: the action rows at the end (type, skip) are one key away from the top.
      draft.active = (draft.active - 1 + rows.length) % Math.max(1, rows.length);
    } else if (matchesKey(data, 'down') || matchesKey(data, 'ctrl+n')) {
      draft.active = (draft.active + 1) % Math.max(1, rows.length);
    } else if (matchesKey(data, 'pageUp')) {
      draft.active = Math.max(0, draft.active - 10);
    } else if (matchesKey(data, 'pageDown')) {
      draft.active = Math.min(rows.length - 1, draft.active + 10);
    } else if (this.isWizard && draft.query === '' && matchesKey(data, 'left')) {
      this.#goToPage(this.page - 1);
    } else if (this.isWizard && draft.query === '' && matchesKey(data, 'right')) {
      this.#goToPage(this.page + 1);
    } else if (matchesKey(data, 'enter')) {
      this.#activate(question, draft, rows[draft.active]);
    } else if (question.allowMultiple && matchesKey(data, 'space')) {
      const row = rows[draft.active];
      if (row?.kind === 'option') this.#togglePick(question, draft, row.index);
    } else if (matchesKey(data, 'backspace')) {
      this.#setQuery(draft, [...draft.query].slice(0, -1).join(''));
    } else {
      const typed = printableText(data);
      if (typed !== undefined && question.options.length > 0) {
        this.#setQuery(draft, draft.query + typed);
      }
    }
  }

  #activate(question: AskUserQuestion, draft: QuestionDraft, row: QuestionRow | undefined): void {
    if (row === undefined) return;
    if (row.kind === 'skip') {
      this.#commit(draft, null);
      return;
    }
    if (row.kind === 'freeform') {
      draft.editing = 'freeform';
      this.#syncFocus();
      return;
    }
    if (!question.allowMultiple) {
      this.#commit(draft, selectionResponse(question, [row.index], draft.comment));
      return;
    }
    if (draft.picked.length === 0) {
      draft.notice = 'Nothing picked yet: space picks the highlighted option, enter confirms.';
      return;
    }
    this.#commit(draft, selectionResponse(question, draft.picked, draft.comment));
  }

  #togglePick(question: AskUserQuestion, draft: QuestionDraft, index: number): void {
    const at = draft.picked.indexOf(index);
    if (at === -1) draft.picked = [...draft.picked, index].sort((a, b) => a - b);
    else draft.picked = draft.picked.filter((picked) => picked !== index);
    // A confirmed multi-select answer follows later changes, so the review page never lies.
    if (draft.answer?.kind === 'selection') {
      draft.answer =
        draft.picked.length > 0
          ? selectionResponse(question, draft.picked, draft.comment)
          : undefined;
      this.#reportProgress();
    }
  }

  #setQuery(draft: QuestionDraft, query: string): void {
    draft.query = query;
    draft.active = 0;
    draft.top = 0;
  }

  #handleReviewInput(data: string): void {
    this.reviewNotice = undefined;
    if (matchesKey(data, 'escape')) {
      this.#finish({ status: 'cancelled', reason: 'user' });
    } else if (matchesKey(data, 'left')) {
      this.#goToPage(this.page - 1);
    } else if (matchesKey(data, 'enter')) {
      this.#submitWizard();
    } else {
      const digit = printableText(data);
      const index = digit === undefined ? Number.NaN : Number(digit) - 1;
      if (Number.isInteger(index) && index >= 0 && index < this.questions.length) {
        this.#goToPage(index);
      }
    }
  }

  #submitWizard(): void {
    const missing = this.questions.filter((_, index) => this.drafts[index]!.answer === undefined);
    if (missing.length > 0) {
      this.reviewNotice = `Answer or skip ${missing.map((q) => q.header).join(', ')} before submitting.`;
      return;
    }
    if (this.drafts.every((draft) => draft.answer === null)) {
      this.reviewNotice = 'Every question is skipped: answer at least one, or press esc to cancel.';
      return;
    }
    this.#finish({ status: 'answered', answers: this.answers() });
  }

  /** Answers given so far (skips included), in question order. */
  answers(): AskUserQuestionAnswer[] {
    const result: AskUserQuestionAnswer[] = [];
    this.questions.forEach((question, index) => {
      const answer = this.drafts[index]!.answer;
      if (answer !== undefined) result.push({ questionId: question.id, response: answer });
    });
    return result;
  }

  #commit(draft: QuestionDraft, response: QuestionDraft['answer']): void {
    draft.answer = response;
    draft.editing = null;
    this.#syncFocus();
    if (!this.isWizard) {
      this.#finish({ status: 'answered', answers: this.answers() });
      return;
    }
    this.#reportProgress();
    const next = this.drafts.findIndex(
      (candidate, index) => index > this.page && candidate.answer === undefined,
    );
    const firstOpen = this.drafts.findIndex((candidate) => candidate.answer === undefined);
    this.#goToPage(next !== -1 ? next : firstOpen !== -1 ? firstOpen : this.questions.length);
  }

  #reportProgress(): void {
    this.#options.onProgress?.(this.answers());
  }

  #goToPage(page: number): void {
    const pages = this.isWizard ? this.questions.length + 1 : 1;
    this.page = ((page % pages) + pages) % pages;
    this.#syncFocus();
  }

  #finish(outcome: ProviderOutcome): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#options.onFinish(outcome);
  }

  /** One line per question: what the person answered, for the closing summary. */
  summary(): string[] {
    return this.questions.map(
      (question, index) => `${question.header}: ${describeResponse(this.drafts[index]!.answer)}`,
    );
  }

  #canComment(question: AskUserQuestion): boolean {
    return question.allowComment && question.options.length > 0;
  }

  #openEditorKey(): string | undefined {
    if (this.onReviewPage) return undefined;
    const editing = this.drafts[this.page]!.editing;
    return editing === null ? undefined : `${this.page}:${editing}`;
  }

  #syncFocus(): void {
    this.focused = this.#focused;
  }

  #editor(key: string): Editor {
    let editor = this.#editors.get(key);
    if (editor !== undefined) return editor;
    editor = new Editor(this.#tui, editorTheme, { paddingX: 0 });
    const [pageText, field] = key.split(':') as [string, 'freeform' | 'comment'];
    const page = Number(pageText);
    editor.onSubmit = (text) => this.#submitText(page, field, text);
    this.#editors.set(key, editor);
    editor.focused = this.#focused;
    return editor;
  }

  #submitText(page: number, field: 'freeform' | 'comment', text: string): void {
    const question = this.questions[page]!;
    const draft = this.drafts[page]!;
    // The editor empties itself on submit; put the text back so reopening shows it.
    this.#editors.get(`${page}:${field}`)?.setText(text);
    if (field === 'comment') {
      draft.comment = text;
      draft.editing = null;
      if (draft.answer?.kind === 'selection') {
        const indices = draft.answer.selections.map((title) =>
          question.options.findIndex((option) => option.title === title),
        );
        draft.answer = selectionResponse(question, indices, text);
        this.#reportProgress();
      }
      this.#syncFocus();
      return;
    }
    if (text.trim() === '') {
      draft.notice = 'The answer is empty: type something, or press esc to go back.';
      return;
    }
    this.#commit(draft, { kind: 'freeform', text });
  }
}

/** The text a key press types, or `undefined` for control keys; paste arrives as one line. */
export function printableText(data: string): string | undefined {
  const PASTE_END = '\x1b[201~';
  if (data.startsWith('\x1b[200~')) {
    const body = data.slice(6, data.endsWith(PASTE_END) ? -PASTE_END.length : undefined);
    return [...body]
      .map((character) =>
        character === '\n' || character === '\r' || character === '\t' ? ' ' : character,
      )
      .filter((character) => character >= ' ' && character !== '\x7f')
      .join('');
  }
  if (data.length === 0 || data.startsWith('\x1b')) return undefined;
  for (const character of data) {
    if (character < ' ' || character === '\x7f') return undefined;
  }
  return data;
}
