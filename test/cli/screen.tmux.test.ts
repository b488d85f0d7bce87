/** The screen around an ask, in a real terminal: history above it, output after it, resizes. */
import { afterAll, describe, expect, it } from 'vitest';
import { hasTmux, killServer, TmuxCli } from './tmux-session.js';

const databases = {
  question: 'Which database?',
  header: 'DB',
  options: [
    { title: 'PostgreSQL', description: 'A server; the safe default for teams.' },
    { title: 'SQLite', description: 'One file next to the app; zero setup.' },
  ],
};

const HISTORY = 'for i in $(seq 1 100); do echo "history line $i"; done';

// The tests run concurrently, each in its own tmux session; all are ended after the file.
const sessions: TmuxCli[] = [];
function run(...args: ConstructorParameters<typeof TmuxCli>): TmuxCli {
  const cli = new TmuxCli(...args);
  sessions.push(cli);
  return cli;
}

function count(text: string, needle: string | RegExp): number {
  return text
    .split('\n')
    .filter((line) => (typeof needle === 'string' ? line.includes(needle) : needle.test(line)))
    .length;
}

/**
 * Waits until the ask is drawn for `width` columns, whole and once: the labelled top line and
 * the bottom separator at that width, and no other separator rows (the terminal's re-wrap of
 * the old frame looks like a frame too, so waiting for the top line alone is not enough).
 */
async function waitForFrame(cli: TmuxCli, width: number): Promise<string> {
  const until = Date.now() + 15_000;
  let all = '';
  while (Date.now() < until) {
    all = cli.history();
    const top = new RegExp(`^── ask_user ─{${width - 12}}$`);
    const bottom = new RegExp(`^─{${width}}$`);
    if (count(all, top) === 1 && count(all, bottom) === 1 && count(all, /^─+$/) === 1) return all;
    await new Promise((resolve) => setTimeout(resolve, 40));
  }
  throw new Error(`No clean ${width}-column frame; the terminal held:\n${all}`);
}

/** Every `history line N`, 1 to 100, exactly once and in order. */
function expectWholeHistory(text: string): void {
  const numbers = [...text.matchAll(/^history line (\d+)$/gm)].map((match) => Number(match[1]));
  expect(numbers).toEqual(Array.from({ length: 100 }, (_, index) => index + 1));
}

