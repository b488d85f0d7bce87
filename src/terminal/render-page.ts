/** Draws a question page or a wizard's review page as lines no wider than the given width. */
import { truncateToWidth, visibleWidth, wrapTextWithAnsi } from '@mariozechner/pi-tui';
import type { AskUserQuestion } from '../contracts/question.js';
import { describeResponse, type QuestionDraft, type QuestionRow } from './ask-draft.js';
import type { AskPageState } from './ask-view.js';
import { toLiteralText } from './literal-text.js';
import { type ShownQuestion, showQuestion } from './shown-question.js';
import { style } from './style.js';
import { fitViewport } from './viewport.js';

/** Context longer than this many lines starts collapsed, so the choices stay on screen. */
export const CONTEXT_PREVIEW_LINES = 4;
/** Below this width a single-select question never splits into list and preview panes. */
export const SPLIT_PANE_MIN_WIDTH = 100;

/** The mark of the approving option, by what the question approves. */
const APPROVES = { 'plan-review': '← approves the plan', 'tool-approval': '← approves the call' };
const MARK = { answered: '✔', skipped: '–', open: '○' } as const;

/** A page's lines, and where its scrolled part starts (for the view to keep). */
export interface RenderedPage {
  lines: string[];
  top: number;
}

/**
 * @example
 * renderQuestionPage(view, 80, 24, '29s left').lines // => ['DB  Which database?', ...]
 */
export function renderQuestionPage(
  view: AskPageState,
  width: number,
  height: number,
  status: string | undefined,
): RenderedPage {
  const question = view.questions[view.page]!;
  const draft = view.drafts[view.page]!;
  const shown = showQuestion(question);
  const top: string[] = [];
  if (view.isWizard) top.push(...renderTabBar(view, width), '');
  top.push(
    ...wrap(`${style.accent(style.bold(shown.header))}  ${style.bold(shown.question)}`, width),
  );
  if (shown.context !== undefined) {
    top.push(...renderContext(question, shown.context, view.contextExpanded, width, height));
  }
  if (question.options.length > 0) top.push(renderSearch(draft, question, width));

  const bottom: string[] = [];
  if (draft.comment !== '' && draft.editing !== 'comment') {
    bottom.push(oneLine(`${style.dim('Comment:')} `, toLiteralText(draft.comment), width));
  }
  const editor = view.openEditor();
  if (editor !== undefined) {
    bottom.push(style.dim(EDITOR_TITLES[draft.editing ?? 'freeform']));
    bottom.push(...editor.render(width));
  }
  if (view.notice !== undefined) bottom.push(...wrap(style.warn(view.notice), width));
  bottom.push(...renderFooter(view, question, draft, width, status));

  if (question.options.length === 0 && draft.editing !== null) {
    return { lines: [...top, ...bottom], top: draft.top };
  }
  const budget = Math.max(3, height - top.length - bottom.length);
  const list = renderRows(view, question, draft, view.rows(), width, budget);
  return { lines: [...top, ...list.lines, ...bottom], top: list.top };
}

/**
 * Every answer whole (multi-line text indented under its first line); when that is taller
 * than the room, the answers scroll between "↑ n more lines" and "↓ n more lines".
 *
 * @example
 * renderReviewPage(view, 80, 24, undefined).lines // => [' ✔ Scope │ ○ Tests │ ✓ Review ', '', 'Review your answers', ...]
 */
