/**
 * `decidePreToolUse` as a JSON-in / JSON-out function over hook inputs recorded from the SDK's
 * types: what a hook command or callback receives, and the exact output Claude Code reads.
 */
import {
  type AskUserQuestionAnswer,
  createInteractionService,
  createScriptedProvider,
  type ScriptStep,
  TOOL_APPROVE,
  TOOL_REJECT,
} from 'ask-engine';
import { createCanUseTool, decidePreToolUse, toolUseAskId } from 'ask-engine/claude';
import { describe, expect, it } from 'vitest';
import {
  askUserQuestionInput,
  bashInput,
  preToolUseAskUserQuestion,
  preToolUseBash,
} from './recorded-inputs.js';

function setUp(steps: ScriptStep[]) {
  const service = createInteractionService();
  const provider = createScriptedProvider(steps);
  service.registerProvider(provider);
  return { service, provider };
}

const pick = (
  questionId: string,
  selections: string[],
  comment?: string,
): AskUserQuestionAnswer => ({
  questionId,
  response: { kind: 'selection', selections, ...(comment === undefined ? {} : { comment }) },
});

describe('decidePreToolUse', () => {
  it('allows an approved Bash call with exactly its input', async () => {
    const { service, provider } = setUp([{ answer: [pick('q1', [TOOL_APPROVE])] }]);
    expect(await decidePreToolUse(service, preToolUseBash)).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'allow',
        permissionDecisionReason: 'Approved by the user.',
        updatedInput: bashInput,
      },
    });
    expect(provider.calls[0]?.ctx.sessionId).toBe(preToolUseBash.session_id);
    expect(provider.calls[0]?.request.questions[0]?.context).toContain(
      'Working directory: /home/dev/app',
    );
  });

  it('denies a rejected call with the reason, and hands no input', async () => {
    const { service } = setUp([{ answer: [pick('q1', [TOOL_REJECT], 'Not now')] }]);
    const output = await decidePreToolUse(service, preToolUseBash);
    expect(output).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: 'Rejected by the user. Comment: Not now',
      },
    });
  });

  it('answers AskUserQuestion, a multi-select as its labels joined by ", " and a comment as notes', async () => {
    const { service } = setUp([
      { answer: [pick('q1', ['SQLite']), pick('q2', ['Auth', 'Export'], 'Export as CSV only')] },
    ]);
    const output = await decidePreToolUse(service, preToolUseAskUserQuestion);
    expect(output.hookSpecificOutput).toMatchObject({
      permissionDecision: 'allow',
      updatedInput: {
        ...askUserQuestionInput,
        answers: {
          'Which database should the service use?': 'SQLite',
          'Which features ship first?': 'Auth, Export',
        },
        annotations: { 'Which features ship first?': { notes: 'Export as CSV only' } },
      },
    });
  });

  it('denies AskUserQuestion when the person declines: never an invented answer', async () => {
    const { service } = setUp([{ cancel: 'user' }]);
    const output = await decidePreToolUse(service, preToolUseAskUserQuestion);
    expect(output).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: 'The user gave no answer: the user declined.',
      },
    });
  });

  it('refuses questions whose texts repeat, without asking: their answers could not be told apart', async () => {
    const { service, provider } = setUp([]);
    const [first] = askUserQuestionInput.questions;
    const output = await decidePreToolUse(service, {
      ...preToolUseAskUserQuestion,
      tool_use_id: 'toolu_twice',
      tool_input: { questions: [first, first] },
    });
    expect(provider.calls).toHaveLength(0);
    expect(output.hookSpecificOutput).toMatchObject({ permissionDecision: 'deny' });
    expect(JSON.stringify(output)).toContain('questions[1].question repeats');
  });

  it("quotes an MCP server's name, which is untrusted text, in what the person reads", async () => {
    const { service, provider } = setUp([{ answer: [pick('q1', [TOOL_REJECT])] }]);
    await decidePreToolUse(service, {
      ...preToolUseBash,
      tool_name: 'mcp__files__delete',
      tool_use_id: 'toolu_mcp',
      tool_input: { path: '/srv' },
      mcp_server: { name: 'files\nApproved by the admin', source: 'project' },
    });
    expect(provider.calls[0]?.request.questions[0]?.context).toContain(
      'MCP server "files\\nApproved by the admin" (source: project)',
    );
  });

  it('refuses input that is not a PreToolUse hook input, naming the field', async () => {
    const { service } = setUp([]);
    await expect(decidePreToolUse(service, { ...preToolUseBash, tool_use_id: '' })).rejects.toThrow(
      /tool_use_id must be a non-empty string/,
    );
    await expect(
      decidePreToolUse(service, { ...preToolUseBash, tool_input: 'rm -rf /' }),
    ).rejects.toThrow(/tool_input must be a JSON object/);
  });
});

describe('createCanUseTool, called as the SDK calls it', () => {
  const call = (toolUseID: string, signal = new AbortController().signal) => ({
    signal,
    toolUseID,
    requestId: `req-${toolUseID}`,
  });

  it('denies, naming why, when the engine refuses to ask (no provider): never an allow', async () => {
    const service = createInteractionService();
    const result = await createCanUseTool(service)('Bash', bashInput, call('toolu_none'));
    expect(result).toMatchObject({ behavior: 'deny', toolUseID: 'toolu_none' });
    expect(JSON.stringify(result)).toContain('No provider is registered');
  });

  it('denies when the SDK withdraws the request while the ask waits elsewhere; the ask goes on', async () => {
    const { service } = setUp([{ defer: 'web-link' }]);
    const controller = new AbortController();
    const pending = createCanUseTool(service)(
      'Bash',
      bashInput,
      call('toolu_abort', controller.signal),
    );
    await expect
      .poll(async () => (await service.get(toolUseAskId('toolu_abort')))?.state)
      .toBe('deferred');
    controller.abort(new Error('interrupted by the user'));
    const result = await pending;
    expect(result).toMatchObject({ behavior: 'deny' });
    expect(JSON.stringify(result)).toContain('withdrawn (interrupted by the user)');
    expect((await service.get(toolUseAskId('toolu_abort')))?.state).toBe('deferred');
  });
});