describe.skipIf(!hasTmux())('the screen around an ask in tmux', { concurrent: true }, () => {
  afterAll(() => {
    for (const cli of sessions) cli.kill();
    killServer();
  });

  it('keeps the 100 lines above the ask through two resizes, and only its summary after', async () => {
    // The process's own stdin and stdout are the terminal here.
    const cli = run({
      input: databases,
      inputAsArgument: true,
      stdoutOnTerminal: true,
      before: HISTORY,
      width: 100,
      height: 30,
    });
    await cli.waitFor('Which database?');
    cli.resize(70, 20);
    await waitForFrame(cli, 70);
    cli.resize(110, 34);
    await waitForFrame(cli, 110);
    // One frame on screen and in the history: the resizes redrew it in place.
    let all = cli.history();
    expect(count(all, 'Which database?')).toBe(1);
    expect(count(all, /^── ask_user/)).toBe(1);
    expectWholeHistory(all);
    cli.keys('Down', 'Enter');
    const { code } = await cli.result();
    expect(code).toBe(0);
    all = cli.history();
    expectWholeHistory(all);
    expect(all).toMatch(
      /history line 100\n✔ ask_user answered\n {2}DB: SQLite\n\{"askId":"[^"]+","status":"answered"/,
    );
    expect(count(all, 'Which database?')).toBe(0);
  });

  it('redraws in place when stdout and stdin are redirected and the terminal is resized', async () => {
    // stdin from a file, stdout to a file: the UI is on /dev/tty, which Node never resizes.
    const cli = run({ input: databases, before: HISTORY, width: 100, height: 30 });
    await cli.waitFor('Which database?');
    cli.resize(60, 24);
    await waitForFrame(cli, 60);
    cli.resize(90, 28);
    await waitForFrame(cli, 90);
    cli.keys('Down');
    await cli.waitFor('❯ 2. SQLite');
    const all = cli.history();
    expect(count(all, /^── ask_user/)).toBe(1);
    expect(count(all, 'Which database?')).toBe(1);
    expect(count(all, /1\. PostgreSQL/)).toBe(1);
    expect(count(all, /^─{90}$/)).toBe(1);
    expectWholeHistory(all);
    cli.keys('Enter');
    expect((await cli.result()).code).toBe(0);
  });

  // The timeout leaves the question on screen long enough to be seen by a starved poller (a
  // loaded machine); ctrl+c is sent as soon as it shows, so its timeout never comes.
  it.each([
    ['a timeout', '3s', [] as string[], 3, /^✖ ask_user timed out after [34]s$/m],
    ['ctrl+c', '60s', ['C-c'], 130, /^✖ ask_user aborted: interrupted by SIGINT$/m],
  ])(
    'leaves what is printed after %s on screen, below a plain closing line',
    async (_, timeout, keys, exitCode, closing) => {
      const cli = run({
        input: databases,
        args: ['--timeout', timeout],
        before: 'echo before-the-ask',
        stdoutOnTerminal: true,
      });
      await cli.waitFor('Which database?');
      if (keys.length > 0) cli.keys(...keys);
      const { code } = await cli.result();
      expect(code).toBe(exitCode);
      // Give anything still scheduled a chance to draw (and erase) before looking.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const screen = cli.screen();
      expect(screen).toMatch(closing);
      const lines = screen.split('\n');
      const at = lines.findIndex((line) => closing.test(line));
      expect(lines[at - 1]).toBe('before-the-ask');
      // The outcome's JSON line, wrapped by the terminal where it is wider than the screen.
      const done = lines.indexOf('DONE-DONE', at);
      expect(done).toBeGreaterThan(at + 1);
      expect(JSON.parse(lines.slice(at + 1, done).join(''))).toMatchObject({
        status: keys.length > 0 ? 'aborted' : 'timedOut',
      });
      expect(screen).not.toContain('Which database?');
    },
  );

  it('indents a multi-line answer and comment in the review, the summary and nowhere leaves debris', async () => {
    const cli = run({
      input: {
        questions: [
          {
            question: 'Which tests?',
            header: 'Tests',
            options: ['Unit', 'E2E'],
            allowMultiple: true,
            allowComment: true,
          },
          { question: 'Release notes?', header: 'Notes' },
        ],
      },
      width: 80,
      height: 30,
    });
    await cli.waitFor('Which tests?');
    cli.keys('Space', 'C-g');
    await cli.waitFor('enter or esc keep the comment');
    cli.type('first comment line');
    cli.keys('M-Enter');
    cli.type('second comment line');
    // Esc keeps the comment, as the hint says.
    cli.keys('Escape');
    let screen = await cli.waitFor('Comment: first comment line …');
    cli.keys('Enter');
    await cli.waitFor('Release notes?');
    cli.type('line one of the notes');
    cli.keys('M-Enter');
    cli.type('line two of the notes');
    cli.keys('Enter');
    screen = await cli.waitFor('Review your answers');
    expect(screen).toContain(
      [
        '    → Unit',
        '      comment: first comment line',
        '               second comment line',
      ].join('\n'),
    );
    expect(screen).toContain(
      ['    → line one of the notes', '      line two of the notes'].join('\n'),
    );
    cli.keys('Enter');
    const { code, stdout } = await cli.result();
    expect(code).toBe(0);
    expect(JSON.parse(stdout).answers).toEqual([
      {
        questionId: 'q1',
        response: {
          kind: 'selection',
          selections: ['Unit'],
          comment: 'first comment line\nsecond comment line',
        },
      },
      {
        questionId: 'q2',
        response: { kind: 'freeform', text: 'line one of the notes\nline two of the notes' },
      },
    ]);
    screen = cli.screen();
    expect(screen).toMatch(
      /✔ ask_user answered\n {2}Tests: Unit\n {4}comment: first comment line\n {13}second comment line\n {2}Notes: line one of the notes\n {9}line two of the notes\nDONE-DONE/,
    );
  });

  it('asks before esc throws away typed text, and the footer says what esc does', async () => {
    const cli = run({ input: { question: 'Commit message?' } });
    await cli.waitFor('Commit message?');
    // The footer is drawn after the question: wait for it, not for half a frame.
    let screen = await cli.waitFor('esc cancel');
    expect(screen).not.toContain('esc back');
    cli.type('fix: limit logins');
    cli.keys('Escape');
    screen = await cli.waitFor('Esc again cancels the ask and discards what you entered');
    // Any other key keeps the text and carries on.
    cli.type('!');
    await cli.waitFor('fix: limit logins!');
    cli.keys('Escape');
    await cli.waitFor('Esc again cancels');
    cli.keys('Escape');
    const { code, stdout } = await cli.result();
    expect(code).toBe(1);
    expect(JSON.parse(stdout)).toEqual({
      askId: expect.any(String),
      status: 'cancelled',
      reason: 'user',
    });
  });

  it('shows hostile headers in the review notice as escapes', async () => {
    const cli = run({
      input: {
        questions: [
          {
            question: 'First?',
            header: 'A\u001b[2J\u001b]8;;http://x\u0007L\u009b\u202eB',
            options: ['x'],
          },
          { question: 'Second?', header: 'Two', options: ['y'] },
        ],
      },
      width: 120,
    });
    await cli.waitFor('First?');
    cli.keys('Tab', 'Tab');
    await cli.waitFor('Review your answers');
    cli.keys('Enter');
    const screen = await cli.waitFor('before submitting');
    expect(screen).toContain(
      'Answer or skip A\\x1b[2J\\x1b]8;;http://x\\x07L\\x9b\\u202eB, Two before submitting.',
    );
    cli.keys('Escape');
    expect((await cli.result()).code).toBe(1);
  });
});