export function renderReviewPage(
  view: AskPageState,
  width: number,
  height: number,
  status: string | undefined,
): RenderedPage {
  const top = [...renderTabBar(view, width), '', style.bold('Review your answers')];
  const body: string[] = [];
  view.questions.forEach((question, index) => {
    const shown = showQuestion(question);
    const answer = view.drafts[index]!.answer;
    body.push(...wrap(`${markOf(answer)} ${style.accent(shown.header)}  ${shown.question}`, width));
    const { text, comment } = describeResponse(answer);
    const paint = answer === undefined ? style.warn : answer === null ? style.dim : plainText;
    body.push(...hang('    → ', toLiteralText(text), width, paint));
    if (comment !== undefined) {
      body.push(...hang(`      ${style.dim('comment:')} `, toLiteralText(comment), width));
    }
  });
  const bottom = [''];
  if (view.notice !== undefined) bottom.push(...wrap(style.warn(view.notice), width));
  const hints = [
    'enter submit',
    `1-${view.questions.length}/tab/shift+tab go to a question`,
    'esc cancel',
  ];
  const fixed = top.length + bottom.length;
  if (fixed + body.length + footerLines(view, hints, width, status).length <= height) {
    return {
      lines: [...top, ...body, ...bottom, ...footerLines(view, hints, width, status)],
      top: 0,
    };
  }
  const footer = footerLines(view, ['↑↓ scroll', ...hints], width, status);
  // Two lines of the room go to the "↑ more" and "↓ more" indicators.
  const room = Math.max(1, height - fixed - footer.length - 2);
  const first = Math.min(Math.max(0, view.reviewTop), Math.max(0, body.length - room));
  const below = Math.max(0, body.length - first - room);
  const window = [
    style.dim(first > 0 ? `  ↑ ${first} more line${first === 1 ? '' : 's'}` : ''),
    ...body.slice(first, first + room),
    style.dim(below > 0 ? `  ↓ ${below} more line${below === 1 ? '' : 's'}` : ''),
  ];
  return { lines: [...top, ...window, ...bottom, ...footer], top: first };
}

/**
 * The closing summary of an answered ask: one entry per question, the answer whole, its
 * continuation lines indented under the first.
 *
 * @example
 * renderAnswerSummary(view, 80) // => ['  DB: SQLite']
 */
export function renderAnswerSummary(view: AskPageState, width: number): string[] {
  const lines: string[] = [];
  view.questions.forEach((question, index) => {
    const { text, comment } = describeResponse(view.drafts[index]!.answer);
    lines.push(...hang(`  ${showQuestion(question).header}: `, toLiteralText(text), width));
    if (comment !== undefined) {
      lines.push(...hang(`    ${style.dim('comment:')} `, toLiteralText(comment), width));
    }
  });
  return lines;
}

/**
 * `text` after `prefix` on every line of `text`'s own, continuation lines indented under the
 * text, nothing shortened.
 */
function hang(
  prefix: string,
  text: string,
  width: number,
  paint: (line: string) => string = plainText,
): string[] {
  const indent = visibleWidth(prefix);
  const parts = wrapTextWithAnsi(text, Math.max(1, width - indent));
  return (parts.length === 0 ? [''] : parts).map((part, index) =>
    truncateToWidth((index === 0 ? prefix : ' '.repeat(indent)) + paint(part), width, '…'),
  );
}

/** `text` shortened to one line after `prefix`, visibly: `…` where lines or words were left out. */
function oneLine(prefix: string, text: string, width: number): string {
  const lines = text.split('\n');
  const first = lines.length > 1 ? `${lines[0]} …` : lines[0]!;
  return truncateToWidth(prefix + first, width, '…');
}

function plainText(text: string): string {
  return text;
}

function renderTabBar(view: AskPageState, width: number): string[] {
  const tabs = view.questions.map((question, index) => {
    const label = `${markOf(view.drafts[index]!.answer)} ${showQuestion(question).header}`;
    return index === view.page ? style.inverse(` ${label} `) : ` ${label} `;
  });
  const review = view.onReviewPage ? style.inverse(' ✓ Review ') : ' ✓ Review ';
  return wrap([...tabs, review].join(style.dim('│')), width);
}

function markOf(answer: QuestionDraft['answer']): string {
  if (answer === undefined) return MARK.open;
  return answer === null ? MARK.skipped : style.good(MARK.answered);
}

function renderContext(
  question: AskUserQuestion,
  context: string,
  expanded: boolean,
  width: number,
  height: number,
): string[] {
  const isPlan = question.intent?.kind === 'plan-review';
  const label = isPlan ? style.warn(style.bold('Plan under review')) : style.dim('Context');
  const gutter = style.dim('│ ');
  const body = context.split('\n').flatMap((line) => wrapPlain(line, Math.max(1, width - 2)));
  // A plan is the thing being decided on: give it more room before collapsing it.
  const limit = isPlan
    ? Math.max(CONTEXT_PREVIEW_LINES, Math.floor(height / 2))
    : CONTEXT_PREVIEW_LINES;
  const lines = [label];
  if (body.length <= limit) {
    lines.push(...body.map((line) => gutter + line));
  } else if (expanded) {
    lines.push(...body.map((line) => gutter + line), style.dim('  ctrl+e collapses'));
  } else {
    const hidden = body.length - (limit - 1);
    lines.push(
      ...body.slice(0, limit - 1).map((line) => gutter + line),
      style.dim(`  … ${hidden} more line${hidden === 1 ? '' : 's'} · ctrl+e expands`),
    );
  }
  return lines;
}

