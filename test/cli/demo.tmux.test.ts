/** `ask-engine demo` in a real terminal: a person answers all five asks of the scripted agent. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { hasTmux, killServer, TmuxCli } from './tmux-session.js';

let session: TmuxCli | undefined;

describe.skipIf(!hasTmux())('ask-engine demo in tmux', () => {
  afterEach(() => {
    session?.kill();
    session = undefined;
  });
  afterAll(killServer);

  it('asks every kind of question and prints each tool result and the audit trail', async () => {
    const cli = new TmuxCli({ command: 'demo', width: 110, height: 40 });
    session = cli;
    await cli.waitFor('Which rate-limiting strategy');
    cli.type('slid');
    await cli.waitFor('Search: slid');
    cli.keys('Enter');
    await cli.waitFor('Which endpoints should be rate limited?');
    cli.keys('Space', 'Down', 'Space', 'C-g');
    await cli.waitFor('enter or esc keep the comment');
    cli.type('and /api/token');
    cli.keys('Enter');
    await cli.waitFor('Comment: and /api/token');
    cli.keys('Enter');
    await cli.waitFor('What message should a rate-limited client see?');
    cli.type('Too many attempts — 稍后再试');
    cli.keys('Enter');
    await cli.waitFor('○ Store');
    cli.keys('Enter');
    await cli.waitFor('How many login attempts');
    cli.keys('Down', 'Down', 'Down', 'Enter');
    await cli.waitFor('Which tests should I add?');
    cli.keys('Space', 'Enter');
    await cli.waitFor('Review your answers');
    cli.keys('Enter');
    // The plan is written from the answers: the picked strategy, endpoints, store and tests.
    const planScreen = await cli.waitFor('Plan under review');
    expect(planScreen).toContain('a sliding window limiter keyed by client IP');
    expect(planScreen).toContain('Mount it on POST /login, POST /signup');
    expect(planScreen).toContain('the message "Too many attempts — 稍后再试"');
    expect(planScreen).toContain(
      'Keep counters in memory; allow 5 attempts per minute per IP (default: TODO)',
    );
    expect(planScreen).toContain('5. Add unit tests for the window maths.');
    cli.keys('Enter');
    // The harness sends stdout (the agent's transcript) to a file; the screen holds the UI.
    const { code, stdout } = await cli.result(20_000);
    expect(code).toBe(0);
    expect(stdout).toContain('The plan is approved.');
    expect(stdout).toContain('Audit trail');
    expect(stdout.match(/provider\.answered {2}pending → answered/g)).toHaveLength(5);
    expect(stdout).toContain('Selected: "Sliding window"');
    expect(stdout).toContain('Selected: "POST /login", "POST /signup"');
    expect(stdout).toContain('Comment: "and /api/token"');
    expect(stdout).toContain('Typed answer: "Too many attempts — 稍后再试"');
    expect(stdout).toContain('The user answered 2 of 3 questions.');
    expect(stdout).toContain(
      'Skipped: the user gave no answer to this question; nothing was chosen.',
    );
  });

  it('takes the display mode from the settings file over the caller hint', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ask-engine-demo-settings-'));
    try {
      const settings = join(dir, 'settings.json');
      writeFileSync(settings, JSON.stringify({ displayMode: 'overlay', commentToggleKey: 'off' }));
      const cli = new TmuxCli({
        input: { question: 'Pick', options: ['a', 'b'], allowComment: true, displayMode: 'inline' },
        env: { ASK_ENGINE_SETTINGS: settings },
      });
      session = cli;
      const screen = await cli.waitFor('Pick');
      expect(screen).toMatch(/┌─ ask_user/);
      expect(screen).not.toContain('comment');
      cli.keys('Escape');
      expect((await cli.result()).code).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
