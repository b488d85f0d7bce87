/**
 * Every error path of the CLI this test can reach, run as a user meets it: one line on stderr,
 * starting with `ask-engine`, one sentence end and no doubled period in it (an ellipsis is `…`),
 * and the exit code the help documents.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'ask-engine-error-lines-'));
const db = join(dir, 'asks.db');
const deploy = '{"question":"Deploy?","options":["Yes","No"]}';
const yes = '[{"questionId":"q1","response":{"kind":"selection","selections":["Yes"]}}]';
const maybe = '[{"questionId":"q1","response":{"kind":"selection","selections":["Maybe"]}}]';
let answered: string;
let deferred: string;

afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(async () => {
  const defer = async () => {
    const result = await runCli(['ask', deploy, '--store', db, '--defer']);
    expect(result.code).toBe(4);
    return (JSON.parse(result.stdout) as { askId: string }).askId;
  };
  answered = await defer();
  deferred = await defer();
  expect((await runCli(['answer', answered, yes, '--store', db])).code).toBe(0);
  writeFileSync(join(dir, 'notes.txt'), 'not a database\n'.repeat(100));
  writeFileSync(join(dir, 'short.secret'), 'too short\n');
  mkdirSync(join(dir, 'folder'));
}, 60_000);

/**
 * Each case: its arguments (a function, for ids known once the store is written), its exit code
 * and, for some, the settings file it runs with.
 */
const cases: [string, () => string[], number, string?][] = [
  ['an unknown option before any command', () => ['--nope'], 2],
  ['an unknown command', () => ['nope'], 2],
  ['ask: an unknown option', () => ['ask', deploy, '--nope'], 2],
  ['ask: a flag missing its value', () => ['ask', deploy, '--timeout'], 2],
  ['ask: a switch given a value', () => ['ask', deploy, '--defer=yes'], 2],
  ['ask: input that is no JSON', () => ['ask', 'not json'], 2],
  ['ask: input that is no object', () => ['ask', '[]'], 2],
  ['ask: two inputs', () => ['ask', deploy, deploy], 2],
  ['ask: a request the tool refuses', () => ['ask', '{"question":"Q","timeout":5}'], 2],
  ['ask: a timeout in words', () => ['ask', deploy, '--timeout', 'soon'], 2],
  ['ask: a timeout under a second', () => ['ask', deploy, '--timeout', '999'], 2],
  ['ask: a timeout past the range', () => ['ask', deploy, '--timeout', '99999999999h'], 2],
  ['ask: --defer without --store', () => ['ask', deploy, '--defer'], 2],
  [
    'ask: a preference flag with no shortcut',
    () => ['ask', deploy, '--ask-user-overlay-toggle-key', 'ctrl+zz'],
    2,
  ],
  [
    'ask: a preference flag with a reserved key',
    () => ['ask', deploy, '--ask-user-comment-toggle-key', 'enter'],
    2,
  ],
  [
    'ask: a settings file with no shortcut',
    () => ['ask', deploy],
    2,
    '{"overlayToggleKey":"ctrl+zz"}',
  ],
  ['ask: a settings file that is no JSON', () => ['ask', deploy], 2, '{'],
  ['ask: --interaction-id without --defer', () => ['ask', deploy, '--interaction-id', 'x'], 2],
  ['resume: no arguments', () => ['resume'], 2],
  ['resume: no --store', () => ['resume', 't', yes], 2],
  ['resume: answers that are no JSON', () => ['resume', 't', 'not json', '--store', db], 2],
  ['resume: an unknown interaction id', () => ['resume', 'no-such-thread', yes, '--store', db], 2],
  ['serve: no --store', () => ['serve'], 2],
  ['serve: an argument', () => ['serve', 'x', '--store', db], 2],
  ['serve: a port out of range', () => ['serve', '--store', db, '--port', '70000'], 2],
  [
    'serve: a secret file that is not there',
    () => ['serve', '--store', db, '--secret-file', join(dir, 'none')],
    2,
  ],
  [
    'serve: a secret file too short',
    () => ['serve', '--store', db, '--secret-file', join(dir, 'short.secret')],
    2,
  ],
  ['list: no --store', () => ['list'], 2],
  ['list: an argument', () => ['list', 'x', '--store', db], 2],
  ['list: an unknown state', () => ['list', '--store', db, '--state', 'waiting'], 2],
  ['list: a limit that is no number', () => ['list', '--store', db, '--limit', 'lots'], 2],
  ['list: a limit past 1000', () => ['list', '--store', db, '--limit', '5000'], 2],
  ['list: a cursor of no list', () => ['list', '--store', db, '--cursor', 'bogus'], 2],
  ['show: no ask id', () => ['show', '--store', db], 2],
  ['show: an unknown ask', () => ['show', 'no-such-ask', '--store', db], 2],
  ['export: --since in words', () => ['export', '--store', db, '--since', 'yesterday'], 2],
  ['export: --since past the range', () => ['export', '--store', db, '--since', '99999999999h'], 2],
  ['export: --since under a second', () => ['export', '--store', db, '--since', '500ms'], 2],
  ['answer: answers that are no JSON', () => ['answer', deferred, 'not json', '--store', db], 2],
  ['answer: answers that do not fit', () => ['answer', deferred, maybe, '--store', db], 2],
  ['answer: an ask already answered', () => ['answer', answered, yes, '--store', db], 2],
  ['answer: an unknown ask', () => ['answer', 'no-such-ask', yes, '--store', db], 2],
  ['cancel: an ask already answered', () => ['cancel', answered, '--store', db], 2],
  ['cancel: two ask ids', () => ['cancel', 'a', 'b', '--store', db], 2],
  ['mcp: a timeout in words', () => ['mcp', '--timeout', 'soon'], 2],
  ['mcp: an argument', () => ['mcp', 'x'], 2],
  ['demo: an unknown option', () => ['demo', '--nope'], 2],
  [
    'a store in a folder that is not there',
    () => ['list', '--store', join(dir, 'none', 'asks.db')],
    5,
  ],
  ['a store that is a folder', () => ['list', '--store', join(dir, 'folder')], 5],
  ['a store that is not there', () => ['list', '--store', join(dir, 'missing.db')], 5],
  ['a store that is no database', () => ['list', '--store', join(dir, 'notes.txt')], 5],
  [
    'a PostgreSQL store nobody listens for',
    () => ['list', '--store', 'postgres://127.0.0.1:1/app'],
    5,
  ],
];

describe('every error the CLI prints', () => {
  it.each(cases)(
    '%s: one line, one sentence, no doubled period',
    async (name, args, code, settings) => {
      const env: Record<string, string> = {};
      if (settings !== undefined) {
        env.ASK_ENGINE_SETTINGS = join(dir, `${name.replaceAll(/\W+/g, '-')}.json`);
        writeFileSync(env.ASK_ENGINE_SETTINGS, settings);
      }
      const result = await runCli(args(), { env });
      const lines = result.stderr.split('\n');
      expect(lines.at(-1)).toBe('');
      expect(lines.slice(0, -1)).toHaveLength(1);
      const [line] = lines as [string];
      expect(line).toMatch(/^ask-engine[ :]/);
      expect(line).toMatch(/\.$/);
      expect(line).not.toMatch(/\.\s*\./);
      expect(result.code).toBe(code);
    },
  );

  it('says a cancel of an answered ask changed nothing, without calling it an answer', async () => {
    const result = await runCli(['cancel', answered, '--store', db]);
    expect(result.stderr).toBe(
      `ask-engine cancel: ASK_SETTLED: Ask ${answered} was already answered: its outcome is fixed, so nothing changed.\n`,
    );
  });
});