function renderSearch(
  draft: Readonly<QuestionDraft>,
  question: AskUserQuestion,
  width: number,
): string {
  if (draft.query === '') {
    const how = question.allowMultiple ? 'type to search · space picks' : 'type to search';
    return style.dim(truncateToWidth(`Search: ${how}`, width));
  }
  return truncateToWidth(
    `Search: ${style.bold(toLiteralText(draft.query))}${style.inverse(' ')}`,
    width,
  );
}

function renderRows(
  view: AskPageState,
  question: AskUserQuestion,
  draft: Readonly<QuestionDraft>,
  rows: QuestionRow[],
  width: number,
  budget: number,
): RenderedPage {
  const active = Math.min(draft.active, Math.max(0, rows.length - 1));
  const shown = showQuestion(question);
  const split =
    !question.allowMultiple &&
    view.preferences.singleSelectLayout === 'auto' &&
    width >= SPLIT_PANE_MIN_WIDTH &&
    shown.options.some((option) => option.description !== undefined);
  const listWidth = split ? splitListWidth(question, shown, width) : width;
  const blocks = rows.map((row, index) =>
    renderRow(view, question, draft, row, index === active, listWidth, !split),
  );
  const noMatch = draft.query !== '' && !rows.some((row) => row.kind === 'option');
  const window = fitViewport(
    blocks.map((block) => block.length),
    active,
    draft.top,
    budget - (noMatch ? 1 : 0),
  );
  const list: string[] = [];
  if (noMatch) list.push(style.dim(`  No option matches "${toLiteralText(draft.query)}"`));
  if (window.above > 0) list.push(style.dim(`  ↑ ${window.above} more`));
  for (let index = window.top; index < window.end; index++) list.push(...blocks[index]!);
  if (window.below > 0) list.push(style.dim(`  ↓ ${window.below} more`));
  if (!split) return { lines: list, top: window.top };

  const activeRow = rows[active];
  const description =
    activeRow?.kind === 'option'
      ? (shown.options[activeRow.index]!.description ?? '(no description)')
      : '';
  const previewWidth = width - listWidth - 3;
  const preview = description.split('\n').flatMap((line) => wrapPlain(line, previewWidth));
  const count = Math.max(list.length, Math.min(preview.length, budget));
  const joined: string[] = [];
  for (let index = 0; index < count; index++) {
    const left = list[index] ?? '';
    const padded = left + ' '.repeat(Math.max(0, listWidth - visibleWidth(left)));
    joined.push(`${padded}${style.dim(' │ ')}${preview[index] ?? ''}`);
  }
  return { lines: joined, top: window.top };
}

function splitListWidth(question: AskUserQuestion, shown: ShownQuestion, width: number): number {
  const longest = Math.max(
    ...shown.options.map(
      (option, index) =>
        visibleWidth(option.title) +
        (index === shown.approveIndex ? approvesMark(question).length + 1 : 0),
    ),
  );
  return Math.max(24, Math.min(longest + 10, Math.floor(width * 0.45)));
}

