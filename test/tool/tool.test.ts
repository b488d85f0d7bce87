import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import type { AskUserQuestionAnswer } from '../../src/contracts/answer.js';
import { AskUserToolInputSchema } from '../../src/contracts/tool-input.js';
import { createInteractionService } from '../../src/engine/service.js';
import type { InteractionService } from '../../src/engine/service-contract.js';
import { createScriptedProvider, type ScriptStep } from '../../src/providers/scripted-provider.js';
import { isNormalizedAskRequest } from '../../src/rules/normalize.js';
import { type AskUserToolOptions, createAskUserTool } from '../../src/tool/tool.js';

function setup(steps: ScriptStep[], options: AskUserToolOptions = {}) {
  const clock = new SimulatedClock();
  clock.set(1_000_000);
  const service = createInteractionService({ clock });
  const provider = createScriptedProvider(steps);
  service.registerProvider(provider);
  const tool = createAskUserTool(service, options);
  return { clock, service, provider, tool };
}

const pick = (questionId: string, ...selections: string[]): AskUserQuestionAnswer => ({
  questionId,
  response: { kind: 'selection', selections },
});

function textOf(result: { content: [{ text: string }] }): string {
  return result.content[0].text;
}

// Lets the service deliver the question (it calls the provider on a microtask).
const delivered = () => new Promise((resolve) => setTimeout(resolve, 0));

function collectKeys(value: unknown, keys: Set<string>): void {
  if (Array.isArray(value)) for (const item of value) collectKeys(item, keys);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, inner] of Object.entries(value)) {
      keys.add(key);
      collectKeys(inner, keys);
    }
  }
}

describe('the ask_user tool definition', () => {
  const { tool } = setup([]);

  it('is named ask_user, runs sequentially and takes the tool input schema', () => {
    expect(tool.name).toBe('ask_user');
    expect(tool.label).toBeTruthy();
    expect(tool.executionMode).toBe('sequential');
    expect(tool.parameters).toBe(AskUserToolInputSchema);
  });

  it('has no anyOf or oneOf anywhere in its JSON Schema', () => {
    const keys = new Set<string>();
    collectKeys(JSON.parse(JSON.stringify(tool.parameters)), keys);
    expect(keys.has('anyOf')).toBe(false);
    expect(keys.has('oneOf')).toBe(false);
    expect(keys.has('allOf')).toBe(false);
  });

  it('spells option items as flat { title, description? } objects', () => {
    const schema = JSON.parse(JSON.stringify(tool.parameters));
    const items = [
      schema.properties.options.items,
      schema.properties.questions.items.properties.options.items,
    ];
    for (const item of items) {
      expect(item.type).toBe('object');
      expect(item.required).toEqual(['title']);
      expect(item.additionalProperties).toBe(false);
      expect(Object.keys(item.properties).sort()).toEqual(['description', 'title']);
      expect(item.properties.title.type).toBe('string');
      expect(item.properties.description.type).toBe('string');
    }
  });

  it('spells the hint enums as flat string enums', () => {
    const schema = JSON.parse(JSON.stringify(tool.parameters));
    expect(schema.properties.displayMode).toMatchObject({
      type: 'string',
      enum: ['overlay', 'inline'],
    });
    expect(schema.properties.singleSelectLayout).toMatchObject({ enum: ['auto', 'list'] });
  });

  it('tells the model when to ask, how to ask and what to do on timeout and deferral', () => {
    const guidelines = tool.promptGuidelines.join('\n');
    expect(guidelines).toMatch(/only when/i);
    expect(guidelines).toMatch(/one focused decision/i);
    expect(guidelines).toMatch(/2-4 related/);
    expect(guidelines).toMatch(/never guess/i);
    expect(guidelines).toMatch(/timed out/);
    expect(guidelines).toMatch(/deferred, end your turn/);
    expect(tool.description).toMatch(/nothing was chosen/);
  });

  it('repairs raw arguments through prepareArguments', () => {
    expect(
      tool.prepareArguments(
        '{"question":"Deploy?","options":"[\\"yes\\",{\\"label\\":\\"no\\"}]"}',
      ),
    ).toEqual({ question: 'Deploy?', options: [{ title: 'yes' }, { title: 'no' }] });
  });

  it('refuses a service that is not one, a bad default timeout and a blank agent name', () => {
    expect(() => createAskUserTool({} as never)).toThrow(TypeError);
    const { service } = setup([]);
    expect(() => createAskUserTool(service, { timeoutMs: 0 })).toThrow(/timeoutMs/);
    expect(() => createAskUserTool(service, { agent: ' ' })).toThrow(/agent/);
    expect(() => createAskUserTool(service, { agent: '\u200b' })).toThrow(/agent/);
  });
});

