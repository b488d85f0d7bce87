/** The framework examples are programs a user copies from: they must keep running and saying what they claim. */
import { describe, expect, it } from 'vitest';
import { runExample as example } from '../run-example.js';

describe('framework examples', () => {
  it('ai-sdk asks, then runs only the command the person allowed', async () => {
    const out = await example('ai-sdk.ts');
    expect(out).toContain('[ask_user] The user answered.');
    expect(out).toContain('Selected: "SQLite"');
    expect(out).toContain('[approval] approved: Allowed by the user.');
    expect(out).toContain('[approval] denied: Denied by the user. Comment: Not the whole disk.');
    expect(out).toContain('[shell] ran: rm -rf build/');
    expect(out).not.toContain('ran: rm -rf /\n');
    expect(out).toMatch(/\[model\] Done/);
  });

  it('langgraph interrupts, resumes with the answer and asks once', async () => {
    const out = await example('langgraph.ts');
    expect(out).toMatch(/interrupted: ask \S+: Which database\?/);
    expect(out).toContain('database: SQLite');
    expect(out).toContain('node runs: 2, person asked: 1 time(s)');
  });

  it('pi-extension runs inside pi without a UI and answers unavailable honestly', async () => {
    const out = await example('pi-extension.ts');
    expect(out).toContain('[ask_user, error] Nobody could be asked');
    expect(out).toContain('without an interactive UI');
  }, 60_000);
});
