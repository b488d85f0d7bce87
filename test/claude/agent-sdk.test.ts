/**
 * ask-engine/claude through the real Claude Agent SDK: `query()` drives a fake Claude Code
 * child that speaks the SDK's control protocol (no network, no CLI), so every decision below
 * went through the SDK's own permission and hook plumbing.
 */
import { type Options, query, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import {
  type AskUserQuestionAnswer,
  createInteractionService,
  createMemoryAskStore,
  createScriptedProvider,
  type ScriptStep,
  TOOL_APPROVE,
  TOOL_REJECT,
} from 'ask-engine';
import {
  createCanUseTool,
  createPreToolUseHook,
  readDeferredToolCall,
  resumeDeferredSession,
  toolUseAskId,
} from 'ask-engine/claude';
import { describe, expect, it } from 'vitest';
import { createFakeClaude, type ScriptedToolUse } from './fake-claude.js';
import { canUseToolRequest } from './recorded-inputs.js';

const bash: ScriptedToolUse = {
  id: 'toolu_bash_1',
  name: 'Bash',
  input: { command: 'rm -rf build' },
};

const questions: ScriptedToolUse = {
  id: 'toolu_ask_1',
  name: 'AskUserQuestion',
  input: {
    questions: [
      {
        question: 'Which database?',
        header: 'Database',
        options: [
          { label: 'PostgreSQL', description: 'A server' },
          { label: 'SQLite', description: 'One file' },
        ],
        multiSelect: false,
      },
      {
        question: 'Which features?',
        header: 'Features',
        options: [
          { label: 'Auth', description: 'Sign-in' },
          { label: 'Search', description: 'Full text' },
          { label: 'Billing', description: 'Stripe' },
        ],
        multiSelect: true,
      },
      {
        question: 'Which region?',
        header: 'Region',
        options: [
          { label: 'EU', description: 'Frankfurt' },
          { label: 'US', description: 'Virginia' },
        ],
        multiSelect: false,
      },
    ],
  },
};

function setUp(steps: ScriptStep[], store = createMemoryAskStore()) {
  const service = createInteractionService({ store });
  const provider = createScriptedProvider(steps);
  service.registerProvider(provider);
  return { service, provider, store };
}

async function run(prompt: string, options: Options): Promise<SDKMessage[]> {
  const messages: SDKMessage[] = [];
  for await (const message of query({ prompt, options })) messages.push(message);
  return messages;
}

const pick = (
  questionId: string,
  selections: string[],
  comment?: string,
): AskUserQuestionAnswer => ({
  questionId,
  response: { kind: 'selection', selections, ...(comment === undefined ? {} : { comment }) },
});

describe('createCanUseTool through query()', () => {
  it('asks about a permission prompt and the SDK hands Claude Code the allow with the approved input', async () => {
    const { service, provider } = setUp([{ answer: [pick('q1', [TOOL_APPROVE])] }]);
    const claude = createFakeClaude(() => bash);
    await run('Clean the build.', {
      spawnClaudeCodeProcess: claude.spawn,
      canUseTool: createCanUseTool(service),
    });
    expect(provider.calls).toHaveLength(1);
    expect(provider.calls[0]?.request.questions[0]?.context).toContain('rm -rf build');
    expect(provider.calls[0]?.ctx.toolCallId).toBe('toolu_bash_1');
    expect(claude.runs[0]?.permissionResults).toEqual([
      { behavior: 'allow', updatedInput: { command: 'rm -rf build' }, toolUseID: 'toolu_bash_1' },
    ]);
    expect(claude.runs[0]?.ran).toEqual({ name: 'Bash', input: { command: 'rm -rf build' } });
  });

  it('denies with the reason the person gave, and the tool does not run', async () => {
    const { service } = setUp([{ answer: [pick('q1', [TOOL_REJECT], 'Not on Fridays')] }]);
    const claude = createFakeClaude(() => bash);
    await run('Clean the build.', {
      spawnClaudeCodeProcess: claude.spawn,
      canUseTool: createCanUseTool(service),
    });
    const [result] = claude.runs[0]?.permissionResults ?? [];
    expect(result).toMatchObject({ behavior: 'deny', toolUseID: 'toolu_bash_1' });
    expect((result as { message: string }).message).toContain('Not on Fridays');
    expect(claude.runs[0]?.ran).toBeUndefined();
  });

  it('hands the SDK the edited input when the person approves with edits, and only that input runs', async () => {
    const edited = { command: 'rm -rf build/cache' };
    const { service, provider } = setUp([
      {
        answer: [
          {
            questionId: 'q1',
            response: { kind: 'selection', selections: [TOOL_APPROVE], input: edited },
          },
        ],
      },
    ]);
    const claude = createFakeClaude(() => bash);
    await run('Clean the build.', {
      spawnClaudeCodeProcess: claude.spawn,
      canUseTool: createCanUseTool(service),
    });
    // Bash is editable by default: the ask carried its input schema.
    expect(provider.calls[0]?.request.questions[0]?.intent).toMatchObject({
      kind: 'tool-approval',
      inputSchema: { properties: { command: { type: 'string' } } },
    });
    expect(claude.runs[0]?.permissionResults).toEqual([
      { behavior: 'allow', updatedInput: edited, toolUseID: 'toolu_bash_1' },
    ]);
    expect(claude.runs[0]?.ran).toEqual({ name: 'Bash', input: edited });
  });

  it('refuses an edit the tool schema does not allow: the call does not run', async () => {
    const { service } = setUp([
      {
        answer: [
          {
            questionId: 'q1',
            response: {
              kind: 'selection',
              selections: [TOOL_APPROVE],
              input: { command: 'ls', sudo: true },
            },
          },
        ],
      },
    ]);
    const claude = createFakeClaude(() => bash);
    await run('Clean the build.', {
      spawnClaudeCodeProcess: claude.spawn,
      canUseTool: createCanUseTool(service),
    });
    expect(claude.runs[0]?.permissionResults).toMatchObject([{ behavior: 'deny' }]);
    expect(claude.runs[0]?.ran).toBeUndefined();
  });

  it("shows the person Claude Code's own words for the request: its title, why it asks, the path", async () => {
    const { service, provider } = setUp([{ answer: [pick('q1', [TOOL_APPROVE])] }]);
    const { title, decision_reason, blocked_path } = canUseToolRequest.request;
    const claude = createFakeClaude(() => bash, { title, decision_reason, blocked_path });
    await run('Clean the build.', {
      spawnClaudeCodeProcess: claude.spawn,
      canUseTool: createCanUseTool(service),
    });
    const context = provider.calls[0]?.request.questions[0]?.context;
    expect(context).toContain(title);
    expect(context).toContain(`Why Claude Code asks: ${decision_reason}`);
    expect(context).toContain(blocked_path);
  });

  it('denies when the person does not answer before the deadline: a timeout is never an allow', async () => {
    const { service } = setUp([{ hang: true }]);
    const claude = createFakeClaude(() => bash);
    await run('Clean the build.', {
      spawnClaudeCodeProcess: claude.spawn,
      canUseTool: createCanUseTool(service, { timeoutMs: 1000 }),
    });
    const [result] = claude.runs[0]?.permissionResults ?? [];
    expect(result).toMatchObject({ behavior: 'deny' });
    expect((result as { message: string }).message).toContain('did not answer before the deadline');
    expect(claude.runs[0]?.ran).toBeUndefined();
  });

  it('denies, naming why, when no one can be asked: never an allow', async () => {
    const { service } = setUp([{ cancel: 'unavailable', message: 'No terminal.' }]);
    const claude = createFakeClaude(() => bash);
    await run('Clean the build.', {
      spawnClaudeCodeProcess: claude.spawn,
      canUseTool: createCanUseTool(service),
    });
    const [result] = claude.runs[0]?.permissionResults ?? [];
    expect(result).toMatchObject({ behavior: 'deny' });
    expect((result as { message: string }).message).toMatch(
      /cancelled \(unavailable\).*No terminal/,
    );
    expect(claude.runs[0]?.ran).toBeUndefined();
  });

  it('maps AskUserQuestion onto a wizard and returns the answers in the shape the tool reads', async () => {
    const { service, provider } = setUp([
      {
        answer: [
          pick('q1', ['SQLite']),
          pick('q2', ['Auth', 'Search'], 'Search can wait a week'),
          { questionId: 'q3', response: null },
        ],
      },
    ]);
    const claude = createFakeClaude(() => questions);
    await run('Set up the app.', {
      spawnClaudeCodeProcess: claude.spawn,
      canUseTool: createCanUseTool(service),
    });
    const asked = provider.calls[0]?.request.questions;
    expect(
      asked?.map((question) => [question.header, question.allowMultiple, question.allowFreeform]),
    ).toEqual([
      ['Database', false, true],
      ['Features', true, true],
      ['Region', false, true],
    ]);
    expect(asked?.[0]?.options).toEqual([
      { title: 'PostgreSQL', description: 'A server' },
      { title: 'SQLite', description: 'One file' },
    ]);
    expect(claude.runs[0]?.ran?.input).toEqual({
      ...questions.input,
      answers: {
        'Which database?': 'SQLite',
        'Which features?': 'Auth, Search',
        'Which region?': 'The user skipped this question and gave no answer.',
      },
      annotations: { 'Which features?': { notes: 'Search can wait a week' } },
    });
  });

  it('refuses AskUserQuestion input it cannot read, with a deny naming the field, without asking', async () => {
    const { service, provider } = setUp([]);
    const broken = {
      ...questions,
      input: {
        questions: [{ question: 'Which?', header: 'H', options: 'a,b', multiSelect: false }],
      },
    };
    const claude = createFakeClaude(() => broken);
    await run('Ask.', {
      spawnClaudeCodeProcess: claude.spawn,
      canUseTool: createCanUseTool(service),
    });
    expect(provider.calls).toHaveLength(0);
    const [result] = claude.runs[0]?.permissionResults ?? [];
    expect((result as { message: string }).message).toContain(
      'questions[0].options must be a non-empty array',
    );
  });

  it('waits for an ask deferred to another surface and allows once it is answered there', async () => {
    const store = createMemoryAskStore();
    const { service } = setUp([{ defer: 'web-link-1' }], store);
    const elsewhere = createInteractionService({ store });
    const claude = createFakeClaude(() => bash);
    const running = run('Clean the build.', {
      spawnClaudeCodeProcess: claude.spawn,
      canUseTool: createCanUseTool(service),
    });
    // The person answers on another host sharing the store, once the ask is deferred there.
    const askId = toolUseAskId('toolu_bash_1');
    await expect.poll(async () => (await elsewhere.get(askId))?.state).toBe('deferred');
    await elsewhere.answer(askId, [pick('q1', [TOOL_APPROVE])], {
      by: { recipient: 'alice', channel: 'web' },
    });
    await running;
    expect(claude.runs[0]?.permissionResults).toMatchObject([{ behavior: 'allow' }]);
    expect(claude.runs[0]?.ran?.input).toEqual({ command: 'rm -rf build' });
  });
});

describe('createPreToolUseHook and resumeDeferredSession through query()', () => {
  it('defers the call, and resumes the session once the ask is answered on another host', async () => {
    const store = createMemoryAskStore();
    const { service } = setUp([{ defer: 'web-link-2' }], store);
    const claude = createFakeClaude(() => bash);
    const options: Options = {
      spawnClaudeCodeProcess: claude.spawn,
      hooks: { PreToolUse: [{ hooks: [createPreToolUseHook(service)] }] },
    };
    const first = await run('Clean the build.', options);
    const result = first.find((message) => message.type === 'result');
    expect(claude.runs[0]?.hookOutputs).toMatchObject([
      { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'defer' } },
    ]);
    expect(claude.runs[0]?.ran).toBeUndefined();
    const deferred = readDeferredToolCall(result);
    expect(deferred).toEqual({
      sessionId: 'session-1',
      toolUseId: 'toolu_bash_1',
      toolName: 'Bash',
    });

    // The first process is gone; a host sharing the store (with its own provider, for the
    // calls the resumed session makes next) answers and resumes.
    await service.close();
    const elsewhere = createInteractionService({ store });
    elsewhere.registerProvider(createScriptedProvider([]));
    const resuming = resumeDeferredSession(elsewhere, result, {
      options: {
        ...options,
        hooks: { PreToolUse: [{ hooks: [createPreToolUseHook(elsewhere)] }] },
      },
    });
    await elsewhere.answer(toolUseAskId('toolu_bash_1'), [pick('q1', [TOOL_APPROVE])]);
    const resumed = await resuming;
    for await (const _message of resumed ?? []) {
      // drain the resumed run
    }
    expect(claude.runs[1]?.resumed).toBe('session-1');
    expect(claude.runs[1]?.hookOutputs).toMatchObject([
      {
        hookSpecificOutput: {
          permissionDecision: 'allow',
          updatedInput: { command: 'rm -rf build' },
        },
      },
    ]);
    expect(claude.runs[1]?.ran).toEqual({ name: 'Bash', input: { command: 'rm -rf build' } });
  });

  it('denies on resume when the person denied: the deferred call never runs', async () => {
    const store = createMemoryAskStore();
    const { service } = setUp([{ defer: 'web-link-3' }], store);
    const claude = createFakeClaude(() => bash);
    const options: Options = {
      spawnClaudeCodeProcess: claude.spawn,
      hooks: { PreToolUse: [{ hooks: [createPreToolUseHook(service)] }] },
    };
    const result = (await run('Clean the build.', options)).find(
      (message) => message.type === 'result',
    );
    await service.answer(toolUseAskId('toolu_bash_1'), [
      pick('q1', [TOOL_REJECT], 'Use make clean'),
    ]);
    for await (const _message of (await resumeDeferredSession(service, result, { options })) ??
      []) {
      // drain
    }
    const [output] = claude.runs[1]?.hookOutputs ?? [];
    expect(output).toMatchObject({ hookSpecificOutput: { permissionDecision: 'deny' } });
    expect(JSON.stringify(output)).toContain('Use make clean');
    expect(claude.runs[1]?.ran).toBeUndefined();
  });

  it('refuses to resume without the hook, which would let the call take another path', async () => {
    const { service } = setUp([]);
    const result = {
      type: 'result',
      session_id: 's',
      deferred_tool_use: { id: 'toolu_x', name: 'Bash', input: {} },
    };
    await expect(resumeDeferredSession(service, result, { options: {} })).rejects.toThrow(
      /needs the PreToolUse hook/,
    );
  });
});
