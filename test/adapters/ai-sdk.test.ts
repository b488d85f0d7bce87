/** ask-engine/ai-sdk through whole AI SDK loops: generateText and streamText with a scripted model. */
import { generateText, jsonSchema, type ModelMessage, stepCountIs, streamText, tool } from 'ai';
import {
  type AskUserQuestionAnswer,
  createInteractionService,
  createMemoryAskStore,
  createScriptedProvider,
  type ScriptStep,
} from 'ask-engine';
import { answerApprovals, askUserTool, deferAskUser, resumeAskUser } from 'ask-engine/ai-sdk';
import { describe, expect, it } from 'vitest';
import { callTool, scriptedModel, toolResultsIn } from './mock-model.js';

const pick = (...selections: string[]): AskUserQuestionAnswer[] => [
  { questionId: 'q1', response: { kind: 'selection', selections } },
];

function setUp(steps: ScriptStep[], store = createMemoryAskStore()) {
  const service = createInteractionService({ store });
  const provider = createScriptedProvider(steps);
  service.registerProvider(provider);
  return { service, provider, store };
}

const askDatabase = { question: 'Which database?', options: ['PostgreSQL', 'SQLite'] };

/** Asks once, then says what the tool result was. */
const askThenReport = scriptedModel((prompt) => {
  const [result] = toolResultsIn(prompt);
  return result === undefined
    ? [callTool('call-1', 'ask_user', askDatabase)]
    : [{ type: 'text', text: `The tool said: ${result}` }];
});

describe('askUserTool', () => {
  it('asks in the middle of a generateText loop and hands the model the answer', async () => {
    const { service, provider } = setUp([{ answer: pick('SQLite') }]);
    const result = await generateText({
      model: askThenReport,
      tools: { ask_user: askUserTool(service) },
      stopWhen: stepCountIs(3),
      prompt: 'Set up storage.',
    });
    expect(provider.calls).toHaveLength(1);
    expect(provider.calls[0]?.ctx.toolCallId).toBe('call-1');
    expect(result.steps).toHaveLength(2);
    expect(result.text).toContain('Selected: "SQLite"');
  });

  it('asks in the middle of a streamText loop the same way', async () => {
    const { service } = setUp([{ answer: pick('PostgreSQL') }]);
    const result = streamText({
      model: askThenReport,
      tools: { ask_user: askUserTool(service) },
      stopWhen: stepCountIs(3),
      prompt: 'Set up storage.',
    });
    let text = '';
    for await (const delta of result.textStream) text += delta;
    expect(text).toContain('Selected: "PostgreSQL"');
  });

  it('never asks twice for a retried step: the tool-call id is the key, on any service sharing the store', async () => {
    const store = createMemoryAskStore();
    const first = setUp([{ answer: pick('SQLite') }], store);
    const again = setUp([{ answer: pick('PostgreSQL') }], store);
    const run = (service: typeof first.service) =>
      generateText({
        model: askThenReport,
        tools: { ask_user: askUserTool(service) },
        stopWhen: stepCountIs(3),
        prompt: 'Set up storage.',
      });
    const a = await run(first.service);
    const b = await run(first.service);
    const c = await run(again.service);
    expect(first.provider.calls).toHaveLength(1);
    expect(again.provider.calls).toHaveLength(0);
    expect(b.text).toBe(a.text);
    expect(c.text).toBe(a.text);
    expect(a.text).toContain('Selected: "SQLite"');
  });

  it('keeps conversations apart by sessionId when their model numbers tool calls alike', async () => {
    const store = createMemoryAskStore();
    const { service, provider } = setUp(
      [{ answer: pick('SQLite') }, { answer: pick('PostgreSQL') }],
      store,
    );
    const run = (sessionId: string) =>
      generateText({
        model: askThenReport,
        tools: { ask_user: askUserTool(service, { sessionId }) },
        stopWhen: stepCountIs(3),
        prompt: 'Set up storage.',
      });
    const first = await run('conversation-a');
    const second = await run('conversation-b');
    const again = await run('conversation-a');
    expect(provider.calls.map((call) => call.ctx.sessionId)).toEqual([
      'conversation-a',
      'conversation-b',
    ]);
    expect(first.text).toContain('Selected: "SQLite"');
    expect(second.text).toContain('Selected: "PostgreSQL"');
    expect(again.text).toBe(first.text);
  });

  it('ends the ask when the call’s abortSignal fires, and the provider’s signal says so', async () => {
    const { service, provider } = setUp([{ hang: true }]);
    const controller = new AbortController();
    const run = generateText({
      model: askThenReport,
      tools: { ask_user: askUserTool(service) },
      stopWhen: stepCountIs(3),
      prompt: 'Set up storage.',
      abortSignal: controller.signal,
    });
    await expect.poll(() => provider.calls.length).toBe(1);
    controller.abort(new Error('user pressed stop'));
    await expect(run).rejects.toThrow();
    expect(provider.calls[0]?.ctx.signal.aborted).toBe(true);
  });

  it('tells the model plainly when nobody can be asked', async () => {
    const { service } = setUp([{ cancel: 'unavailable', message: 'No UI here.' }]);
    const result = await generateText({
      model: askThenReport,
      tools: { ask_user: askUserTool(service) },
      stopWhen: stepCountIs(3),
      prompt: 'Set up storage.',
    });
    expect(result.text).toContain('Nobody could be asked');
    expect(result.text).toContain('Nothing was chosen');
  });
});

