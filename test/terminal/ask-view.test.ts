import { TUI, visibleWidth } from '@mariozechner/pi-tui';
import { describe, expect, it, vi } from 'vitest';
import type { ProviderOutcome } from '../../src/contracts/outcome.js';
import type { AskUserQuestion } from '../../src/contracts/question.js';
import { AskView } from '../../src/terminal/ask-view.js';
import {
  DEFAULT_TERMINAL_PREFERENCES,
  type TerminalPreferences,
} from '../../src/terminal/preferences.js';
import { renderQuestionPage } from '../../src/terminal/render-page.js';
import { FakeTerminal, KEY, plain } from './fake-terminal.js';

function question(overrides: Partial<AskUserQuestion> = {}): AskUserQuestion {
  return {
    id: 'q1',
    header: 'DB',
    question: 'Which database?',
    options: [
      { title: 'PostgreSQL', description: 'A server.' },
      { title: 'SQLite', description: 'One file.' },
      { title: 'DuckDB', description: 'Columnar analytics.' },
    ],
    allowMultiple: false,
    allowFreeform: false,
    allowComment: false,
    ...overrides,
  };
}

function setUp(
  questions: AskUserQuestion[],
  preferences: Partial<TerminalPreferences> = {},
  height = 30,
) {
  const tui = new TUI(new FakeTerminal(100, height));
  const outcomes: ProviderOutcome[] = [];
  const progress: unknown[] = [];
  const onInterrupt = vi.fn();
  const view = new AskView(tui, {
    questions,
    preferences: { ...DEFAULT_TERMINAL_PREFERENCES, ...preferences },
    getHeight: () => height - 3,
    onFinish: (outcome) => outcomes.push(outcome),
    onInterrupt,
    onProgress: (answers) => progress.push(answers),
  });
  view.focused = true;
  const press = (...keys: string[]) => {
    for (const key of keys) view.handleInput(key);
  };
  const screen = (width = 100) => view.render(width).map(plain).join('\n');
  return { view, outcomes, progress, onInterrupt, press, screen };
}

