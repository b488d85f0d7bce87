/**
 * `ask-engine claude-hook` as Claude Code runs it: the recorded hook input on stdin, the
 * decision JSON on stdout, the ask answered through the store by another process.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AskUserQuestionAnswer,
  createInteractionService,
  TOOL_APPROVE,
  TOOL_REJECT,
} from 'ask-engine';
import { toolUseAskId } from 'ask-engine/claude';
import { createSqliteAskStore } from 'ask-engine/sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/run-cli.js';
import {
  askUserQuestionInput,
  bashInput,
  preToolUseAskUserQuestion,
  preToolUseBash,
} from './recorded-inputs.js';

const dir = mkdtempSync(join(tmpdir(), 'ask-engine-claude-hook-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let stores = 0;
const newStore = () => join(dir, `asks-${++stores}.db`);

const hook = (input: unknown, args: string[]) =>
  runCli(['claude-hook', ...args], { stdin: JSON.stringify(input) });

/** A service on the store, as another process answering (the web page, ask-engine answer). */
function answerer(path: string) {
  const store = createSqliteAskStore({ path });
  const service = createInteractionService({ store });
  return {
    service,
    async close() {
      await service.close();
      await store.close();
    },
  };
}

const pick = (
  questionId: string,
  selections: string[],
  comment?: string,
): AskUserQuestionAnswer => ({
  questionId,
  response: { kind: 'selection', selections, ...(comment === undefined ? {} : { comment }) },
});

describe('ask-engine claude-hook', () => {
  it('defers a Bash call into the store, then allows it with its input once answered elsewhere', async () => {
    const store = newStore();
    const first = await hook(preToolUseBash, ['--store', store]);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'defer' },
    });

    const other = answerer(store);
    const askId = toolUseAskId(preToolUseBash.tool_use_id);
    expect((await other.service.get(askId))?.state).toBe('deferred');
    await other.service.answer(askId, [pick('q1', [TOOL_APPROVE])], {
      by: { recipient: 'ada', channel: 'web' },
    });
    await other.close();

    // claude -p --resume runs the hook again for the same call.
    const again = await hook(preToolUseBash, ['--store', store]);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'allow',
        permissionDecisionReason: expect.any(String),
        updatedInput: bashInput,
      },
    });
  });

  it('holds the call for --wait and denies with the reason given on another surface', async () => {
    const store = newStore();
    const running = hook(preToolUseBash, ['--store', store, '--wait', '60s']);
    const other = answerer(store);
    const askId = toolUseAskId(preToolUseBash.tool_use_id);
    await expect
      .poll(async () => (await other.service.get(askId))?.state, { timeout: 30_000 })
      .toBe('deferred');
    await other.service.answer(askId, [
      pick('q1', [TOOL_REJECT], 'Not the build folder, use make clean'),
    ]);
    await other.close();
    const result = await running;
    expect(result.code).toBe(0);
    const output = JSON.parse(result.stdout);
    expect(output.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(output.hookSpecificOutput.permissionDecisionReason).toContain('use make clean');
    expect(output.hookSpecificOutput.updatedInput).toBeUndefined();
  });

  it('answers AskUserQuestion with the answers in the tool input, once the wizard is answered', async () => {
    const store = newStore();
    const first = await hook(preToolUseAskUserQuestion, ['--store', store]);
    expect(JSON.parse(first.stdout).hookSpecificOutput.permissionDecision).toBe('defer');
    const other = answerer(store);
    const askId = toolUseAskId(preToolUseAskUserQuestion.tool_use_id);
    const asked = await other.service.get(askId);
    expect(asked?.questions.map((question) => question.header)).toEqual(['Database', 'Features']);
    expect(asked?.questions[1]?.context).toContain('id,name');
    await other.service.answer(askId, [
      pick('q1', ['PostgreSQL']),
      { questionId: 'q2', response: { kind: 'freeform', text: 'Auth only, then export' } },
    ]);
    await other.close();
    const again = await hook(preToolUseAskUserQuestion, ['--store', store]);
    expect(JSON.parse(again.stdout).hookSpecificOutput).toMatchObject({
      permissionDecision: 'allow',
      updatedInput: {
        ...askUserQuestionInput,
        answers: {
          'Which database should the service use?': 'PostgreSQL',
          'Which features ship first?': 'Auth only, then export',
        },
      },
    });
  });

  it('with --unanswered deny, denies a call nobody answered within --wait and cancels its ask', async () => {
    const store = newStore();
    const result = await hook(preToolUseBash, [
      '--store',
      store,
      '--wait',
      '1s',
      '--unanswered',
      'deny',
    ]);
    expect(result.code).toBe(0);
    const output = JSON.parse(result.stdout).hookSpecificOutput;
    expect(output.permissionDecision).toBe('deny');
    expect(output.permissionDecisionReason).toContain('no one answered');
    const other = answerer(store);
    const ask = await other.service.get(toolUseAskId(preToolUseBash.tool_use_id));
    expect(ask?.outcome).toMatchObject({ status: 'cancelled', reason: 'unavailable' });
    await other.close();
  });

  it('blocks the call (exit 2, one line) when the input is not a PreToolUse hook input', async () => {
    const result = await hook({ ...preToolUseBash, hook_event_name: 'PostToolUse' }, [
      '--store',
      newStore(),
    ]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^ask-engine: Expected a PreToolUse hook input, got hook_event_name "PostToolUse".*\n$/,
    );
  });

  it('blocks the call (exit 2) when the store cannot be opened: a hook that cannot ask never lets a call through', async () => {
    const result = await hook(preToolUseBash, ['--store', join(dir, 'missing', 'asks.db')]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^ask-engine claude-hook: --store ".*missing\/asks.db": the directory .* does not exist/,
    );
  });

  it('refuses a --schemas file that is not a JSON object, naming the flag', async () => {
    const schemas = join(dir, 'schemas.json');
    writeFileSync(schemas, '[1, 2]');
    const result = await hook(preToolUseBash, ['--store', newStore(), '--schemas', schemas]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--schemas');
  });
});