describe('deferred mode', () => {
  it('stops the loop at the call, defers the ask under the tool-call id, and resumes with the tool-result part', async () => {
    const store = createMemoryAskStore();
    const { service, provider } = setUp([{ defer: 'chat-thread-9' }], store);
    const tools = { ask_user: askUserTool(service, { deferred: true }) };
    const messages: ModelMessage[] = [{ role: 'user', content: 'Set up storage.' }];
    const step = await generateText({ model: askThenReport, tools, messages });
    expect(step.toolCalls).toHaveLength(1);
    expect(step.toolResults).toHaveLength(0);
    const [call] = step.toolCalls;
    if (call === undefined) throw new Error('no tool call');

    const deferred = await deferAskUser(service, call);
    expect(deferred).toMatchObject({
      toolCallId: 'call-1',
      status: 'deferred',
      interactionId: 'chat-thread-9',
    });
    // Asking again for the same call attaches to the same ask.
    expect(await deferAskUser(service, call)).toEqual(deferred);
    expect(provider.calls).toHaveLength(1);
    expect(await resumeAskUser(service, call)).toBeUndefined();

    // Later, maybe in another process sharing the store: the person's answer arrives.
    const later = setUp([], store);
    const part = await resumeAskUser(later.service, call, pick('SQLite'));
    expect(part).toMatchObject({ type: 'tool-result', toolCallId: 'call-1', toolName: 'ask_user' });
    messages.push(...step.response.messages, { role: 'tool', content: part ? [part] : [] });
    const final = await generateText({ model: askThenReport, tools, messages });
    expect(final.text).toContain('Selected: "SQLite"');
  });

  it('refuses an invalid answer and keeps the ask open for a corrected one', async () => {
    const { service } = setUp([{ defer: 'chat-thread-10' }]);
    const call = { toolCallId: 'call-7', toolName: 'ask_user', input: askDatabase };
    await deferAskUser(service, call);
    await expect(resumeAskUser(service, call, pick('MySQL'))).rejects.toMatchObject({
      code: 'INVALID_ANSWER',
    });
    const part = await resumeAskUser(service, call, pick('PostgreSQL'));
    expect(part?.output).toMatchObject({ type: 'text' });
    expect(JSON.stringify(part?.output)).toContain('Selected: \\"PostgreSQL\\"');
  });
});

const rm = (executed: string[]) =>
  tool({
    description: 'Remove a path.',
    inputSchema: jsonSchema<{ path: string }>({
      type: 'object',
      properties: { path: { type: 'string' } },
      required: ['path'],
    }),
    needsApproval: true,
    execute: async ({ path }) => {
      executed.push(path);
      return `removed ${path}`;
    },
  });

/** Calls rm twice in one step, then reports what it was told. */
const removeTwo = scriptedModel((prompt) => {
  const results = toolResultsIn(prompt);
  const denied = prompt.flatMap((message) =>
    message.role === 'tool'
      ? message.content.flatMap((part) =>
          part.type === 'tool-result' && part.output.type === 'execution-denied'
            ? [`denied: ${part.output.reason}`]
            : [],
        )
      : [],
  );
  if (results.length === 0 && denied.length === 0) {
    return [callTool('rm-1', 'rm', { path: 'build/' }), callTool('rm-2', 'rm', { path: '/' })];
  }
  return [{ type: 'text', text: [...results, ...denied].join(' | ') }];
});