function renderRow(
  view: AskPageState,
  question: AskUserQuestion,
  draft: Readonly<QuestionDraft>,
  row: QuestionRow,
  active: boolean,
  width: number,
  withDescription: boolean,
): string[] {
  const pointer = active ? style.accent('❯ ') : '  ';
  if (row.kind === 'skip') {
    const text = draft.answer === null ? '⤼ Skip this question (skipped)' : '⤼ Skip this question';
    return hang(pointer, active ? style.bold(text) : style.dim(text), width);
  }
  if (row.kind === 'edit-input') {
    const label = '✎ Approve with edited input (JSON)';
    return [truncateToWidth(pointer + (active ? style.bold(label) : label), width, '…')];
  }
  if (row.kind === 'freeform') {
    // One line: the whole text is in the editor, one enter away.
    const typed =
      draft.answer?.kind === 'freeform'
        ? draft.answer.text
        : view.editorText(view.page, 'freeform');
    const label = active ? style.bold('✎ Type your own answer') : '✎ Type your own answer';
    if (typed.trim() === '') return [truncateToWidth(pointer + label, width, '…')];
    const kept = draft.answer?.kind === 'freeform' ? '' : style.dim(' (draft)');
    return [oneLine(`${pointer}${label}${kept}: `, toLiteralText(typed), width)];
  }
  const shown = showQuestion(question);
  const option = shown.options[row.index]!;
  const picked = question.allowMultiple
    ? draft.picked.includes(row.index)
      ? style.good('[x] ')
      : '[ ] '
    : '';
  const chosen =
    draft.answer?.kind === 'selection' &&
    draft.answer.selections.includes(question.options[row.index]!.title) &&
    !question.allowMultiple
      ? style.good(' ✔')
      : '';
  const approves = row.index === shown.approveIndex;
  let title = active ? style.bold(option.title) : option.title;
  if (approves) title = `${style.good(title)} ${style.good(approvesMark(question))}`;
  const prefix = `${pointer}${picked}${row.index + 1}. `;
  const lines = hang(prefix, title + chosen, width);
  if (withDescription && option.description !== undefined) {
    const indent = ' '.repeat(visibleWidth(prefix));
    for (const line of option.description.split('\n')) {
      for (const part of wrapPlain(line, Math.max(1, width - indent.length))) {
        lines.push(indent + style.dim(part));
      }
    }
  }
  return lines;
}

/** The title above an open editor, by what it edits. */
const EDITOR_TITLES = {
  freeform: 'Your answer',
  comment: 'Comment',
  input: 'Input of the tool (JSON; checked against its schema)',
} as const;

function approvesMark(question: AskUserQuestion): string {
  return APPROVES[question.intent?.kind ?? 'plan-review'];
}

function renderFooter(
  view: AskPageState,
  question: AskUserQuestion,
  draft: Readonly<QuestionDraft>,
  width: number,
  status: string | undefined,
): string[] {
  const prefs = view.preferences;
  const hints: string[] = [];
  const escHint = escapeHint(view);
  if (draft.editing === 'comment') {
    hints.push('enter or esc keep the comment', 'alt+enter new line');
  } else if (draft.editing === 'freeform') {
    hints.push('enter answer', 'alt+enter new line', escHint);
  } else if (draft.editing === 'input') {
    hints.push('enter approve with this input', 'alt+enter new line', escHint);
  } else {
    if (view.rows().length > 1) hints.push('↑↓ move');
    if (question.allowMultiple && draft.query !== '') {
      hints.push('space types', 'enter pick/unpick', escHint);
    } else if (question.allowMultiple) {
      hints.push('space pick', 'enter confirm');
    } else {
      hints.push('enter choose');
      if (draft.query !== '') hints.push(escHint);
    }
  }
  if (view.isWizard) hints.push('tab/shift+tab questions');
  if (
    draft.editing === null &&
    prefs.commentToggleKey !== null &&
    question.allowComment &&
    question.options.length > 0
  ) {
    hints.push(`${prefs.commentToggleKey} comment`);
  }
  if (prefs.displayMode === 'overlay' && prefs.overlayToggleKey !== null) {
    hints.push(`${prefs.overlayToggleKey} hide`);
  }
  if (!hints.includes(escHint) && draft.editing !== 'comment') hints.push(escHint);
  return footerLines(view, hints, width, status);
}

/** The footer's word for what esc does now, read from the step the view takes. */
function escapeHint(view: AskPageState): string {
  switch (view.escapeStep()) {
    case 'close-editor':
      return 'esc back (text kept)';
    case 'clear-search':
      return 'esc clear search';
    case 'cancel':
      return view.confirmingCancel ? 'esc again: cancel' : 'esc cancel';
  }
}

function footerLines(
  view: AskPageState,
  hints: string[],
  width: number,
  status: string | undefined,
): string[] {
  const lines = wrap(style.dim(hints.join(' · ')), width);
  if (status !== undefined) lines.unshift(style.warn(truncateToWidth(`⏱ ${status}`, width)));
  // Who else decides (a quorum ask): names as given, shown literally.
  const standing = view.standing.flatMap((line) => wrap(style.dim(toLiteralText(line)), width));
  return [...standing, ...lines];
}

function wrap(text: string, width: number): string[] {
  return wrapTextWithAnsi(text, Math.max(1, width)).map((line) => truncateToWidth(line, width));
}

function wrapPlain(text: string, width: number): string[] {
  if (text === '') return [''];
  return wrapTextWithAnsi(text, Math.max(1, width));
}
