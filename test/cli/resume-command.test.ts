/** `ask-engine resume` and `ask --store`: a deferred ask in a SQLite file, answered by a later process. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { type AskAuditEvent, createInteractionService, createScriptedProvider } from 'ask-engine';
import { createSqliteAskStore } from 'ask-engine/sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

/** An option title a model wrote with a C1 CSI, a bidi override and an ESC sequence. */
const evil = 'Y\u009b31m\u202eES\u001b[2J';
const RAW_CONTROLS =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: none of these may reach a terminal raw.
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/;

const yes = [{ questionId: 'q1', response: { kind: 'selection', selections: ['yes'] } }];

describe('ask-engine resume --store', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ask-engine-cli-store-'));
  const file = join(dir, 'asks.db');
  const ids: Record<string, string> = {};

  const stored = async (askId: string) => {
    const store = createSqliteAskStore({ path: file });
    try {
      const history: AskAuditEvent[] = [];
      for await (const event of store.history(askId)) history.push(event);
      return { row: await store.get(askId), types: history.map((event) => event.type) };
    } finally {
      await store.close();
    }
  };

  beforeAll(async () => {
    const store = createSqliteAskStore({ path: file });
    const service = createInteractionService({ store });
    service.registerProvider(
      createScriptedProvider([{ defer: 'thread-7' }, { defer: 'thread-8' }, { defer: 'thread-9' }]),
    );
    for (const thread of ['thread-7', 'thread-8', 'thread-9']) {
      const options = thread === 'thread-9' ? [evil, 'No'] : ['Yes', 'No'];
      const handle = service.start({ question: 'Ship it?', options });
      expect(await handle.outcome).toMatchObject({ status: 'deferred', interactionId: thread });
      ids[thread] = handle.id;
    }
    await service.close();
    await store.close();
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('answers the deferred ask from a new process and prints the outcome with its ask id, as answer does', async () => {
    const result = await runCli(['resume', 'thread-7', JSON.stringify(yes), '--store', file]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const answered = {
      status: 'answered',
      answers: [{ questionId: 'q1', response: { kind: 'selection', selections: ['Yes'] } }],
      // Who ran resume: the OS user, through the CLI.
      answeredBy: { recipient: userInfo().username, channel: 'cli' },
    };
    expect(JSON.parse(result.stdout)).toEqual({ askId: ids['thread-7'], ...answered });
    const { row, types } = await stored(ids['thread-7']!);
    expect(row?.outcome).toEqual(answered);
    expect(types).toEqual(['start', 'provider.deferred', 'resume']);
  });

  it('refuses a second resume with ASK_SETTLED, audited, and the outcome unchanged', async () => {
    const no = [{ questionId: 'q1', response: { kind: 'selection', selections: ['No'] } }];
    const result = await runCli(['resume', 'thread-7', '-', '--store', file], {
      stdin: JSON.stringify(no),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^ask-engine resume: ASK_SETTLED: /);
    const { row, types } = await stored(ids['thread-7']!);
    expect(row?.state).toBe('answered');
    expect(types.at(-1)).toBe('late-answer');
  });

  it('refuses invalid answers with INVALID_ANSWER and keeps the ask deferred', async () => {
    const wrong = [{ questionId: 'q1', response: { kind: 'selection', selections: ['Maybe'] } }];
    const result = await runCli(['resume', 'thread-8', JSON.stringify(wrong), '--store', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^ask-engine resume: INVALID_ANSWER: .*Maybe/);
    const { row, types } = await stored(ids['thread-8']!);
    expect(row?.state).toBe('deferred');
    expect(types.at(-1)).toBe('answer.refused');
  });

  it('shows C1 and bidi controls from option titles escaped, on stderr and on stdout', async () => {
    const wrong = [{ questionId: 'q1', response: { kind: 'selection', selections: ['Maybe'] } }];
    const refused = await runCli(['resume', 'thread-9', JSON.stringify(wrong), '--store', file]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('"Y\\x9b31m\\u202eES\\u001b[2J"');
    expect(refused.stderr).not.toMatch(RAW_CONTROLS);
    const pick = [{ questionId: 'q1', response: { kind: 'selection', selections: [evil] } }];
    const result = await runCli(['resume', 'thread-9', JSON.stringify(pick), '--store', file]);
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(RAW_CONTROLS);
    expect(result.stdout).toContain('\\u009b31m\\u202eES\\u001b[2J');
    // The same value once parsed.
    expect(JSON.parse(result.stdout)).toMatchObject({
      answers: [{ response: { selections: [evil] } }],
    });
  });

  it('names an unknown interaction id, and a missing --store', async () => {
    const unknown = await runCli(['resume', 'thread-99', '[]', '--store', file]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/UNKNOWN_INTERACTION: .*thread-99/);
    const missing = await runCli(['resume', 'thread-8', '[]']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('resume needs --store PATH');
  });

  it('keeps an ask asked with ask --store in the file', async () => {
    const other = join(dir, 'ask.db');
    const result = await runCli([
      'ask',
      '{"question":"Ship it?","options":["Yes","No"]}',
      '--store',
      other,
    ]);
    // No terminal here: the ask ends cancelled / unavailable, and the file has it.
    expect(result.code).toBe(1);
    const store = createSqliteAskStore({ path: other });
    try {
      const db = await import('better-sqlite3');
      const raw = new db.default(other, { readonly: true });
      const rows = raw.prepare('SELECT id, state FROM asks').all() as {
        id: string;
        state: string;
      }[];
      raw.close();
      expect(rows.map((row) => row.state)).toEqual(['cancelled']);
      expect((await store.get(rows[0]!.id))?.outcome).toMatchObject({
        status: 'cancelled',
        reason: 'unavailable',
      });
    } finally {
      await store.close();
    }
  });
});
