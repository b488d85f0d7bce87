/**
 * `ask-engine list`, `show`, `answer`, `cancel` and `export` as an operator runs them, on a
 * SQLite file and on a real PostgreSQL server (`--store postgres://…`), with asks deferred
 * into the store by `ask --store --defer`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type PostgresCluster,
  postgresMissing,
  startPostgresCluster,
} from '../support/postgres-cluster.js';
import { runCli } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'ask-engine-operator-'));
const deploy = '{"question":"Deploy \\u202eevil?","options":["Yes","No"]}';
const yes = '[{"questionId":"q1","response":{"kind":"selection","selections":["Yes"]}}]';

afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function deferInto(store: string): Promise<string> {
  const result = await runCli(['ask', deploy, '--store', store, '--defer']);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(4);
  return (JSON.parse(result.stdout) as { askId: string }).askId;
}

function operatorFlow(name: string, storeFor: () => string) {
  describe(name, () => {
    let store: string;
    let first: string;
    let second: string;
    let third: string;

    beforeAll(async () => {
      store = storeFor();
      first = await deferInto(store);
      second = await deferInto(store);
      third = await deferInto(store);
    }, 120_000);

    it('lists what waits, newest first, with model text escaped', async () => {
      const listed = await runCli(['list', '--store', store, '--state', 'deferred']);
      expect(listed.code).toBe(0);
      const lines = listed.stdout.trim().split('\n');
      expect(lines.map((line) => line.split('  ')[0])).toEqual([third, second, first]);
      expect(listed.stdout).toContain('Deploy \\u202eevil?');
      expect(listed.stdout).not.toContain('\u202e');
      const json = await runCli(['list', '--store', store, '--limit', '2', '--json']);
      const page = JSON.parse(json.stdout) as { items: { askId: string }[]; cursor?: string };
      expect(page.items.map((item) => item.askId)).toEqual([third, second]);
      const next = await runCli(['list', '--store', store, '--cursor', page.cursor!, '--json']);
      expect((JSON.parse(next.stdout) as typeof page).items.map((item) => item.askId)).toEqual([
        first,
      ]);
    });

    it('answers one ask by id, checked like any answer, and records the OS user', async () => {
      const wrong = await runCli([
        'answer',
        first,
        '[{"questionId":"q1","response":{"kind":"selection","selections":["Maybe"]}}]',
        '--store',
        store,
      ]);
      expect(wrong.code).toBe(2);
      expect(wrong.stderr).toMatch(/^ask-engine answer: INVALID_ANSWER: /);
      const answered = await runCli(['answer', first, yes, '--store', store]);
      expect(answered.code).toBe(0);
      expect(JSON.parse(answered.stdout)).toEqual({
        askId: first,
        status: 'answered',
        answers: [{ questionId: 'q1', response: { kind: 'selection', selections: ['Yes'] } }],
        answeredBy: { recipient: userInfo().username, channel: 'cli' },
      });
      const again = await runCli(['answer', first, yes, '--store', store]);
      expect(again.code).toBe(2);
      expect(again.stderr).toMatch(/ASK_SETTLED/);
    });

    it('lists the asks one person answered, and those a notification reached someone about', async () => {
      const json = async (...flags: string[]) => {
        const listed = await runCli(['list', '--store', store, ...flags, '--json']);
        expect(listed.stderr).toBe('');
        return (JSON.parse(listed.stdout) as { items: { askId: string }[] }).items.map(
          (item) => item.askId,
        );
      };
      expect(await json('--answered-by', userInfo().username)).toEqual([first]);
      expect(await json('--answered-by', 'nobody-here')).toEqual([]);
      // Asks deferred by the CLI notify nobody.
      expect(await json('--notified', userInfo().username)).toEqual([]);
      const empty = await runCli(['list', '--store', store, '--notified', '']);
      expect(empty.code).toBe(2);
      expect(empty.stderr).toContain('`notified`');
    });

    it('cancels one ask by id, with its reason for the audit trail', async () => {
      const cancelled = await runCli(['cancel', second, '--store', store, '--message', 'Stale.']);
      expect(cancelled.code).toBe(0);
      expect(JSON.parse(cancelled.stdout)).toEqual({
        askId: second,
        status: 'cancelled',
        reason: 'user',
        message: 'Stale.',
      });
    });

    it('shows one ask and its whole history', async () => {
      const shown = await runCli(['show', first, '--store', store]);
      expect(shown.code).toBe(0);
      expect(shown.stdout).toMatch(new RegExp(`^ask ${first}  answered  version \\d+\\n`));
      expect(shown.stdout).toContain('q1: Deploy \\u202eevil? [Yes | No]');
      expect(shown.stdout).toMatch(/ {2}\S+ {2}start {2}new -> pending\n/);
      expect(shown.stdout).toMatch(/answer\.refused {2}deferred -> deferred\n/);
      expect(shown.stdout).toMatch(/answer {2}deferred -> answered\n/);
      const json = JSON.parse((await runCli(['show', first, '--store', store, '--json'])).stdout);
      expect(json.ask.askId).toBe(first);
      expect(json.history.map((event: { type: string }) => event.type)).toContain('answer');
      const missing = await runCli(['show', 'no-such-ask', '--store', store]);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain('no ask "no-such-ask" in this store');
    });

    it('exports every ask with its history as JSON Lines, and only recent ones with --since', async () => {
      const all = await runCli(['export', '--store', store]);
      expect(all.code).toBe(0);
      const lines = all.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(lines.map((line) => line.ask.askId).sort()).toEqual([first, second, third].sort());
      for (const line of lines) expect(line.history[0].type).toBe('start');
      const none = await runCli(['export', '--store', store, '--since', '2999-01-01T00:00:00Z']);
      expect(none.stdout).toBe('');
      const bad = await runCli(['export', '--store', store, '--since', 'yesterday']);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('--since "yesterday" is neither an ISO date');
    });

    it('names a bad state or limit, and a missing store', async () => {
      const state = await runCli(['list', '--store', store, '--state', 'waiting']);
      expect(state.code).toBe(2);
      expect(state.stderr).toContain('--state "waiting" is not a state');
      const limit = await runCli(['list', '--store', store, '--limit', '5000']);
      expect(limit.code).toBe(2);
      expect(limit.stderr).toMatch(/INVALID_REQUEST: .*limit/);
      const noStore = await runCli(['list']);
      expect(noStore.code).toBe(2);
      expect(noStore.stderr).toContain('list needs --store PATH');
    });
  });
}

operatorFlow('on a SQLite file', () => join(dir, 'asks.db'));

describe.skipIf(postgresMissing !== undefined && !process.env.CI)('on PostgreSQL', () => {
  let cluster: PostgresCluster;
  beforeAll(async () => {
    cluster = await startPostgresCluster();
  }, 60_000);
  afterAll(async () => {
    await cluster?.destroy();
  });
  operatorFlow('with --store postgres://…', () => cluster.url);
});

describe('ask-engine answer on a quorum ask', () => {
  it('records the OS user’s response with the quorum’s progress, and refuses the same person twice', async () => {
    const { createInteractionService, createScriptedProvider } = await import('ask-engine');
    const { createSqliteAskStore } = await import('ask-engine/sqlite');
    const store = join(dir, 'quorum.db');
    const asks = createSqliteAskStore({ path: store });
    const service = createInteractionService({ store: asks });
    service.registerProvider(createScriptedProvider([{ defer: 'change-9' }]));
    const handle = service.start(
      { question: 'Deploy?', options: ['Yes', 'No'] },
      { quorum: { required: 2 } },
    );
    await handle.outcome;
    await service.close();
    await asks.close();
    const user = userInfo().username;
    const first = await runCli(['answer', handle.id, yes, '--store', store]);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({
      askId: handle.id,
      state: 'deferred',
      quorum: { required: 2, agree: 'same', responded: [user], needed: 1 },
    });
    const again = await runCli(['answer', handle.id, yes, '--store', store]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`${user} has already responded`);
  });
});
