/**
 * A tool approval in a real terminal (tmux): the page offers approving with an edited input,
 * the editor starts with the proposed input as JSON, an edit the tool's schema refuses is
 * refused in the notice with the ask still open, and a corrected edit approves the call with it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleProgram } from '../support/program-bundle.js';
import { hasTmux, killServer, TmuxCli } from './tmux-session.js';

let program: string;
const sessions: TmuxCli[] = [];

beforeAll(async () => {
  program = await bundleProgram('test/fixtures/tool-approval-terminal.ts');
}, 120_000);

describe.skipIf(!hasTmux())('a tool approval in the terminal', () => {
  afterAll(() => {
    for (const cli of sessions) cli.kill();
    killServer();
  });

  it('approves an edited input typed in the input editor, after refusing one the schema does not accept', async () => {
    const cli = new TmuxCli({ program: [process.execPath, program], width: 100, height: 30 });
    sessions.push(cli);
    await cli.waitFor('Allow the tool "delete_files" to run with this input?');
    await cli.waitFor('✎ Approve with edited input (JSON)');
    await cli.waitFor('1. Approve ← approves the call');
    cli.keys('Down', 'Down', 'Enter');
    await cli.waitFor('Input of the tool (JSON; checked against its schema)');
    const prefilled = await cli.waitFor('"recursive": true');
    expect(prefilled).toContain('"path": "/tmp/build",');
    // Clear the editor (the cursor starts after the text) and type an input the schema refuses.
    const proposed = JSON.stringify({ path: '/tmp/build', recursive: true }, null, 2);
    for (let i = 0; i < proposed.length; i++) cli.keys('BSpace');
    cli.type('{"path": ""}');
    cli.keys('Enter');
    await cli.waitFor(/does not accept: at \/path, expected at\s+least 1\s+characters/);
    for (let i = 0; i < '{"path": ""}'.length; i++) cli.keys('BSpace');
    cli.type('{"path": "/tmp/build/cache"}');
    cli.keys('Enter');
    const { code, stdout } = await cli.result();
    expect(code).toBe(0);
    const decision = JSON.parse(stdout.trim());
    expect(decision).toMatchObject({
      approved: true,
      input: { path: '/tmp/build/cache' },
      edited: { fields: ['path', 'recursive'] },
    });
    expect(decision.edited.from).not.toBe(decision.edited.to);
  }, 60_000);
});