describe('AskView', () => {
  it('picks the option the search leaves highlighted', () => {
    const { press, outcomes, screen } = setUp([question()]);
    press('s', 'q', 'l');
    expect(screen()).toContain('Search: sql');
    expect(screen()).not.toContain('DuckDB');
    press(KEY.enter);
    expect(outcomes).toEqual([
      {
        status: 'answered',
        answers: [
          { questionId: 'q1', response: { kind: 'selection', selections: ['PostgreSQL'] } },
        ],
      },
    ]);
  });

  it('searches descriptions too, and backspace widens the search again', () => {
    const { press, screen } = setUp([question()]);
    press('c', 'o', 'l', 'u', 'm');
    expect(screen()).toMatch(/❯ 3\. DuckDB/);
    press(KEY.backspace, KEY.backspace, KEY.backspace, KEY.backspace, KEY.backspace);
    expect(screen()).toContain('1. PostgreSQL');
  });

  it('previews the highlighted description in a split pane on wide terminals, not in list layout', () => {
    const wide = setUp([question()]);
    wide.press(KEY.down);
    expect(wide.screen(120)).toMatch(/❯ 2\. SQLite/);
    expect(wide.screen(120)).toMatch(/1\. PostgreSQL\s+│ One file\./);
    const narrow = setUp([question()]);
    expect(narrow.screen(80)).toMatch(/1\. PostgreSQL\n\s+A server\./);
    const list = setUp([question()], { singleSelectLayout: 'list' });
    expect(list.screen(120)).toMatch(/1\. PostgreSQL\n\s+A server\./);
  });

  it('refuses to confirm a multi-select with nothing picked; space picks; a comment rides along', () => {
    const { press, outcomes, screen } = setUp([
      question({ allowMultiple: true, allowComment: true }),
    ]);
    press(KEY.enter);
    expect(outcomes).toEqual([]);
    expect(screen()).toContain('Nothing picked yet');
    press(KEY.space, KEY.down, KEY.down, KEY.space, KEY.ctrlG);
    expect(screen()).toContain('enter or esc keep the comment');
    press('o', 'k', KEY.enter);
    expect(screen()).toContain('Comment: ok');
    press(KEY.enter);
    expect(outcomes[0]).toEqual({
      status: 'answered',
      answers: [
        {
          questionId: 'q1',
          response: { kind: 'selection', selections: ['PostgreSQL', 'DuckDB'], comment: 'ok' },
        },
      ],
    });
  });

  it('does not open the comment editor when comments are off or the shortcut is disabled', () => {
    const off = setUp([question({ allowComment: false })]);
    off.press(KEY.ctrlG);
    expect(off.screen()).not.toContain('keep the comment');
    const disabled = setUp([question({ allowComment: true })], { commentToggleKey: null });
    disabled.press(KEY.ctrlG);
    expect(disabled.screen()).not.toContain('keep the comment');
  });

  it('takes a multi-line typed answer with wide characters', () => {
    const { press, outcomes } = setUp([question({ options: [], allowFreeform: true })]);
    press('日', '本', ' ', '😀', KEY.altEnter, 'x', KEY.enter);
    expect(outcomes[0]).toEqual({
      status: 'answered',
      answers: [{ questionId: 'q1', response: { kind: 'freeform', text: '日本 😀\nx' } }],
    });
  });

  it('keeps lines within the width with wide characters and long titles', () => {
    const title = '漢字'.repeat(40);
    const { view } = setUp([question({ options: [{ title, description: '😀'.repeat(90) }] })]);
    for (const width of [20, 41, 80, 120]) {
      for (const line of view.render(width)) expect(visibleWidth(line)).toBeLessThanOrEqual(width);
    }
  });

  it('keeps the active row visible within the height in a 64-option multi-select', () => {
    const options = Array.from({ length: 64 }, (_, index) => ({
      title: `Option ${index + 1}${index % 4 === 0 ? ' with a long title that wraps onto a second line for sure' : ''}`,
    }));
    const { press, view } = setUp([question({ options, allowMultiple: true })], {}, 20);
    for (let step = 0; step < 63; step++) {
      press(KEY.down);
      const lines = view.render(60).map(plain);
      expect(lines.length).toBeLessThanOrEqual(17);
      expect(lines.some((line) => line.startsWith(`❯ [ ] ${step + 2}. Option ${step + 2}`))).toBe(
        true,
      );
    }
  });

  it('walks a wizard: marks, explicit skip, free navigation, review, then submit', () => {
    const questions = [
      question({ id: 'q1', header: 'One' }),
      question({ id: 'q2', header: 'Two' }),
      question({ id: 'q3', header: 'Three', options: [], allowFreeform: true }),
    ];
    const { press, outcomes, progress, screen, view } = setUp(questions);
    expect(screen()).toMatch(/○ One .*○ Two .*○ Three .*Review/);
    press(KEY.enter);
    expect(screen()).toMatch(/✔ One/);
    press(KEY.down, KEY.down, KEY.down, KEY.enter); // the skip row
    expect(screen()).toMatch(/– Two/);
    expect(view.page).toBe(2);
    press(KEY.tab);
    expect(screen()).toContain('Review your answers');
    press(KEY.enter);
    expect(screen()).toContain('Answer or skip Three before submitting.');
    expect(outcomes).toEqual([]);
    press(KEY.shiftTab, 'd', 'o', 'n', 'e', KEY.enter);
    expect(screen()).toMatch(/→ PostgreSQL[\s\S]*→ skipped[\s\S]*→ done/);
    press(KEY.enter);
    expect(outcomes[0]).toEqual({
      status: 'answered',
      answers: [
        { questionId: 'q1', response: { kind: 'selection', selections: ['PostgreSQL'] } },
        { questionId: 'q2', response: null },
        { questionId: 'q3', response: { kind: 'freeform', text: 'done' } },
      ],
    });
    expect(progress.length).toBeGreaterThanOrEqual(3);
  });

  it('will not submit a wizard where every question is skipped', () => {
    const { press, outcomes, screen } = setUp([question({ id: 'q1' }), question({ id: 'q2' })]);
    press(KEY.up, KEY.enter, KEY.up, KEY.enter);
    expect(screen()).toContain('Review your answers');
    press(KEY.enter);
    expect(outcomes).toEqual([]);
    expect(screen()).toContain('answer at least one');
  });

  it('collapses long context and toggles it with ctrl+e', () => {
    const context = Array.from({ length: 10 }, (_, index) => `line ${index + 1}`).join('\n');
    const { press, screen } = setUp([question({ context })]);
    expect(screen()).toContain('… 7 more lines · ctrl+e expands');
    expect(screen()).not.toContain('line 10');
    press(KEY.ctrlE);
    expect(screen()).toContain('line 10');
    press(KEY.ctrlE);
    expect(screen()).not.toContain('line 10');
  });

  it('shows a plan under review and marks the approving option', () => {
    const { screen } = setUp([
      question({
        context: 'Step 1\nStep 2',
        options: [{ title: 'Approve' }, { title: 'Revise' }],
        intent: { kind: 'plan-review', approve: 'approve' },
      }),
    ]);
    expect(screen()).toContain('Plan under review');
    expect(screen()).toContain('1. Approve ← approves the plan');
    expect(screen()).not.toContain('2. Revise ←');
  });

  it('shows escape sequences in model text literally', () => {
    const { view } = setUp([question({ question: 'Hi \x1b[31mred\x1b]0;title\x07' })]);
    const raw = view.render(100).join('\n');
    expect(raw).toContain('Hi \\x1b[31mred\\x1b]0;title\\x07');
    expect(raw).not.toContain('\x1b]0;');
  });

  it('cancels on esc, and leaves ctrl+c to the host', () => {
    const { press, outcomes, onInterrupt } = setUp([question()]);
    press(KEY.ctrlC);
    expect(onInterrupt).toHaveBeenCalledOnce();
    expect(outcomes).toEqual([]);
    press(KEY.escape);
    expect(outcomes).toEqual([{ status: 'cancelled', reason: 'user' }]);
  });

  it('closes an open editor with esc before esc cancels, as the footer says', () => {
    const { press, outcomes, screen } = setUp([question({ allowFreeform: true })]);
    press(KEY.up, KEY.enter);
    expect(screen()).toContain('esc back (text kept)');
    press(KEY.escape);
    expect(outcomes).toEqual([]);
    expect(screen()).not.toContain('enter answer');
    expect(screen()).toMatch(/enter choose · esc cancel$/);
    press(KEY.escape);
    expect(outcomes).toEqual([{ status: 'cancelled', reason: 'user' }]);
  });

  it('says esc cancel on a typed-only question, and asks before esc discards typed text', () => {
    const { press, outcomes, screen } = setUp([question({ options: [], allowFreeform: true })]);
    expect(screen()).toContain('esc cancel');
    expect(screen()).not.toContain('esc back');
    press('d', 'r', 'a', 'f', 't', KEY.escape);
    expect(outcomes).toEqual([]);
    expect(screen()).toContain('Esc again cancels the ask and discards what you entered');
    expect(screen()).toContain('esc again: cancel');
    press('!', KEY.escape);
    expect(outcomes).toEqual([]);
    press(KEY.escape);
    expect(outcomes).toEqual([{ status: 'cancelled', reason: 'user' }]);
  });

  it('keeps the comment in the answer when esc closes the comment editor', () => {
    const { press, outcomes, screen } = setUp([question({ allowComment: true })]);
    press(KEY.ctrlG, 'n', 'o', 't', 'e', KEY.escape);
    expect(screen()).toContain('Comment: note');
    press(KEY.enter);
    expect(outcomes[0]).toEqual({
      status: 'answered',
      answers: [
        {
          questionId: 'q1',
          response: { kind: 'selection', selections: ['PostgreSQL'], comment: 'note' },
        },
      ],
    });
  });

  it('shows one hint line while a comment is edited', () => {
    const { press, view } = setUp([question({ allowComment: true })]);
    press(KEY.ctrlG);
    const lines = view.render(100).map(plain);
    expect(lines.filter((line) => /enter|esc/.test(line))).toEqual([
      'enter or esc keep the comment · alt+enter new line',
    ]);
  });

  it('searches a multi-select with spaces: enter picks the match, esc clears and keeps the row', () => {
    const options = ['Unit tests', 'Integration tests', 'End to end', 'Lint'].map((title) => ({
      title,
    }));
    const { press, outcomes, screen } = setUp([question({ options, allowMultiple: true })]);
    press('e', 'n', 'd', ' ', 't');
    expect(screen()).toContain('Search: end t');
    expect(screen()).toContain('space types · enter pick/unpick · esc clear search');
    expect(screen()).toMatch(/❯ \[ \] 3\. End to end/);
    press(KEY.enter);
    expect(outcomes).toEqual([]);
    expect(screen()).toMatch(/❯ \[x\] 3\. End to end/);
    press(KEY.escape);
    expect(screen()).toContain('Search: type to search');
    expect(screen()).toMatch(/❯ \[x\] 3\. End to end/);
    press(KEY.up, KEY.space, KEY.enter);
    expect(outcomes[0]).toEqual({
      status: 'answered',
      answers: [
        {
          questionId: 'q1',
          response: { kind: 'selection', selections: ['Integration tests', 'End to end'] },
        },
      ],
    });
  });

  it('keeps the highlighted option when the search is cleared', () => {
    const { press, screen } = setUp([question()]);
    press('d', 'u', 'c', 'k');
    expect(screen()).toMatch(/❯ 3\. DuckDB/);
    press(KEY.backspace, KEY.backspace, KEY.backspace, KEY.backspace);
    expect(screen()).toContain('1. PostgreSQL');
    expect(screen()).toMatch(/❯ 3\. DuckDB/);
  });

  it('hints ctrl+e only when part of the context is hidden', () => {
    const short = setUp([question({ context: 'line 1\nline 2' })]);
    expect(short.screen()).not.toContain('ctrl+e');
    const long = setUp([question({ context: 'a\nb\nc\nd\ne\nf' })]);
    expect(long.screen()).toContain('ctrl+e expands');
  });

  it('hints ↑↓ move on a wizard page that can only be typed or skipped', () => {
    const { press, screen } = setUp([
      question({ id: 'q1', options: [], allowFreeform: true }),
      question({ id: 'q2' }),
    ]);
    expect(screen()).toContain('esc back (text kept)');
    press(KEY.escape);
    expect(screen()).toContain('⤼ Skip this question');
    expect(screen()).toContain('↑↓ move');
  });

  it('shows a multi-line typed answer on one line with … in the list, and whole on the review page', () => {
    const { press, screen } = setUp(
      [question({ id: 'q1', allowFreeform: true }), question({ id: 'q2', header: 'Two' })],
      {},
      16,
    );
    press(KEY.up, KEY.up, KEY.enter, 'o', 'n', 'e', KEY.altEnter, 't', 'w', 'o', KEY.enter);
    press(KEY.shiftTab);
    expect(screen(80)).toContain('✎ Type your own answer: one …');
    expect(screen(80)).not.toMatch(/^two/m);
    press(KEY.shiftTab);
    expect(screen()).toContain('Review your answers');
    expect(screen()).toContain('    → one\n      two');
  });

  it('scrolls a review taller than the terminal with ↑↓, every line reachable', () => {
    const text = Array.from({ length: 30 }, (_, index) => `answer line ${index + 1}`).join('\n');
    const { press, screen, view } = setUp(
      [
        question({ id: 'q1', options: [], allowFreeform: true }),
        question({ id: 'q2', header: 'Two' }),
      ],
      {},
      20,
    );
    for (const character of text) press(character === '\n' ? KEY.altEnter : character);
    press(KEY.enter, KEY.enter);
    expect(screen()).toContain('Review your answers');
    expect(view.render(100).length).toBeLessThanOrEqual(17);
    expect(screen()).toContain('↑↓ scroll');
    expect(screen()).toMatch(/↓ \d+ more lines/);
    const seen = new Set<string>();
    for (let step = 0; step < 40; step++) {
      for (const match of screen().matchAll(/answer line \d+/g)) seen.add(match[0]);
      press(KEY.down);
    }
    expect(seen.size).toBe(30);
    expect(screen()).toMatch(/↑ \d+ more lines/);
  });

  it('renders from a read-only view: the page renderer changes no state', () => {
    const options = Array.from({ length: 64 }, (_, index) => ({ title: `Option ${index + 1}` }));
    const { press, view } = setUp([question({ options, allowMultiple: true })], {}, 12);
    for (let step = 0; step < 40; step++) press(KEY.down);
    // Writing to a frozen draft throws (modules are strict): the renderer must only read.
    for (const draft of view.drafts) Object.freeze(draft);
    const page = renderQuestionPage(view, 80, 9, undefined);
    expect(page.lines.map(plain).some((line) => line.startsWith('❯ [ ] 41. Option 41'))).toBe(true);
    expect(page.top).toBeGreaterThan(0);
  });
});