describe('answerApprovals', () => {
  async function approvalLoop(
    steps: ScriptStep[],
    options: Parameters<typeof answerApprovals>[2] = {},
  ) {
    const { service, provider } = setUp(steps);
    const executed: string[] = [];
    const tools = { rm: rm(executed) };
    const messages: ModelMessage[] = [{ role: 'user', content: 'Clean up.' }];
    const step = await generateText({ model: removeTwo, tools, messages });
    const answers = await answerApprovals(service, step, options);
    messages.push(...step.response.messages, answers);
    const final = await generateText({ model: removeTwo, tools, messages });
    return { provider, executed, answers, final, step, service };
  }

  it('runs a tool only on an explicit Allow; a Deny reaches the model with its comment', async () => {
    const { provider, executed, answers, final } = await approvalLoop([
      { answer: pick('Allow') },
      {
        answer: [
          {
            questionId: 'q1',
            response: { kind: 'selection', selections: ['Deny'], comment: 'Never the root.' },
          },
        ],
      },
    ]);
    expect(provider.calls).toHaveLength(2);
    expect(executed).toEqual(['build/']);
    expect(answers.content).toMatchObject([
      { type: 'tool-approval-response', approved: true },
      {
        type: 'tool-approval-response',
        approved: false,
        reason: 'Denied by the user. Comment: Never the root.',
      },
    ]);
    expect(final.text).toContain('removed build/');
    expect(final.text).toContain('denied: Denied by the user. Comment: Never the root.');
  });

  it('needs two approvers with a quorum option; a Deny from anyone denies at once', async () => {
    const { service } = setUp([{ hang: true }, { hang: true }]);
    const executed: string[] = [];
    const tools = { rm: rm(executed) };
    const messages: ModelMessage[] = [{ role: 'user', content: 'Clean up.' }];
    const step = await generateText({ model: removeTwo, tools, messages });
    const answering = answerApprovals(service, step, {
      quorum: { required: 2, from: ['ana', 'ben', 'cy'] },
    });
    let asks: { askId: string; call: string }[] = [];
    while (asks.length < 2) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      const { items } = await service.list({ state: ['pending'] });
      asks = items.map((item) => ({
        askId: item.askId,
        call: /Tool call "(rm-\d)"/.exec(item.questions[0]?.context ?? '')?.[1] ?? '',
      }));
    }
    const askOf = (call: string) => asks.find((ask) => ask.call === call)!.askId;
    const as = (recipient: string) => ({ by: { recipient, channel: 'chat' } });
    // build/: ana and ben allow. The root: cy denies after ana allowed.
    await service.respond(askOf('rm-1'), pick('Allow'), as('ana'));
    await service.respond(askOf('rm-2'), pick('Allow'), as('ana'));
    expect((await service.get(askOf('rm-1')))?.quorum?.needed).toBe(1);
    await service.respond(askOf('rm-1'), pick('Allow'), as('ben'));
    await service.respond(askOf('rm-2'), pick('Deny'), as('cy'));
    const answers = await answering;
    expect(answers.content).toMatchObject([
      { type: 'tool-approval-response', approved: true, reason: 'Allowed by ana, ben.' },
      { type: 'tool-approval-response', approved: false, reason: 'Denied by cy (a veto).' },
    ]);
    messages.push(...step.response.messages, answers);
    await generateText({ model: removeTwo, tools, messages });
    expect(executed).toEqual(['build/']);
  });

  it('names the tool and shows its input in the question', async () => {
    const { provider } = await approvalLoop([{ answer: pick('Deny') }, { answer: pick('Deny') }]);
    const question = provider.calls[0]?.request.questions[0];
    expect(question?.question).toBe('Allow the tool "rm" to run with this input?');
    expect(question?.context).toMatch(
      /^\{\n {2}"path": "build\/"\n\}\n\nTool call "rm-1", tool and input digest sha256:[\w-]{43}$/,
    );
    expect(question?.options.map((option) => option.title)).toEqual(['Allow', 'Deny']);
  });

  it('denies on a timeout, a cancellation or an unavailable UI, and says which', async () => {
    const { executed, answers } = await approvalLoop(
      [{ hang: true }, { cancel: 'unavailable', message: 'No UI here.' }],
      { timeoutMs: 1000 },
    );
    expect(executed).toEqual([]);
    expect(answers.content).toMatchObject([
      { approved: false, reason: 'Not approved: the user did not answer before the deadline.' },
      {
        approved: false,
        reason: 'Not approved: the question was cancelled (unavailable). No UI here.',
      },
    ]);
  });

  it('asks once per approval request, however often the same result is answered', async () => {
    const { service, provider, step } = await approvalLoop([
      { answer: pick('Allow') },
      { answer: pick('Deny') },
    ]);
    const again = await answerApprovals(service, step);
    expect(provider.calls).toHaveLength(2);
    expect(
      again.content.map((part) => part.type === 'tool-approval-response' && part.approved),
    ).toEqual([true, false]);
  });

  it('never carries an Allow over to other input under the same approval id', async () => {
    const { service, provider, step } = await approvalLoop([
      { answer: pick('Allow') },
      { answer: pick('Deny') },
    ]);
    const [first] = step.content.filter((part) => part.type === 'tool-approval-request');
    if (first === undefined) throw new Error('expected an approval request');
    const swapped = { ...first, toolCall: { ...first.toolCall, input: { path: '/etc' } } };
    const answers = await answerApprovals(service, [swapped]);
    expect(provider.calls).toHaveLength(2);
    expect(answers.content).toMatchObject([
      {
        approved: false,
        reason: expect.stringMatching(
          /^Refused without asking: the approval id ".+" already belongs/,
        ),
      },
    ]);
  });

  /** The assistant message a replayed or moved approval pretends to answer, with its tool call. */
  const pretending = (call: { toolCallId: string; input: unknown }, approvalId: string) =>
    ({
      role: 'assistant',
      content: [
        { type: 'tool-call', toolCallId: call.toolCallId, toolName: 'rm', input: call.input },
        { type: 'tool-approval-request', approvalId, toolCallId: call.toolCallId },
      ],
    }) satisfies ModelMessage;

  it('refuses a replayed approval (an answered approval id, another tool call id, the same tool and input) without asking, and the tool never runs', async () => {
    const { service, provider, step, executed } = await approvalLoop([
      { answer: pick('Allow') },
      { answer: pick('Deny') },
    ]);
    expect(executed).toEqual(['build/']);
    const [first] = step.content.filter((part) => part.type === 'tool-approval-request');
    if (first === undefined) throw new Error('expected an approval request');
    // The same approval id and tool and input, sent for a new call id.
    const replay = pretending(
      { toolCallId: 'rm-9', input: first.toolCall.input },
      first.approvalId,
    );
    const answers = await answerApprovals(service, replay.content);
    expect(provider.calls).toHaveLength(2);
    expect(answers.content).toMatchObject([
      {
        type: 'tool-approval-response',
        approvalId: first.approvalId,
        approved: false,
        reason: expect.stringMatching(
          /^Refused without asking: the approval id ".+" already belongs to another tool call or input/,
        ),
      },
    ]);
    // Handed to the real AI SDK loop, the response runs nothing.
    await generateText({
      model: removeTwo,
      tools: { rm: rm(executed) },
      messages: [{ role: 'user', content: 'Clean up.' }, replay, answers],
    });
    expect(executed).toEqual(['build/']);
  });

  it('refuses an approval moved to another call, and asks once for the call it belongs to', async () => {
    const { service, provider, step } = await approvalLoop([
      { answer: pick('Allow') },
      { answer: pick('Deny') },
    ]);
    const [first, second] = step.content.filter((part) => part.type === 'tool-approval-request');
    if (first === undefined || second === undefined) throw new Error('expected two requests');
    // The Allow given for rm-1 (build/) moved onto rm-2 (/).
    const moved = pretending(second.toolCall, first.approvalId);
    const answers = await answerApprovals(service, moved.content);
    expect(answers.content).toMatchObject([{ approved: false }]);
    expect(answers.content[0]).toMatchObject({
      reason: expect.stringMatching(/^Refused without asking/),
    });
    // The approval keeps answering its own call, as it was answered.
    const again = await answerApprovals(service, [first]);
    expect(again.content).toMatchObject([{ approvalId: first.approvalId, approved: true }]);
    expect(provider.calls).toHaveLength(2);
  });

  it('with a signing secret too, refuses a replayed or moved approval without asking', async () => {
    const secret = 'approval-secret';
    const { service, provider } = setUp([{ answer: pick('Allow') }, { answer: pick('Allow') }]);
    const step = await generateText({
      model: removeTwo,
      tools: { rm: rm([]) },
      prompt: 'Clean up.',
      experimental_toolApprovalSecret: secret,
    });
    const [first, second] = step.content.filter((part) => part.type === 'tool-approval-request');
    if (first === undefined || second === undefined) throw new Error('expected two requests');
    const granted = await answerApprovals(service, [first, second], { secret });
    expect(granted.content).toMatchObject([{ approved: true }, { approved: true }]);
    const replayed = { ...first, toolCall: { ...first.toolCall, toolCallId: 'rm-9' } };
    const moved = { ...first, toolCall: second.toolCall };
    const answers = await answerApprovals(service, [replayed, moved], { secret });
    expect(answers.content).toMatchObject([{ approved: false }, { approved: false }]);
    expect(provider.calls).toHaveLength(2);
  });

  it('reads the approval requests from streamText and from response messages too', async () => {
    const { service, provider } = setUp([{ answer: pick('Allow') }, { answer: pick('Allow') }]);
    const stream = streamText({ model: removeTwo, tools: { rm: rm([]) }, prompt: 'Clean up.' });
    const fromStream = await answerApprovals(service, stream);
    const messages = (await stream.response).messages;
    const fromMessages = await answerApprovals(
      service,
      messages.flatMap((message): unknown[] =>
        Array.isArray(message.content) ? message.content : [],
      ),
    );
    expect(provider.calls).toHaveLength(2);
    expect(fromMessages).toEqual(fromStream);
    expect(fromStream.content).toHaveLength(2);
  });

  it('with a signing secret, asks for signed requests and denies forged or unsigned ones without asking', async () => {
    const secret = 'approval-secret';
    const { service, provider } = setUp([{ answer: pick('Allow') }]);
    const executed: string[] = [];
    const tools = { rm: rm(executed) };
    const step = await generateText({
      model: removeTwo,
      tools,
      prompt: 'Clean up.',
      experimental_toolApprovalSecret: secret,
    });
    const [first, second] = step.content.filter((part) => part.type === 'tool-approval-request');
    if (first === undefined || second === undefined)
      throw new Error('expected two approval requests');
    const forged = { ...second, toolCall: { ...second.toolCall, input: { path: '/home' } } };
    const unsigned = { ...first, approvalId: 'made-up', signature: undefined };
    const answers = await answerApprovals(service, [first, forged, unsigned], { secret });
    expect(provider.calls).toHaveLength(1);
    expect(answers.content).toMatchObject([
      { approved: true },
      {
        approved: false,
        reason: 'Denied without asking: the approval request has an invalid signature.',
      },
      { approved: false, reason: 'Denied without asking: the approval request is not signed.' },
    ]);
    const final = await generateText({
      model: removeTwo,
      tools,
      messages: [
        { role: 'user', content: 'Clean up.' },
        ...step.response.messages,
        { role: 'tool', content: answers.content.slice(0, 2) },
      ],
      experimental_toolApprovalSecret: secret,
    });
    expect(executed).toEqual(['build/']);
    expect(final.text).toContain('removed build/');
  });

  it('returns an empty tool message when nothing needs approval, and refuses what it cannot read', async () => {
    const { service, provider } = setUp([]);
    expect(await answerApprovals(service, [])).toEqual({ role: 'tool', content: [] });
    await expect(
      answerApprovals(service, [
        { type: 'tool-approval-request', approvalId: 'a1', toolCallId: 'missing' },
      ]),
    ).rejects.toThrow(/names the tool call "missing", which is not among the parts/);
    await expect(answerApprovals(service, [], { timeoutMs: 30 })).rejects.toThrow(
      /`timeoutMs` to be a number of milliseconds, at least 1000, got 30/,
    );
    expect(provider.calls).toHaveLength(0);
  });
});
