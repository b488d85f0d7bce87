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
import { canonicalJson } from '../rules/call-digest.js';
import { isUserInteractionError } from '../rules/errors.js';
import { validateResponse } from '../rules/validate-answers.js';
import {
  createDraft,
  type EditorField,
  type QuestionDraft,
  type QuestionRow,
  rowsFor,
  selectionResponse,
} from './ask-draft.js';
import { toLiteralText } from './literal-text.js';
import type { TerminalPreferences } from './preferences.js';
import { renderQuestionPage, renderReviewPage } from './render-page.js';
import { showQuestion } from './shown-question.js';
import { style } from './style.js';

/**
 * What the page renderers read: the view's state, read-only. Rendering never changes it; the
 * one thing a frame decides (where a scrolled list or review starts) is returned to the view.
 */
export interface AskPageState {
  readonly questions: readonly AskUserQuestion[];
  readonly drafts: readonly Readonly<QuestionDraft>[];
  readonly isWizard: boolean;
  readonly page: number;
  readonly onReviewPage: boolean;
  readonly contextExpanded: boolean;
  readonly preferences: TerminalPreferences;
  /**
   * Where a quorum ask stands (who has responded, how many more are needed), shown in the
   * footer; empty for an ask one person answers.
   */
  readonly standing: readonly string[];
  /** A message about the last key (nothing picked, confirm cancel, ...), shown above the hints. */
  readonly notice: string | undefined;
  /** First line of the review page's scroll window. */
  readonly reviewTop: number;
  /** Whether esc now asks to confirm cancelling (something entered would be lost). */
  readonly confirmingCancel: boolean;
  rows(page?: number): QuestionRow[];
  openEditor(): Component | undefined;
  /** The text in the page's answer editor, sent or not. */
  editorText(page: number, field: EditorField): string;
  /** What esc does on the shown page now. */
  escapeStep(): 'close-editor' | 'clear-search' | 'cancel';
}

const CONFIRM_CANCEL =
  'Esc again cancels the ask and discards what you entered; any other key keeps it.';

/** What an `AskView` shows and whom it tells: questions, preferences, size and callbacks. */
export interface AskViewOptions {
  /** The normalized questions to show, one page each. */
  questions: readonly AskUserQuestion[];
  /** Resolved preferences (`resolvePreferences`): layout, display mode and shortcuts. */
  preferences: TerminalPreferences;
  /** Lines available for the view's body (the frame and margins already taken off). */
  getHeight(): number;
  /** Text for the right end of the footer (the countdown); `undefined` for none. */
  getStatus?(): string | undefined;
  /** Lines on who else decides a quorum ask, read at each render; `[]` or absent for none. */
  getStanding?(): readonly string[];
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
export class AskView implements Component, Focusable, AskPageState {
  readonly questions: readonly AskUserQuestion[];
  readonly drafts: QuestionDraft[];
  readonly isWizard: boolean;
  /** The shown page: a question index, or `questions.length` for the review page. */
  page = 0;
  contextExpanded = false;
  notice: string | undefined;
  reviewTop = 0;
  confirmingCancel = false;
  #focused = false;
  #finished = false;

  get standing(): readonly string[] {
    return this.#options.getStanding?.() ?? [];
  }
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
    if (this.onReviewPage) {
      const review = renderReviewPage(this, width, height, status);
      this.reviewTop = review.top;
      return review.lines;
    }
    const page = renderQuestionPage(this, width, height, status);
    // The list's scroll position is the one thing a frame decides; the view keeps it.
    this.drafts[this.page]!.top = page.top;
    return page.lines;
  }

  editorText(page: number, field: EditorField): string {
    return this.#editors.get(`${page}:${field}`)?.getText() ?? '';
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
    this.notice = undefined;
    if (matchesKey(data, 'escape')) {
      this.#handleEscape();
      return;
    }
    this.confirmingCancel = false;
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
    const commentKey = this.preferences.commentToggleKey;
    if (commentKey !== null && matchesKey(data, commentKey) && this.#canComment(question)) {
      if (draft.editing === 'comment')
        this.#saveComment(this.page, this.editorText(this.page, 'comment'));
      else draft.editing = 'comment';
      this.#syncFocus();
      return;
    }
    if (draft.editing !== null) {
      this.openEditor()?.handleInput(data);
      return;
    }
    this.#handleListInput(question, draft, data);
  }

