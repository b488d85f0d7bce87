/** The CLI without a terminal: unavailable outcomes, usage errors, help, the demo run-through. */
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

describe.concurrent('ask-engine without a terminal', () => {
  it('answers cancelled / unavailable at once and exits 1', async () => {
    const result = await runCli(['ask', '{"question":"Deploy?","options":["Yes","No"]}']);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'cancelled', reason: 'unavailable' });
  });

  it('reads the input from stdin with "-" and prints the tool result text with --text', async () => {
    const result = await runCli(['ask', '-', '--text'], { stdin: '{"question":"Name it"}' });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('Nobody could be asked');
    expect(result.stdout).toContain('Nothing was chosen');
  });

  it('exits 2 with a message on stderr for invalid JSON', async () => {
    const result = await runCli(['ask', '{not json']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('not valid JSON');
    expect(result.stdout).toBe('');
  });

  it('exits 2 for input the tool refuses, saying why', async () => {
    const result = await runCli(['ask', '{"questions":[]}']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/ask-engine ask: .+/);
  });

  it('exits 2 for a bad --timeout or preference flag, naming it', async () => {
    const timeout = await runCli(['ask', '{"question":"x"}', '--timeout', 'soon']);
    expect(timeout.code).toBe(2);
    expect(timeout.stderr).toContain('"soon"');
    const flag = await runCli(['ask', '{"question":"x"}', '--ask-user-display-mode', 'popup']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('--ask-user-display-mode');
  });

  it('refuses a preference flag that binds a key the person needs, saying why', async () => {
    const result = await runCli([
      'ask',
      '{"question":"x"}',
      '--ask-user-comment-toggle-key',
      'ctrl+c',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--ask-user-comment-toggle-key: "ctrl+c" is reserved');
  });

  it('writes model text in error messages with C1 and bidi controls escaped', async () => {
    const title = 'A\u009b31m\u202eB\u001b[2J';
    const result = await runCli([
      'ask',
      JSON.stringify({ question: 'x', options: [title, title] }),
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('"A\\x9b31m\\u202eB\\u001b[2J"');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: no raw ESC may reach stderr.
    expect(result.stderr).not.toMatch(/[\u0080-\u009f\u202a-\u202e\u001b]/);
  });

  it('reports a malformed settings file naming the file and the key', async () => {
    const file = join(tmpdir(), `ask-engine-bad-settings-${process.pid}.json`);
    writeFileSync(file, JSON.stringify({ displayMode: 'popup' }));
    try {
      const result = await runCli(['ask', '{"question":"x"}'], {
        env: { ASK_ENGINE_SETTINGS: file },
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(file);
      expect(result.stderr).toContain('"displayMode"');
    } finally {
      rmSync(file, { force: true });
    }
  });

  it('prints help with examples for each command', async () => {
    for (const args of [['--help'], ['ask', '--help'], ['demo', '--help']]) {
      const result = await runCli(args);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('Examples:');
    }
  });

  it('runs the demo through, showing every unavailable outcome and the audit trail', async () => {
    const result = await runCli(['demo']);
    expect(result.code).toBe(0);
    expect(result.stdout.match(/Nobody could be asked/g)).toHaveLength(5);
    expect(result.stdout).toContain('Audit trail');
    expect(
      result.stdout.match(/provider\.cancelled pending → cancelled {2}\(unavailable\)/g),
    ).toHaveLength(5);
  });
});