describe('executing ask_user', () => {
  it('returns the chosen title, spelled as the option, with the normalized questions and ids', async () => {
    const { tool, provider } = setup([{ answer: [pick('q1', 'postgres')] }]);
    const result = await tool.execute(
      'call-1',
      { question: ' Which database? ', options: ['Postgres', 'SQLite'], displayMode: 'inline' },
      undefined,
      undefined,
      { sessionId: 'session-9' },
    );
    expect(result.isError).toBeUndefined();
    expect(textOf(result)).toBe('The user answered.\n\nQ1: Which database?\nSelected: "Postgres"');
    expect(result.details).toMatchObject({
      status: 'answered',
      toolCallId: 'call-1',
      askId: expect.any(String),
      answers: [pick('q1', 'Postgres')],
      questions: [{ id: 'q1', question: 'Which database?', header: 'Q1' }],
    });
    const [call] = provider.calls;
    expect(call?.request.hints).toEqual({ displayMode: 'inline' });
    expect(call?.ctx).toMatchObject({ toolCallId: 'call-1', sessionId: 'session-9' });
  });

  it('reports several selections, a comment, and a typed answer', async () => {
    const { tool } = setup([
      {
        answer: [
          {
            questionId: 'q1',
            response: { kind: 'selection', selections: ['A', 'C'], comment: 'both\nplease' },
          },
          { questionId: 'q2', response: { kind: 'freeform', text: 'feature/login' } },
        ],
      },
    ]);
    const result = await tool.execute('call-2', {
      questions: [
        {
          question: 'Which parts?',
          options: ['A', 'B', 'C'],
          allowMultiple: true,
          allowComment: true,
        },
        { question: 'Branch name?' },
      ],
    });
    const text = textOf(result);
    expect(text).toMatch(/^The user answered 2 of 2 questions\./);
    expect(text).toContain('Selected: "A", "C"\nComment: "both\\nplease"');
    expect(text).toContain('Q2: Branch name?\nTyped answer: "feature/login"');
  });

  it('names the wizard questions the user skipped', async () => {
    const { tool } = setup([{ answer: [pick('q1', 'Yes'), { questionId: 'q2', response: null }] }]);
    const result = await tool.execute('call-3', {
      options: ['Yes', 'No'],
      questions: [{ question: 'Run the migration?' }, { question: 'Notify the team?' }],
    });
    const text = textOf(result);
    expect(text).toMatch(/answered 1 of 2 questions/);
    expect(text).toContain('Q2: Notify the team?\nSkipped: the user gave no answer');
    expect(result.details.answers[1]).toEqual({ questionId: 'q2', response: null });
  });

  it('says whether a plan review approved the plan', async () => {
    const { tool } = setup([{ answer: [pick('q1', 'revise')] }]);
    const result = await tool.execute('call-4', {
      question: 'Approve this plan?',
      context: '1. Migrate\n2. Deploy',
      options: ['Approve', 'Revise'],
      intent: { kind: 'plan-review', approve: 'approve' },
    });
    expect(textOf(result)).toContain('Selected: "Revise"\nThe plan is NOT approved.');
    expect(result.details.questions[0]?.intent).toEqual({
      kind: 'plan-review',
      approve: 'Approve',
    });
  });

  it('reports progress as k/N answered while a wizard is being answered', async () => {
    const { tool } = setup([
      {
        progress: [pick('q1', 'Yes')],
        answer: [pick('q1', 'Yes'), pick('q2', 'No'), { questionId: 'q3', response: null }],
      },
    ]);
    const updates: unknown[] = [];
    const result = await tool.execute(
      'call-5',
      {
        options: ['Yes', 'No'],
        questions: [{ question: 'One?' }, { question: 'Two?' }, { question: 'Three?' }],
      },
      undefined,
      (update) => updates.push(update),
    );
    expect(updates).toEqual([
      {
        content: [{ type: 'text', text: '1/3 answered' }],
        details: {
          status: 'pending',
          askId: result.details.askId,
          toolCallId: 'call-5',
          answered: 1,
          total: 3,
        },
      },
    ]);
    expect(result.details.status).toBe('answered');
  });

  it('accepts repairable raw arguments passed straight to execute', async () => {
    const { tool } = setup([{ answer: [pick('q1', 'true')] }]);
    const result = await tool.execute(
      'call-6',
      '{"question":"Proceed?","options":"[true,false]","allowComment":"false"}',
    );
    expect(textOf(result)).toContain('Selected: "true"');
  });

  describe('when nothing is chosen', () => {
    it('reports a dismissal by the user without marking it an error', async () => {
      const { tool } = setup([{ cancel: 'user' }]);
      const result = await tool.execute('call-7', { question: 'Deploy?' });
      expect(result.isError).toBeUndefined();
      expect(textOf(result)).toMatch(/dismissed the question.*Nothing was chosen/);
      expect(result.details).toMatchObject({ status: 'cancelled', reason: 'user', answers: [] });
    });

    it('marks an unavailable user as an error', async () => {
      const { tool } = setup([{ cancel: 'unavailable', message: 'no terminal attached' }]);
      const result = await tool.execute('call-8', { question: 'Deploy?' });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/Nobody could be asked.*"no terminal attached"/);
      expect(result.details).toMatchObject({
        reason: 'unavailable',
        message: 'no terminal attached',
      });
    });

    it('marks a provider failure as an error with its message', async () => {
      const { tool } = setup([{ throw: new Error('socket closed') }]);
      const result = await tool.execute('call-9', { question: 'Deploy?' });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/Asking the user failed: .*socket closed/);
      expect(result.details).toMatchObject({ status: 'cancelled', reason: 'provider-error' });
    });

    it('marks an invalid answer as an error saying what was wrong', async () => {
      const { tool } = setup([{ answer: [pick('q1', 'Maybe')] }]);
      const result = await tool.execute('call-10', { question: 'Deploy?', options: ['Yes', 'No'] });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/refused as invalid: .*"Maybe".*Nothing was chosen/);
      expect(result.details).toMatchObject({ status: 'cancelled', reason: 'invalid-answer' });
    });

    it('tells the agent to end its turn when the question is deferred', async () => {
      const { tool } = setup([{ defer: 'chat-thread-42' }]);
      const result = await tool.execute('call-11', { question: 'Deploy?' });
      expect(result.isError).toBeUndefined();
      expect(textOf(result)).toMatch(
        /interaction id: chat-thread-42.*Nothing has been chosen yet\. End your turn now and wait for the user's next message/,
      );
      expect(result.details).toMatchObject({
        status: 'deferred',
        interactionId: 'chat-thread-42',
        toolCallId: 'call-11',
      });
    });

    it('says plainly that no answer was given when the model’s timeout passes', async () => {
      const { tool, clock } = setup([{ hang: true }]);
      const pending = tool.execute('call-12', {
        question: 'Deploy?',
        options: ['Yes'],
        timeout: 30_000,
      });
      await delivered();
      clock.increment(30_000);
      const result = await pending;
      expect(result.isError).toBeUndefined();
      expect(textOf(result)).toMatch(
        /^No answer was given: the question timed out after 30 s and nothing was chosen\. Do not pick an option yourself/,
      );
      expect(result.details).toMatchObject({
        status: 'timedOut',
        deadlineAt: 1_030_000,
        answers: [],
      });
    });

    it('uses the tool’s default timeout when the model gives none', async () => {
      const { tool, clock } = setup([{ hang: true }], { timeoutMs: 5_000 });
      const pending = tool.execute('call-13', { question: 'Deploy?' });
      await delivered();
      clock.increment(4_999);
      await delivered();
      clock.increment(1);
      const result = await pending;
      expect(result.details).toMatchObject({ status: 'timedOut', deadlineAt: 1_005_000 });
    });

    it('reports an abort by the host as an error carrying the cause’s message', async () => {
      const { tool, provider } = setup([{ hang: true }]);
      const controller = new AbortController();
      const pending = tool.execute('call-14', { question: 'Deploy?' }, controller.signal);
      await delivered();
      controller.abort(new Error('the user pressed Escape'));
      const result = await pending;
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(
        /withdrawn before the user answered \(the user pressed Escape\)/,
      );
      expect(result.details.status).toBe('aborted');
      expect(provider.calls[0]?.ctx.signal.aborted).toBe(true);
    });

    it('reports an already aborted signal without asking', async () => {
      const { tool, provider } = setup([{ hang: true }]);
      const result = await tool.execute(
        'call-15',
        { question: 'Deploy?' },
        AbortSignal.abort('stop'),
      );
      expect(result.details.status).toBe('aborted');
      await delivered();
      expect(provider.calls).toHaveLength(0);
    });
  });

  describe('invalid input', () => {
    it('returns an error naming the unusable entry and asks nobody', async () => {
      const { tool, provider } = setup([{ answer: [] }]);
      const result = await tool.execute('call-16', { question: 'Pick', options: ['a', {}] });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(
        /^ask_user refused the call \(INVALID_REQUEST\): Option 2 of question 1 is unusable: .* Fix the arguments and call ask_user again\.$/,
      );
      expect(result.details).toMatchObject({
        status: 'invalid',
        questions: [],
        toolCallId: 'call-16',
        error: { code: 'INVALID_REQUEST' },
      });
      expect(result.details).not.toHaveProperty('askId');
      expect(provider.calls).toHaveLength(0);
    });

    it.each([
      [{}, 'EMPTY_QUESTIONS'],
      [{ questions: ['a', 'b', 'c', 'd', 'e'] }, 'TOO_MANY_QUESTIONS'],
      [
        { question: 'x', options: ['a'], intent: { kind: 'plan-review', approve: 'b' } },
        'BAD_INTENT',
      ],
      [
        {
          question: 'x',
          options: Array.from({ length: 65 }, (_, i) => `o${i}`),
          allowMultiple: true,
        },
        'LIMIT_EXCEEDED',
      ],
      ['not json', 'INVALID_REQUEST'],
      [{ questions: [{ id: 'mine', question: 'x' }] }, 'INVALID_REQUEST'],
      [{ question: 'x', agent: 'root' }, 'INVALID_REQUEST'],
    ])('refuses %j with %s', async (params, code) => {
      const { tool } = setup([]);
      const result = await tool.execute('call', params);
      expect(result.isError).toBe(true);
      expect(result.details.error?.code).toBe(code);
    });

    it('returns an error when no provider is registered', async () => {
      const service = createInteractionService();
      const tool = createAskUserTool(service);
      const result = await tool.execute('call-17', { question: 'Deploy?' });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/NO_PROVIDER.*continue without asking/);
      expect(result.details.questions).toHaveLength(1);
    });
  });

  it('hands the host’s agent name to the provider', async () => {
    const { tool, provider } = setup([{ answer: [pick('q1', 'Yes')] }], { agent: 'planner' });
    await tool.execute('call-18', { question: 'Deploy?', options: ['Yes'] });
    expect(provider.calls[0]?.request.agent).toBe('planner');
  });
});