  /**
   * Esc goes back one step, the same everywhere, and the footer says which step: an open editor
   * closes (a comment is kept as the comment, typed answer text stays in its editor), a search
   * is cleared; otherwise the ask is cancelled, after a second esc when something entered
   * would be lost.
   */
  #handleEscape(): void {
    const step = this.escapeStep();
    if (step === 'close-editor') {
      const draft = this.drafts[this.page]!;
      if (draft.editing === 'comment') {
        this.#saveComment(this.page, this.editorText(this.page, 'comment'));
      } else {
        draft.editing = null;
      }
      this.#syncFocus();
    } else if (step === 'clear-search') {
      this.#setQuery(this.drafts[this.page]!, '');
    } else if (this.confirmingCancel || !this.#hasEnteredSomething()) {
      this.#finish({ status: 'cancelled', reason: 'user' });
    } else {
      this.confirmingCancel = true;
      this.notice = CONFIRM_CANCEL;
    }
  }

  /** What esc does on the shown page now; the footer's hint says the same. */
  escapeStep(): 'close-editor' | 'clear-search' | 'cancel' {
    if (this.onReviewPage) return 'cancel';
    const draft = this.drafts[this.page]!;
    if (draft.editing === 'comment') return 'close-editor';
    // An answer editor alone on its page (a single typed question) has no list to go back to.
    if (draft.editing === 'freeform' && this.rows().length > 1) return 'close-editor';
    if (draft.editing === 'input') return 'close-editor';
    if (draft.editing === null && draft.query !== '') return 'clear-search';
    return 'cancel';
  }

  #hasEnteredSomething(): boolean {
    return this.drafts.some(
      (draft, page) =>
        draft.answer !== undefined ||
        draft.picked.length > 0 ||
        draft.comment.trim() !== '' ||
        this.editorText(page, 'freeform').trim() !== '' ||
        this.editorText(page, 'comment').trim() !== '',
    );
  }

  #handleListInput(question: AskUserQuestion, draft: QuestionDraft, data: string): void {
    const rows = this.rows();
    const searching = draft.query !== '';
    if (matchesKey(data, 'up') || matchesKey(data, 'ctrl+p')) {
      // Wrapping: the action rows at the end (type, skip) are one key away from the top.
      draft.active = (draft.active - 1 + rows.length) % Math.max(1, rows.length);
    } else if (matchesKey(data, 'down') || matchesKey(data, 'ctrl+n')) {
      draft.active = (draft.active + 1) % Math.max(1, rows.length);
    } else if (matchesKey(data, 'pageUp')) {
      draft.active = Math.max(0, draft.active - 10);
    } else if (matchesKey(data, 'pageDown')) {
      draft.active = Math.max(0, Math.min(rows.length - 1, draft.active + 10));
    } else if (this.isWizard && !searching && matchesKey(data, 'left')) {
      this.#goToPage(this.page - 1);
    } else if (this.isWizard && !searching && matchesKey(data, 'right')) {
      this.#goToPage(this.page + 1);
    } else if (question.allowMultiple && searching && matchesKey(data, 'enter')) {
      // While searching, space is part of the search and enter picks the highlighted match.
      const row = rows[draft.active];
      if (row?.kind === 'option') this.#togglePick(question, draft, row.index);
      else this.#activate(question, draft, row);
    } else if (matchesKey(data, 'enter')) {
      this.#activate(question, draft, rows[draft.active]);
    } else if (question.allowMultiple && !searching && matchesKey(data, 'space')) {
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
    if (row.kind === 'freeform' || row.kind === 'edit-input') {
      draft.editing = row.kind === 'freeform' ? 'freeform' : 'input';
      this.#syncFocus();
      return;
    }
    if (!question.allowMultiple) {
      this.#commit(draft, selectionResponse(question, [row.index], draft.comment));
      return;
    }
    if (draft.picked.length === 0) {
      this.notice = 'Nothing picked yet: space picks the highlighted option, enter confirms.';
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

  /** A new search keeps the highlighted option when it still matches, else highlights the first. */
  #setQuery(draft: QuestionDraft, query: string): void {
    const highlighted = this.rows()[draft.active];
    draft.query = query;
    const rows = this.rows();
    const kept =
      highlighted?.kind === 'option'
        ? rows.findIndex((row) => row.kind === 'option' && row.index === highlighted.index)
        : -1;
    draft.active = Math.max(0, kept);
    draft.top = 0;
  }

  #handleReviewInput(data: string): void {
    if (matchesKey(data, 'up')) {
      this.reviewTop = Math.max(0, this.reviewTop - 1);
    } else if (matchesKey(data, 'down')) {
      this.reviewTop += 1; // the next frame stops it at the end
    } else if (matchesKey(data, 'pageUp')) {
      this.reviewTop = Math.max(0, this.reviewTop - 10);
    } else if (matchesKey(data, 'pageDown')) {
      this.reviewTop += 10;
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
      // Headers are model text: shown through the one escaper, like every other place.
      const headers = missing.map((q) => showQuestion(q).header).join(', ');
      this.notice = `Answer or skip ${headers} before submitting.`;
      return;
    }
    if (this.drafts.every((draft) => draft.answer === null)) {
      this.notice = 'Every question is skipped: answer at least one, or press esc to cancel.';
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
    this.reviewTop = 0;
    this.#syncFocus();
  }

  #finish(outcome: ProviderOutcome): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#options.onFinish(outcome);
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
    const [pageText, field] = key.split(':') as [string, EditorField];
    const page = Number(pageText);
    const intent = this.questions[page]!.intent;
    // A tool approval's input editor starts with the proposed input.
    if (field === 'input' && intent?.kind === 'tool-approval') {
      editor.setText(JSON.stringify(intent.input, null, 2) ?? '');
    }
    editor.onSubmit = (text) => this.#submitText(page, field, text);
    this.#editors.set(key, editor);
    editor.focused = this.#focused;
    return editor;
  }

  /** The comment editor's text becomes the comment, whether enter or esc closed it. */
  #saveComment(page: number, text: string): void {
    const question = this.questions[page]!;
    const draft = this.drafts[page]!;
    draft.comment = text;
    draft.editing = null;
    if (draft.answer?.kind === 'selection') {
      const indices = draft.answer.selections.map((title) =>
        question.options.findIndex((option) => option.title === title),
      );
      draft.answer = selectionResponse(question, indices, text);
      this.#reportProgress();
    }
  }

  #submitText(page: number, field: EditorField, text: string): void {
    const draft = this.drafts[page]!;
    // The editor empties itself on submit; put the text back so reopening shows it.
    this.#editors.get(`${page}:${field}`)?.setText(text);
    if (field === 'comment') {
      this.#saveComment(page, text);
      this.#syncFocus();
      return;
    }
    if (field === 'input') {
      this.#approveInput(page, text);
      return;
    }
    if (text.trim() === '') {
      this.notice = 'The answer is empty: type something first.';
      return;
    }
    this.#commit(draft, { kind: 'freeform', text });
  }

  /**
   * Enter in a tool approval's input editor approves the call with that input: it must be JSON
   * the tool's schema accepts (the answer rules check it); otherwise the notice says what is
   * wrong and the editor stays open. The input as proposed approves without an edit.
   */
  #approveInput(page: number, text: string): void {
    const question = this.questions[page]!;
    const intent = question.intent;
    if (intent?.kind !== 'tool-approval') return;
    let input: unknown;
    try {
      input = JSON.parse(text);
    } catch {
      this.notice = 'The input is not valid JSON; check its quotes, commas and brackets.';
      return;
    }
    const approve = question.options.findIndex((option) => option.title === intent.approve);
    const base = selectionResponse(question, [approve], this.drafts[page]!.comment);
    const edited = canonicalJson(input) !== canonicalJson(intent.input);
    try {
      this.#commit(
        this.drafts[page]!,
        edited ? validateResponse(question, { ...base, input }, true) : base,
      );
    } catch (error) {
      if (!isUserInteractionError(error)) throw error;
      // The message names schema paths, which are the tool's text: shown literally.
      this.notice = toLiteralText(error.message);
    }
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
