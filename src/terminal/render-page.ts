/** Draws a question page or a wizard's review page as lines no wider than the given width. */
import { truncateToWidth, visibleWidth, wrapTextWithAnsi } from '@mariozechner/pi-tui';
import type { AskUserQuestion } from '../contracts/question.js';
import { describeResponse, type QuestionDraft, type QuestionRow } from './ask-draft.js';
import type { AskView } from './ask-view.js';
import { toLiteralText } from './literal-text.js';
import { type ShownQuestion, showQuestion } from './shown-question.js';
import { style } from './style.js';
import { fitViewport } from './viewport.js';

/** Context longer than this many lines starts collapsed, so the choices stay on screen. */
export const CONTEXT_PREVIEW_LINES = 4;
/** Below this width a single-select question never splits into list and preview panes. */
export const SPLIT_PANE_MIN_WIDTH = 100;

const APPROVES = '← approves the plan';
const MARK = { answered: '✔', skipped: '–', open: '○' } as const;

/**
 * @example
 * renderQuestionPage(view, 80, 24, '29s left') // => ['Q1  Which database?', ...]
 */
export function renderQuestionPage(
  view: AskView,
  width: number,
  height: number,
  status: string | undefined,
): string[] {
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
    bottom.push(...wrap(`${style.dim('Comment:')} ${toLiteralText(draft.comment)}`, width));
  }
  const editor = view.openEditor();
  if (editor !== undefined) {
    bottom.push(
      style.dim(
        truncateToWidth(
          draft.editing === 'comment'
            ? 'Comment · enter saves · alt+enter new line · esc back'
            : 'Your answer · enter saves · alt+enter new line · esc back',
          width,
        ),
      ),
      ...editor.render(width),
    );
  }
  if (draft.notice !== undefined) bottom.push(...wrap(style.warn(draft.notice), width));
  bottom.push(...renderFooter(view, question, draft, width, status));

  const rows = view.rows();
  draft.active = Math.min(draft.active, Math.max(0, rows.length - 1));
  const budget = Math.max(3, height - top.length - bottom.length);
  const middle =
    question.options.length === 0 && draft.editing !== null
      ? []
      : renderRows(view, question, draft, rows, width, budget);
  return [...top, ...middle, ...bottom];
}

/**
 * @example
 * renderReviewPage(view, 80, undefined) // => ['✔ Scope  ○ Tests  ✔ Review', '', 'Review your answers', ...]
 */
export function renderReviewPage(
  view: AskView,
  width: number,
  status: string | undefined,
): string[] {
  const lines = [...renderTabBar(view, width), '', style.bold('Review your answers')];
  view.questions.forEach((question, index) => {
    const shown = showQuestion(question);
    const answer = view.drafts[index]!.answer;
    const mark = markOf(answer);
    lines.push(...wrap(`${mark} ${style.accent(shown.header)}  ${shown.question}`, width));
    const text = toLiteralText(describeResponse(answer));
    const shownAnswer =
      answer === undefined ? style.warn(text) : answer === null ? style.dim(text) : text;
    lines.push(...wrap(`    → ${shownAnswer}`, width));
  });
  lines.push('');
  if (view.reviewNotice !== undefined) lines.push(...wrap(style.warn(view.reviewNotice), width));
  const hints = [
    'enter submit',
    `1-${view.questions.length}/tab/shift+tab go to a question`,
    'esc cancel',
  ];
  lines.push(...footerLines(hints, width, status));
  return lines;
}