describe('a host quorum on the tool', () => {
  it('makes every ask need the quorum; the model sees the agreed answer, or the plain no-quorum text', async () => {
    const { tool, service } = setup([{ hang: true }, { hang: true }], {
      quorum: { required: 2, from: ['ana', 'ben'] },
    });
    const agreed = tool.execute('call-q1', { question: 'Deploy?', options: ['Yes', 'No'] });
    const split = tool.execute('call-q2', { question: 'Rotate keys?', options: ['Yes', 'No'] });
    let ids: string[] = [];
    while (ids.length < 2) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      ids = (await service.list({ state: ['pending'] })).items.map((item) => item.askId).reverse();
    }
    const [deploy, rotate] = ids as [string, string];
    await service.respond(deploy, [pick('q1', 'Yes')], { by: { recipient: 'ana' } });
    await service.respond(deploy, [pick('q1', 'Yes')], { by: { recipient: 'ben' } });
    await service.respond(rotate, [pick('q1', 'Yes')], { by: { recipient: 'ana' } });
    await service.respond(rotate, [pick('q1', 'No')], { by: { recipient: 'ben' } });
    const first = await agreed;
    expect(first.details.status).toBe('answered');
    expect(textOf(first)).toContain('"Yes"');
    const second = await split;
    expect(second.details.status).toBe('cancelled');
    expect(textOf(second)).toMatch(/The approvers did not agree.*Nothing was decided/);
  });

  it('returns an error naming the veto when the model offered no such option', async () => {
    const { tool } = setup([], { quorum: { required: 2, veto: ['Deny'] } });
    const result = await tool.execute('call-q3', { question: 'Deploy?', options: ['Yes', 'No'] });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/quorum\.veto.*"Deny"/);
  });
});

