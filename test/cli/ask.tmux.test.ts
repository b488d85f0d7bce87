/** `ask-engine ask` in a real terminal: tmux types the keys and reads the screen. */
import { userInfo } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { hasTmux, killServer, TmuxCli } from './tmux-session.js';

const databases = {
  question: 'Which database?',
  header: 'DB',
  options: [
    { title: 'PostgreSQL', description: 'A server; the safe default for teams.' },
    { title: 'SQLite', description: 'One file next to the app; zero setup.' },
    { title: 'DuckDB', description: 'Columnar, for analytics.' },
  ],
};

const wizard = {
  questions: [
    { question: 'Which scope?', header: 'Scope', options: ['Small', 'Large'] },
    { question: 'Which tests?', header: 'Tests', options: ['Unit', 'E2E'], allowMultiple: true },
    { question: 'Anything else?', header: 'Notes' },
  ],
};

// The tests run concurrently, each in its own tmux session; all are ended after the file.
const sessions: TmuxCli[] = [];
function run(...args: ConstructorParameters<typeof TmuxCli>): TmuxCli {
  const cli = new TmuxCli(...args);
  sessions.push(cli);
  return cli;
}

describe.skipIf(!hasTmux())('ask-engine ask in tmux', { concurrent: true }, () => {
  afterAll(() => {
    for (const cli of sessions) cli.kill();
    killServer();
  });

  it('selects a single option by typing to search, with the description in a split pane', async () => {
    const cli = run({ input: databases, width: 120 });
    const screen = await cli.waitFor('Which database?');
    expect(screen).toMatch(/❯ 1\. PostgreSQL\s+│ A server; the safe default for teams\./);
    cli.type('sqlite');
    await cli.waitFor('Search: sqlite');
    cli.keys('Enter');
    const { code, stdout, ttyRestored } = await cli.result();
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({
      askId: expect.any(String),
      status: 'answered',
      answers: [{ questionId: 'q1', response: { kind: 'selection', selections: ['SQLite'] } }],
      // The terminal records who answered: the OS user running it.
      answeredBy: { recipient: userInfo().username, channel: 'terminal' },
    });
    expect(ttyRestored).toBe(true);
  });

  it('lists descriptions under the titles with --ask-user-single-select-layout list', async () => {
    const cli = run({
      input: databases,
      width: 120,
      args: ['--ask-user-single-select-layout', 'list'],
    });
    const screen = await cli.waitFor('Which database?');
    expect(screen).toMatch(/1\. PostgreSQL\n\s+A server; the safe default for teams\./);
    cli.keys('Escape');
    expect((await cli.result()).code).toBe(1);
  });

  it('keeps the active row visible in a 64-option multi-select and adds a comment', async () => {
    const options = Array.from({ length: 64 }, (_, index) => ({
      title:
        index % 8 === 0
          ? `Feature ${index + 1}: a very long title that has to wrap over more than one line of this terminal`
          : `Feature ${index + 1}`,
    }));
    const cli = run({
      input: { question: 'Which features?', options, allowMultiple: true, allowComment: true },
      width: 80,
      height: 24,
    });
    await cli.waitFor('Which features?');
    cli.keys(...Array.from({ length: 40 }, () => 'Down'));
    let screen = await cli.waitFor('❯ [ ] 41. Feature 41');
    expect(screen).toContain('↑');
    expect(screen).toContain('↓');
    cli.keys('Space');
    await cli.waitFor('❯ [x] 41. Feature 41');
    // While searching, space types and enter picks; esc clears the search, keeping the row.
    cli.type('feature 64');
    await cli.waitFor('❯ [ ] 64. Feature 64');
    expect(cli.screen()).toContain('Search: feature 64');
    cli.keys('Enter');
    await cli.waitFor('❯ [x] 64. Feature 64');
    cli.keys('Escape');
    screen = await cli.waitFor('Search: type to search');
    expect(screen).toContain('❯ [x] 64. Feature 64');
    cli.keys('C-g');
    await cli.waitFor('enter or esc keep the comment');
    cli.type('ship 41 first');
    cli.keys('Enter');
    screen = await cli.waitFor('Comment: ship 41 first');
    cli.keys('Enter');
    const { code, stdout } = await cli.result();
    expect(code).toBe(0);
    expect(JSON.parse(stdout).answers[0].response).toEqual({
      kind: 'selection',
      selections: [
        'Feature 41: a very long title that has to wrap over more than one line of this terminal',
        'Feature 64',
      ],
      comment: 'ship 41 first',
    });
  });

  it('takes a multi-line freeform answer with wide characters', async () => {
    const cli = run({ input: { question: 'Name the release' } });
    await cli.waitFor('enter answer · alt+enter new line · esc cancel');
    cli.type('日本語 リリース 🚀');
    cli.keys('M-Enter');
    cli.type('second line');
    await cli.waitFor('second line');
    const screen = cli.screen();
    expect(screen).toContain('日本語 リリース 🚀');
    cli.keys('Enter');
    const { code, stdout } = await cli.result();
    expect(code).toBe(0);
    expect(JSON.parse(stdout).answers[0].response).toEqual({
      kind: 'freeform',
      text: '日本語 リリース 🚀\nsecond line',
    });
  });

  it('walks a wizard with a skip and shows every answer on the review page', async () => {
    const cli = run({ input: wizard });
    let screen = await cli.waitFor('○ Scope');
    expect(screen).toMatch(/○ Scope.*○ Tests.*○ Notes.*Review/);
    cli.keys('Down', 'Enter');
    await cli.waitFor('✔ Scope');
    // Tests: skip it explicitly (rows: Unit, E2E, Skip).
    cli.keys('Down', 'Down', 'Enter');
    await cli.waitFor('– Tests');
    cli.type('ship on Friday');
    cli.keys('Enter');
    screen = await cli.waitFor('Review your answers');
    expect(screen).toMatch(/✔ Scope\s+Which scope\?\n\s+→ Large/);
    expect(screen).toMatch(/– Tests\s+Which tests\?\n\s+→ skipped/);
    expect(screen).toMatch(/✔ Notes\s+Anything else\?\n\s+→ ship on Friday/);
    // Free navigation: back to Scope and forward again keeps the answers.
    cli.keys('1');
    await cli.waitFor('Which scope?');
    cli.keys('BTab');
    await cli.waitFor('Review your answers');
    cli.keys('Enter');
    const { code, stdout } = await cli.result();
    expect(code).toBe(0);
    expect(JSON.parse(stdout).answers).toEqual([
      { questionId: 'q1', response: { kind: 'selection', selections: ['Large'] } },
      { questionId: 'q2', response: null },
      { questionId: 'q3', response: { kind: 'freeform', text: 'ship on Friday' } },
    ]);
  });

  it('hides and shows the overlay with alt+o without losing typed text', async () => {
    const cli = run({
      input: { question: 'Commit message?', header: 'Commit' },
      args: ['--ask-user-display-mode', 'overlay'],
      width: 90,
      height: 20,
    });
    // The whole frame, down to its bottom border: tmux may show the top rows first.
    let screen = await cli.waitFor(/Commit message\?[\s\S]*└─+┘/);
    expect(screen).toMatch(/┌─ ask_user ─+┐/);
    expect(screen).toMatch(/│ Commit\s+Commit message\?\s+│/);
    expect(screen).toMatch(/└─+┘/);
    cli.type('fix: limit logins');
    await cli.waitFor('fix: limit logins');
    cli.keys('M-o');
    screen = await cli.waitFor('ask_user is waiting');
    expect(screen).not.toContain('┌');
    expect(screen).not.toContain('fix: limit logins');
    cli.keys('M-o');
    screen = await cli.waitFor(/┌─ ask_user[\s\S]*fix: limit logins/);
    expect(screen).toContain('fix: limit logins');
    cli.keys('Enter');
    const { stdout } = await cli.result();
    expect(JSON.parse(stdout).answers[0].response).toEqual({
      kind: 'freeform',
      text: 'fix: limit logins',
    });
  });

  it('collapses long context and toggles it with ctrl+e', async () => {
    const context = Array.from({ length: 12 }, (_, index) => `context line ${index + 1}`).join(
      '\n',
    );
    const cli = run({ input: { question: 'Proceed?', context, options: ['Yes', 'No'] } });
    let screen = await cli.waitFor('ctrl+e expands');
    expect(screen).toContain('context line 1');
    expect(screen).not.toContain('context line 12');
    expect(screen).toContain('1. Yes');
    cli.keys('C-e');
    screen = await cli.waitFor('context line 12');
    expect(screen).toContain('ctrl+e collapses');
    cli.keys('C-e');
    screen = await cli.waitFor('ctrl+e expands');
    expect(screen).not.toContain('context line 12');
    cli.keys('Escape');
    await cli.result();
  });

  it('shows a countdown and ends timedOut at the deadline, restoring the terminal', async () => {
    // 3 s: long enough for a poller starved on a loaded machine to see the countdown.
    const cli = run({ input: databases, args: ['--timeout', '3s'] });
    await cli.waitFor(/⏱ [123]s left/);
    const { code, stdout, ttyRestored } = await cli.result();
    expect(code).toBe(3);
    expect(JSON.parse(stdout)).toMatchObject({ status: 'timedOut' });
    expect(ttyRestored).toBe(true);
  });

  it('cancels with esc', async () => {
    const cli = run({ input: databases });
    await cli.waitFor('Which database?');
    cli.keys('Escape');
    const { code, stdout } = await cli.result();
    expect(code).toBe(1);
    expect(JSON.parse(stdout)).toEqual({
      askId: expect.any(String),
      status: 'cancelled',
      reason: 'user',
    });
  });

  it('ends aborted on SIGTERM while pending and restores the terminal', async () => {
    const cli = run({ input: wizard });
    await cli.waitFor('Which scope?');
    cli.type('lar');
    await cli.waitFor('Search: lar');
    process.kill(cli.cliPid(), 'SIGTERM');
    const { code, stdout, ttyRestored } = await cli.result();
    expect(code).toBe(143);
    expect(JSON.parse(stdout)).toMatchObject({
      status: 'aborted',
      message: 'interrupted by SIGTERM',
    });
    expect(ttyRestored).toBe(true);
    expect(cli.screen()).toContain('✖ ask_user aborted: interrupted by SIGTERM');
  });

  it('ends aborted on ctrl+c', async () => {
    const cli = run({ input: databases });
    await cli.waitFor('Which database?');
    cli.keys('C-c');
    const { code, stdout, ttyRestored } = await cli.result();
    expect(code).toBe(130);
    expect(JSON.parse(stdout)).toMatchObject({ status: 'aborted' });
    expect(ttyRestored).toBe(true);
  });

  it('shows hostile model text literally: ANSI and OSC escapes, Markdown and HTML', async () => {
    const cli = run({
      input: {
        question: 'Pick \u001b[31mRED\u001b[0m **bold** <b>html</b> [link](http://x)',
        header: 'H\u001b]0;pwned\u0007',
        context: '\u001b[2J\u001b[Hcleared? `code` <script>alert(1)</script>',
        options: [{ title: 'ok \u001b[5mblink\u009b\u202e', description: '\u202eevil' }],
      },
      width: 120,
    });
    const screen = await cli.waitFor('Pick');
    expect(screen).toContain('Pick \\x1b[31mRED\\x1b[0m **bold** <b>html</b> [link](http://x)');
    expect(screen).toContain('H\\x1b]0;pwned\\x07');
    expect(screen).toContain('\\x1b[2J\\x1b[Hcleared? `code` <script>alert(1)</script>');
    expect(screen).toContain('ok \\x1b[5mblink\\x9b\\u202e');
    expect(screen).toContain('\\u202eevil');
    expect(cli.paneTitle()).not.toContain('pwned');
    cli.keys('Enter');
    // The outcome JSON escapes C1 and bidi controls too: same value, nothing a terminal obeys.
    const { stdout } = await cli.result();
    expect(stdout).not.toMatch(/[\u0080-\u009f\u202a-\u202e]/);
    expect(JSON.parse(stdout).answers[0].response.selections).toEqual([
      'ok \u001b[5mblink\u009b\u202e',
    ]);
  });

  it('shows a plan under review with the approving option marked', async () => {
    const cli = run({
      input: {
        question: 'Implement this plan?',
        context: '1. Add the limiter\n2. Test it',
        options: ['Approve', 'Revise'],
        intent: { kind: 'plan-review', approve: 'Approve' },
      },
    });
    const screen = await cli.waitFor('Plan under review');
    expect(screen).toContain('│ 1. Add the limiter');
    expect(screen).toContain('1. Approve ← approves the plan');
    cli.keys('Enter');
    const { stdout } = await cli.result();
    expect(JSON.parse(stdout).answers[0].response.selections).toEqual(['Approve']);
  });
});
