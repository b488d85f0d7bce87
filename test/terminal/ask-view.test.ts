import { TUI, visibleWidth } from '@mariozechner/pi-tui';
import { describe, expect, it, vi } from 'vitest';
import type { ProviderOutcome } from '../../src/contracts/outcome.js';
import type { AskUserQuestion } from '../../src/contracts/question.js';
import { AskView } from '../../src/terminal/ask-view.js';
import {
  DEFAULT_TERMINAL_PREFERENCES,
  type TerminalPreferences,
} from '../../src/terminal/preferences.js';
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
    expect(screen()).toContain('Comment · enter saves');
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
    expect(off.screen()).not.toContain('Comment ·');
    const disabled = setUp([question({ allowComment: true })], { commentToggleKey: null });
    disabled.press(KEY.ctrlG);
    expect(disabled.screen()).not.toContain('Comment ·');
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

  it('closes an open editor with esc before esc cancels', () => {
    const { press, outcomes, screen } = setUp([question({ allowFreeform: true })]);
    press(KEY.up, KEY.enter);
    expect(screen()).toContain('Your answer · enter saves');
    press(KEY.escape);
    expect(outcomes).toEqual([]);
    expect(screen()).not.toContain('Your answer · enter saves');
    press(KEY.escape);
    expect(outcomes).toEqual([{ status: 'cancelled', reason: 'user' }]);
  });
});