describe('the boundary between the tool and the service', () => {
  it('normalizes once and hands the service the normalized request itself', async () => {
    const { service } = setup([{ answer: [pick('q1', 'Yes')] }]);
    const received: unknown[] = [];
    // The real service, with its start() watched.
    const watched = new Proxy(service, {
      get(target, key) {
        if (key === 'start') {
          return (...args: Parameters<InteractionService['start']>) => {
            received.push(args[0]);
            return target.start(...args);
          };
        }
        const value = Reflect.get(target, key, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const tool = createAskUserTool(watched, { agent: 'planner' });
    const result = await tool.execute('call-n', {
      question: 'Deploy?',
      options: ['Yes', 'No'],
      displayMode: 'inline',
    });
    expect(result.details.status).toBe('answered');
    expect(received).toHaveLength(1);
    // The object normalizeAskUserRequest returned, which the service takes as it is.
    expect(isNormalizedAskRequest(received[0])).toBe(true);
    expect(received[0]).toMatchObject({
      agent: 'planner',
      hints: { displayMode: 'inline' },
      questions: result.details.questions,
    });
  });

  it('keeps asking when onUpdate throws, and reports what it threw', async () => {
    const errors: unknown[] = [];
    const { tool } = setup(
      [
        {
          progress: [pick('q1', 'Yes')],
          answer: [pick('q1', 'Yes'), pick('q2', 'No')],
        },
      ],
      { onError: (error, context) => errors.push({ error, context }) },
    );
    const result = await tool.execute(
      'call-u',
      { options: ['Yes', 'No'], questions: [{ question: 'One?' }, { question: 'Two?' }] },
      undefined,
      () => {
        throw new Error('the host UI is gone');
      },
    );
    expect(result.details.status).toBe('answered');
    expect(result.details.callbackErrors).toEqual(['onUpdate threw: the host UI is gone']);
    expect(errors).toEqual([
      {
        error: new Error('the host UI is gone'),
        context: { callback: 'onUpdate', toolCallId: 'call-u', askId: result.details.askId },
      },
    ]);
  });

  it('does not crash the process when onUpdate throws and nobody listens for errors', async () => {
    const { tool } = setup([
      { progress: [pick('q1', 'Yes')], answer: [pick('q1', 'Yes'), pick('q2', 'No')] },
    ]);
    const result = await tool.execute(
      'call-v',
      { options: ['Yes', 'No'], questions: [{ question: 'One?' }, { question: 'Two?' }] },
      undefined,
      () => {
        throw new Error('broken callback');
      },
    );
    // Let anything rethrown on a timer surface inside this test.
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(result.details.status).toBe('answered');
    expect(result.details.callbackErrors).toEqual(['onUpdate threw: broken callback']);
  });

  it('records a throwing onUpdate in the ask’s audit trail', async () => {
    const { tool, service } = setup([
      { progress: [pick('q1', 'Yes')], answer: [pick('q1', 'Yes'), pick('q2', 'No')] },
    ]);
    const result = await tool.execute(
      'call-w',
      { options: ['Yes', 'No'], questions: [{ question: 'One?' }, { question: 'Two?' }] },
      undefined,
      () => {
        throw new Error('broken callback');
      },
    );
    await new Promise((resolve) => setTimeout(resolve, 10));
    const types: string[] = [];
    for await (const event of service.history(result.details.askId!)) types.push(event.type);
    expect(types).toContain('callback.failed');
    const failed = [];
    for await (const event of service.history(result.details.askId!)) {
      if (event.type === 'callback.failed') failed.push(event.data);
    }
    expect(failed).toEqual([{ callback: 'onUpdate', message: 'broken callback' }]);
  });
});

describe('timeouts', () => {
  const { tool, service } = setup([]);

  it('states the minimum in the description and in the schema', () => {
    expect(tool.description).toContain('at least 1000');
    expect(tool.parameters.properties.timeout).toMatchObject({ minimum: 1000 });
    expect(tool.parameters.properties.timeout.description).toContain('at least 1000');
  });

  it.each([5e-324, 0.5, 999, -1, Number.POSITIVE_INFINITY])(
    'refuses timeout %s before anyone is asked',
    async (timeout) => {
      const result = await tool.execute('call-t', { question: 'Deploy?', timeout });
      expect(result.isError).toBe(true);
      expect(result.details.status).toBe('invalid');
      expect(result.details.error?.message).toMatch(
        /^"timeout" must be a number of milliseconds, at least 1000 \(1 second\)/,
      );
    },
  );

  it('tells a model that sent seconds what to send instead', async () => {
    const result = await tool.execute('call-s', { question: 'Deploy?', timeout: 30 });
    expect(textOf(result)).toContain('Timeouts are in milliseconds: for 30 seconds send 30000.');
  });

  it('refuses a default timeout under the minimum when the tool is created', () => {
    expect(() => createAskUserTool(service, { timeoutMs: 500 })).toThrow(
      /`timeoutMs`.*>= 1000, got 500/,
    );
  });
});

describe('formatAskUserToolResult: no-quorum', () => {
  it('tells the model the approvers did not agree and nothing was decided', async () => {
    const { formatAskUserToolResult } = await import('../../src/tool/tool-result.js');
    const result = formatAskUserToolResult(
      [
        {
          question: 'Deploy?',
          header: 'Deploy',
          options: [{ label: 'Approve' }],
          multiSelect: false,
        },
      ] as never,
      {
        status: 'cancelled',
        reason: 'no-quorum',
        responses: [{ by: 'ana', answers: [], at: 1 }],
      },
      { toolCallId: 't1', askId: 'a1' },
    );
    const text = JSON.stringify(result);
    expect(text).toContain('did not agree');
    expect(text).toContain('do not assume an answer');
  });
});