function renderTabBar(view: AskView, width: number): string[] {
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

function renderSearch(draft: QuestionDraft, question: AskUserQuestion, width: number): string {
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
  view: AskView,
  question: AskUserQuestion,
  draft: QuestionDraft,
  rows: QuestionRow[],
  width: number,
  budget: number,
): string[] {
  const shown = showQuestion(question);
  const split =
    !question.allowMultiple &&
    view.preferences.singleSelectLayout === 'auto' &&
    width >= SPLIT_PANE_MIN_WIDTH &&
    shown.options.some((option) => option.description !== undefined);
  const listWidth = split ? splitListWidth(shown, width) : width;
  const blocks = rows.map((row, index) =>
    renderRow(question, draft, row, index === draft.active, listWidth, !split),
  );
  const noMatch = draft.query !== '' && !rows.some((row) => row.kind === 'option');
  const window = fitViewport(
    blocks.map((block) => block.length),
    draft.active,
    draft.top,
    budget - (noMatch ? 1 : 0),
  );
  draft.top = window.top;
  const list: string[] = [];
  if (noMatch) list.push(style.dim(`  No option matches "${toLiteralText(draft.query)}"`));
  if (window.above > 0) list.push(style.dim(`  ↑ ${window.above} more`));
  for (let index = window.top; index < window.end; index++) list.push(...blocks[index]!);
  if (window.below > 0) list.push(style.dim(`  ↓ ${window.below} more`));
  if (!split) return list;

  const activeRow = rows[draft.active];
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
  return joined;
}

function splitListWidth(shown: ShownQuestion, width: number): number {
  const longest = Math.max(
    ...shown.options.map(
      (option, index) =>
        visibleWidth(option.title) + (index === shown.approveIndex ? APPROVES.length + 1 : 0),
    ),
  );
  return Math.max(24, Math.min(longest + 10, Math.floor(width * 0.45)));
}

function renderRow(
  question: AskUserQuestion,
  draft: QuestionDraft,
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
  if (row.kind === 'freeform') {
    const typed = draft.answer?.kind === 'freeform' ? `: ${toLiteralText(draft.answer.text)}` : '';
    const text = `✎ Type your own answer${typed}`;
    return hang(pointer, active ? style.bold(text) : text, width);
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
  if (approves) title = `${style.good(title)} ${style.good(APPROVES)}`;
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

/** Wraps `text` after `prefix`, indenting continuation lines under the text. */
function hang(prefix: string, text: string, width: number): string[] {
  const indent = visibleWidth(prefix);
  const parts = wrapTextWithAnsi(text, Math.max(1, width - indent));
  return parts.map((part, index) =>
    truncateToWidth((index === 0 ? prefix : ' '.repeat(indent)) + part, width),
  );
}

function renderFooter(
  view: AskView,
  question: AskUserQuestion,
  draft: QuestionDraft,
  width: number,
  status: string | undefined,
): string[] {
  const prefs = view.preferences;
  const hints: string[] = [];
  if (draft.editing === null) {
    if (question.options.length > 0) hints.push('↑↓ move');
    if (question.allowMultiple) hints.push('space pick', 'enter confirm');
    else hints.push('enter choose');
  }
  if (view.isWizard) hints.push('tab/shift+tab questions');
  if (prefs.commentToggleKey !== null && question.allowComment && question.options.length > 0) {
    hints.push(`${prefs.commentToggleKey} comment`);
  }
  const shown = showQuestion(question);
  if (shown.context?.includes('\n')) hints.push('ctrl+e context');
  if (prefs.displayMode === 'overlay' && prefs.overlayToggleKey !== null) {
    hints.push(`${prefs.overlayToggleKey} hide`);
  }
  hints.push(draft.editing === null ? 'esc cancel' : 'esc back');
  return footerLines(hints, width, status);
}

function footerLines(hints: string[], width: number, status: string | undefined): string[] {
  const lines = wrap(style.dim(hints.join(' · ')), width);
  if (status !== undefined) lines.unshift(style.warn(truncateToWidth(`⏱ ${status}`, width)));
  return lines;
}

function wrap(text: string, width: number): string[] {
  return wrapTextWithAnsi(text, Math.max(1, width)).map((line) => truncateToWidth(line, width));
}

function wrapPlain(text: string, width: number): string[] {
  if (text === '') return [''];
  return wrapTextWithAnsi(text, Math.max(1, width));
}
