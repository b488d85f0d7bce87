/** The elicitation provider against a real MCP SDK client that plays the person. */
import { McpServer } from '@modelcontextprotocol/server';
import { createAskUserTool, createInteractionService } from 'ask-engine';
import { createElicitationProvider } from 'ask-engine/mcp';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  FORM_AND_URL,
  FORM_ONLY,
  linkPeers,
  neverAnswers,
  type Peers,
  schemaOf,
  URL_ONLY,
} from './mcp-peers.js';

let peers: Peers | undefined;
afterEach(async () => {
  await peers?.close();
  peers = undefined;
});

const deploy = {
  question: 'Deploy the release now?',
  header: 'Deploy',
  options: [
    { title: 'Yes', description: 'ship it to production' },
    { title: 'No', description: 'keep the current version' },
  ],
};

/** The test client's `clientInfo.name` (mcp-peers), recorded as who answered a form. */
const BY_CLIENT = { recipient: 'person', channel: 'mcp' };

const accept = (content: Record<string, string | string[]>) => ({
  action: 'accept' as const,
  content,
});

describe('who answered', () => {
  it('records the client’s name from initialize as who answered, in the outcome and the audit', async () => {
    const service = createInteractionService();
    peers = await linkPeers({
      capabilities: FORM_ONLY,
      clientName: 'Claude Desktop',
      service,
      person: () => accept({ 'q1.selection': 'option1' }),
    });
    const handle = service.start({ questions: [deploy] });
    // The name as the client gave it (ids are recorded as given, compared by their keys).
    const by = { recipient: 'Claude Desktop', channel: 'mcp' };
    expect(await handle.outcome).toMatchObject({ status: 'answered', answeredBy: by });
    const events = [];
    for await (const event of service.history(handle.id)) events.push(event);
    expect(events.at(-1)).toMatchObject({ type: 'provider.answered', data: { answeredBy: by } });
  });

  it('counts the client’s answer to a quorum ask as the response of the client’s name', async () => {
    const service = createInteractionService();
    peers = await linkPeers({
      capabilities: FORM_ONLY,
      clientName: 'Claude Desktop',
      service,
      person: () => accept({ 'q1.selection': 'option1' }),
    });
    const handle = service.start({ questions: [deploy] }, { quorum: { required: 2 } });
    await vi.waitFor(async () =>
      expect((await service.get(handle.id))?.quorum?.responded).toEqual(['Claude Desktop']),
    );
    const events = [];
    for await (const event of service.history(handle.id)) events.push(event);
    expect(events.at(-1)).toMatchObject({
      type: 'response.recorded',
      data: { by: 'Claude Desktop' },
    });
    // A second person, elsewhere, completes the quorum.
    const yes = [
      { questionId: 'q1', response: { kind: 'selection' as const, selections: ['Yes'] } },
    ];
    const receipt = await service.respond(handle.id, yes, {
      by: { recipient: 'ops', channel: 'web' },
    });
    expect(receipt.outcome).toMatchObject({
      status: 'answered',
      responses: [{ by: 'Claude Desktop' }, { by: 'ops' }],
    });
  });

  it('records nobody, and still the answer, for a client name a byline may not hold', async () => {
    peers = await linkPeers({
      capabilities: FORM_ONLY,
      clientName: 'evil\u001b[2Jclient',
      person: () => accept({ 'q1.selection': 'option1' }),
    });
    expect(await peers.service.ask({ questions: [deploy] })).toEqual({
      status: 'answered',
      answers: [{ questionId: 'q1', response: { kind: 'selection', selections: ['Yes'] } }],
    });
  });
});

describe('form mode', () => {
  it('asks a single-select question as a string with oneOf {const, title} and returns the picked title', async () => {
    peers = await linkPeers({
      capabilities: FORM_ONLY,
      person: () => accept({ 'q1.selection': 'option2' }),
    });
    const outcome = await peers.service.ask({ questions: [deploy] });

    expect(outcome).toEqual({
      status: 'answered',
      answeredBy: BY_CLIENT,
      answers: [{ questionId: 'q1', response: { kind: 'selection', selections: ['No'] } }],
    });
    const [asked] = peers.elicitations;
    expect(asked!.params.message).toBe('Deploy the release now?');
    expect(schemaOf(asked!)).toEqual({
      type: 'object',
      properties: {
        'q1.selection': {
          type: 'string',
          title: 'Deploy',
          description: 'Yes: ship it to production\n\nNo: keep the current version',
          oneOf: [
            { const: 'option1', title: 'Yes' },
            { const: 'option2', title: 'No' },
          ],
        },
      },
      required: ['q1.selection'],
    });
  });

  it('asks a multi-select question as an array with items.anyOf and maxItems', async () => {
    peers = await linkPeers({
      capabilities: FORM_ONLY,
      person: () => accept({ 'q1.selection': ['option3', 'option1'] }),
    });
    const outcome = await peers.service.ask({
      questions: [
        { question: 'Which checks run?', options: ['lint', 'test', 'bench'], allowMultiple: true },
      ],
    });

    expect(outcome).toEqual({
      status: 'answered',
      answeredBy: BY_CLIENT,
      answers: [
        { questionId: 'q1', response: { kind: 'selection', selections: ['bench', 'lint'] } },
      ],
    });
    expect(schemaOf(peers.elicitations[0]!).properties['q1.selection']).toEqual({
      type: 'array',
      title: 'Q1',
      minItems: 1,
      maxItems: 3,
      items: {
        anyOf: [
          { const: 'option1', title: 'lint' },
          { const: 'option2', title: 'test' },
          { const: 'option3', title: 'bench' },
        ],
      },
    });
  });

  it('asks for typed text as a required string with maxLength and records the text', async () => {
    peers = await linkPeers({
      capabilities: FORM_ONLY,
      person: () => accept({ 'q1.text': 'release/2.4' }),
    });
    const outcome = await peers.service.ask({ questions: [{ question: 'Name the branch' }] });

    expect(outcome).toEqual({
      status: 'answered',
      answeredBy: BY_CLIENT,
      answers: [{ questionId: 'q1', response: { kind: 'freeform', text: 'release/2.4' } }],
    });
    expect(schemaOf(peers.elicitations[0]!)).toEqual({
      type: 'object',
      properties: {
        'q1.text': { type: 'string', title: 'Q1', minLength: 1, maxLength: 32768 },
      },
      required: ['q1.text'],
    });
  });

  it('offers a comment as an optional string and records it with the picked option', async () => {
    peers = await linkPeers({
      capabilities: FORM_ONLY,
      person: () => accept({ 'q1.selection': 'option1', 'q1.comment': 'after the backup' }),
    });
    const outcome = await peers.service.ask({ questions: [{ ...deploy, allowComment: true }] });

    expect(outcome).toEqual({
      status: 'answered',
      answeredBy: BY_CLIENT,
      answers: [
        {
          questionId: 'q1',
          response: { kind: 'selection', selections: ['Yes'], comment: 'after the backup' },
        },
      ],
    });
    const schema = schemaOf(peers.elicitations[0]!);
    expect(schema.properties['q1.comment']).toMatchObject({ type: 'string', maxLength: 32768 });
    expect(schema.required).toEqual(['q1.selection']);
  });

  it('makes every wizard question optional, records a question left empty as skipped', async () => {
    peers = await linkPeers({
      capabilities: FORM_ONLY,
      person: () => accept({ 'q1.selection': 'option1', 'q2.text': '' }),
    });
    const outcome = await peers.service.ask({
      questions: [deploy, { question: 'Anything to tell the on-call engineer?', header: 'Note' }],
    });

    expect(outcome).toEqual({
      status: 'answered',
      answeredBy: BY_CLIENT,
      answers: [
        { questionId: 'q1', response: { kind: 'selection', selections: ['Yes'] } },
        { questionId: 'q2', response: null },
      ],
    });
    const asked = peers.elicitations[0]!;
    expect(asked.params.message).toBe(
      '2 questions: Deploy, Note.\n\nAnswer at least one question; leave a question empty to skip it.',
    );
    const schema = schemaOf(asked);
    expect(schema.required).toBeUndefined();
    expect(schema.properties['q2.text']).toEqual({
      type: 'string',
      title: 'Note',
      description: 'Anything to tell the on\\-call engineer?',
      maxLength: 32768,
    });
  });

  it('asks a wizard again, saying why, when every question was left empty', async () => {
    peers = await linkPeers({
      capabilities: FORM_ONLY,
      person: (_, seen) => accept(seen === 1 ? {} : { 'q2.text': 'page me' }),
    });
    const outcome = await peers.service.ask({
      questions: [deploy, { question: 'Anything else?', header: 'Note' }],
    });

    expect(outcome).toEqual({
      status: 'answered',
      answeredBy: BY_CLIENT,
      answers: [
        { questionId: 'q1', response: null },
        { questionId: 'q2', response: { kind: 'freeform', text: 'page me' } },
      ],
    });
    expect(peers.elicitations).toHaveLength(2);
    expect(peers.elicitations[1]!.params.message).toMatch(
      /^Your answer was not recorded: Every question was skipped; at least one question of a wizard must be answered/,
    );
  });

  it('takes either an option or typed text where a question allows both, and asks again for both', async () => {
    peers = await linkPeers({
      capabilities: FORM_ONLY,
      person: (_, seen) =>
        accept(
          seen === 1 ? { 'q1.selection': 'option1', 'q1.text': 'Friday' } : { 'q1.text': 'Friday' },
        ),
    });
    const outcome = await peers.service.ask({ questions: [{ ...deploy, allowFreeform: true }] });

    expect(outcome).toEqual({
      status: 'answered',
      answeredBy: BY_CLIENT,
      answers: [{ questionId: 'q1', response: { kind: 'freeform', text: 'Friday' } }],
    });
    const schema = schemaOf(peers.elicitations[0]!);
    expect(Object.keys(schema.properties)).toEqual(['q1.selection', 'q1.text']);
    expect(schema.required).toBeUndefined();
    expect(peers.elicitations[1]!.params.message).toContain(
      'has both a picked option and typed text; give one of them\\.',
    );
  });

  it('refuses text over 32 KiB of UTF-8 that maxLength (characters) let through', async () => {
    const euros = '€'.repeat(12_000); // 12 000 characters, 36 000 bytes
    peers = await linkPeers({
      capabilities: FORM_ONLY,
      person: (_, seen) => accept({ 'q1.text': seen === 1 ? euros : '€ 12' }),
    });
    const outcome = await peers.service.ask({ questions: [{ question: 'Budget?' }] });

    expect(outcome).toEqual({
      status: 'answered',
      answeredBy: BY_CLIENT,
      answers: [{ questionId: 'q1', response: { kind: 'freeform', text: '€ 12' } }],
    });
    expect(peers.elicitations[1]!.params.message).toContain(
      'is 36000 bytes of UTF\\-8; the limit is 32768 bytes',
    );
  });

  it('ends the ask as an invalid answer after maxAttempts replies that break the rules', async () => {
    peers = await linkPeers({
      capabilities: FORM_ONLY,
      provider: { maxAttempts: 2 },
      person: () => accept({}),
    });
    const outcome = await peers.service.ask({
      questions: [deploy, { question: 'Anything else?', header: 'Note' }],
    });

    expect(outcome).toMatchObject({
      status: 'cancelled',
      reason: 'invalid-answer',
      message: expect.stringContaining('Every question was skipped'),
    });
    expect(peers.elicitations).toHaveLength(2);
  });

  it('refuses a reply with a value the form did not offer', async () => {
    peers = await linkPeers({
      capabilities: FORM_ONLY,
      person: () => accept({ 'q1.selection': 'Yes' }),
    });
    const outcome = await peers.service.ask({ questions: [deploy] });

    expect(outcome).toMatchObject({
      status: 'cancelled',
      reason: 'invalid-answer',
      message: expect.stringContaining('does not fit the form'),
    });
  });
});

describe('decline and cancel', () => {
  const planReview = {
    question: 'Approve this plan?',
    header: 'Plan',
    context: '1. migrate\n2. deploy',
    options: ['Approve', 'Reject'],
    intent: { kind: 'plan-review' as const, approve: 'Approve' },
  };

  it('reads a decline as cancelled / user "declined", never as an approval', async () => {
    peers = await linkPeers({
      capabilities: FORM_ONLY,
      // A client that sends the form's content along with a decline: still a decline.
      person: () => ({ action: 'decline', content: { 'q1.selection': 'option1' } }),
    });
    const outcome = await peers.service.ask({ questions: [planReview] });

    expect(outcome).toEqual({ status: 'cancelled', reason: 'user', message: 'declined' });
  });

  it('tells the agent through ask_user that nothing was chosen when the person declines', async () => {
    peers = await linkPeers({
      capabilities: FORM_ONLY,
      person: () => ({ action: 'decline', content: { 'q1.selection': 'option1' } }),
    });
    const tool = createAskUserTool(peers.service);
    const result = await tool.execute('call-1', planReview);

    expect(result.details).toMatchObject({ status: 'cancelled', reason: 'user', answers: [] });
    expect(result.content[0]!.text).toContain('Nothing was chosen');
    expect(result.content[0]!.text).not.toContain('Approve');
  });

  it('reads a cancel as cancelled / user "dismissed"', async () => {
    peers = await linkPeers({ capabilities: FORM_ONLY, person: () => ({ action: 'cancel' }) });
    const outcome = await peers.service.ask({ questions: [planReview] });

    expect(outcome).toEqual({ status: 'cancelled', reason: 'user', message: 'dismissed' });
  });
});

describe('client capabilities and URL mode', () => {
  const dateOrText = { ...deploy, allowFreeform: true };
  const linkFor = (askId: string) => `http://127.0.0.1:9/ask/${encodeURIComponent(askId)}`;

  it('ends the ask cancelled / unavailable for a client without elicitation, asking nothing', async () => {
    peers = await linkPeers({ capabilities: {} });
    const outcome = await peers.service.ask({ questions: [deploy] });

    expect(outcome).toEqual({
      status: 'cancelled',
      reason: 'unavailable',
      message:
        'The MCP client did not declare the elicitation capability, so it cannot ask its user.',
    });
  });

  it('reads an empty elicitation capability as form mode, as older clients declare it', async () => {
    peers = await linkPeers({
      capabilities: { elicitation: {} },
      person: () => accept({ 'q1.selection': 'option1' }),
    });
    const outcome = await peers.service.ask({ questions: [deploy] });

    expect(outcome).toMatchObject({ status: 'answered' });
  });

  it('ends the ask unavailable for a URL-only client when there is no answer page', async () => {
    peers = await linkPeers({ capabilities: URL_ONLY, person: neverAnswers });
    const outcome = await peers.service.ask({ questions: [deploy] });

    expect(outcome).toMatchObject({
      status: 'cancelled',
      reason: 'unavailable',
      message: expect.stringContaining('supports only URL elicitation'),
    });
    expect(peers.elicitations).toHaveLength(0);
  });

  it('sends a question that takes an option or text to the answer page; the page answer settles the ask', async () => {
    peers = await linkPeers({
      capabilities: FORM_AND_URL,
      provider: { urlFor: linkFor },
      person: () => ({ action: 'accept' }),
    });
    const handle = peers.service.start({ questions: [dateOrText] }, {});
    const asked = await peers.nth(1);
    expect(asked.params).toMatchObject({
      mode: 'url',
      elicitationId: handle.id,
      url: linkFor(handle.id),
      message: 'Deploy the release now?\n\nAnswer on the page the link opens.',
    });
    // The in-memory link runs on microtasks: one macrotask later the accept has reached the server.
    await new Promise((done) => setTimeout(done, 0));
    // What the web page does with the person's answer.
    await peers.service.answer(handle.id, [
      { questionId: 'q1', response: { kind: 'freeform', text: 'Friday' } },
    ]);

    expect(await handle.outcome).toEqual({
      status: 'answered',
      answers: [{ questionId: 'q1', response: { kind: 'freeform', text: 'Friday' } }],
    });
    await expect.poll(() => peers!.completed).toEqual([handle.id]);
    expect(asked.signal.aborted).toBe(false);
  });

  it('takes the link from a urlFor that resolves to it, as the web answer server’s linkFor does', async () => {
    peers = await linkPeers({
      capabilities: FORM_AND_URL,
      provider: { urlFor: async (askId) => linkFor(askId) },
      person: neverAnswers,
    });
    const handle = peers.service.start({ questions: [dateOrText] }, {});
    const asked = await peers.nth(1);
    expect(asked.params).toMatchObject({ mode: 'url', url: linkFor(handle.id) });
    await peers.service.cancel(handle.id);
    expect(await handle.outcome).toMatchObject({ status: 'cancelled' });
  });

  it('withdraws the link request when the page is answered before the client replies', async () => {
    peers = await linkPeers({
      capabilities: FORM_AND_URL,
      provider: { urlFor: linkFor },
      person: neverAnswers,
    });
    const handle = peers.service.start({ questions: [dateOrText] }, {});
    const asked = await peers.nth(1);
    await peers.service.answer(handle.id, [
      { questionId: 'q1', response: { kind: 'selection', selections: ['yes'] } },
    ]);

    expect(await handle.outcome).toEqual({
      status: 'answered',
      answers: [{ questionId: 'q1', response: { kind: 'selection', selections: ['Yes'] } }],
    });
    await expect.poll(() => asked.signal.aborted).toBe(true);
    expect(peers.completed).toEqual([]);
  });

  it('tells the client the link’s elicitation is complete when the ask times out', async () => {
    peers = await linkPeers({
      capabilities: URL_ONLY,
      provider: { urlFor: linkFor },
      person: () => ({ action: 'accept' }),
    });
    const handle = peers.service.start({ questions: [deploy] }, { timeoutMs: 1_000 });

    expect(await handle.outcome).toMatchObject({ status: 'timedOut' });
    await expect.poll(() => peers!.completed).toEqual([handle.id]);
  });

  it('reads a declined link as cancelled / user "declined"', async () => {
    peers = await linkPeers({
      capabilities: URL_ONLY,
      provider: { urlFor: linkFor },
      person: () => ({ action: 'decline' }),
    });
    const outcome = await peers.service.ask({ questions: [deploy] });

    expect(outcome).toEqual({ status: 'cancelled', reason: 'user', message: 'declined' });
    expect(peers.elicitations[0]!.params.mode).toBe('url');
  });

  it('asks the same question in a form when the client cannot open links', async () => {
    peers = await linkPeers({
      capabilities: FORM_ONLY,
      provider: { urlFor: linkFor },
      person: () => accept({ 'q1.selection': 'option1' }),
    });
    const outcome = await peers.service.ask({ questions: [dateOrText] });

    expect(outcome).toMatchObject({ status: 'answered' });
    expect(peers.elicitations[0]!.params.mode).toBe('form');
  });

  it('asks in a form when the client could open a link but the form expresses the ask', async () => {
    peers = await linkPeers({
      capabilities: FORM_AND_URL,
      provider: { urlFor: linkFor },
      person: () => accept({ 'q1.selection': 'option1' }),
    });
    await peers.service.ask({ questions: [deploy] });

    expect(peers.elicitations[0]!.params.mode).toBe('form');
  });
});

describe('related request', () => {
  it('sends the form and the link’s completion with the request the ask belongs to', async () => {
    const relatedRequestId = vi.fn(() => 42);
    peers = await linkPeers({
      capabilities: FORM_AND_URL,
      provider: { relatedRequestId, urlFor: (id) => `http://127.0.0.1:9/${id}` },
      person: (elicitation) =>
        elicitation.params.mode === 'url'
          ? { action: 'accept' }
          : accept({ 'q1.selection': 'option1' }),
    });
    await peers.service.ask({ questions: [deploy] }, { toolCallId: 'call-7' });
    const link = peers.service.start(
      { questions: [{ ...deploy, allowFreeform: true }] },
      { timeoutMs: 1_000 },
    );
    await link.outcome;
    await expect.poll(() => peers!.completed).toEqual([link.id]);

    expect(relatedRequestId).toHaveBeenCalledWith(
      expect.objectContaining({ toolCallId: 'call-7' }),
    );
    expect(peers.sent.filter((message) => message.method?.includes('elicitation'))).toEqual([
      { method: 'elicitation/create', relatedRequestId: 42 },
      { method: 'elicitation/create', relatedRequestId: 42 },
      { method: 'notifications/elicitation/complete', relatedRequestId: 42 },
    ]);
  });

  it('leaves requests unrelated without the option', async () => {
    peers = await linkPeers({
      capabilities: FORM_ONLY,
      person: () => accept({ 'q1.selection': 'option1' }),
    });
    await peers.service.ask({ questions: [deploy] });

    expect(peers.sent.filter((message) => message.method === 'elicitation/create')).toEqual([
      { method: 'elicitation/create', relatedRequestId: undefined },
    ]);
  });
});

describe('setup', () => {
  it('refuses what is not an MCP server, and bad options, naming the value', () => {
    expect(() => createElicitationProvider({} as never)).toThrow(
      "Expected `server` to be the MCP SDK's low-level Server (e.g. `mcpServer.server`)",
    );
    const { server } = new McpServer({ name: 'x', version: '0' });
    expect(() => createElicitationProvider(server, { maxAttempts: 0 })).toThrow(
      'Expected `maxAttempts` to be an integer from 1 and up, got 0.',
    );
    expect(() => createElicitationProvider(server, { urlFor: 'http://x' as never })).toThrow(
      'Expected `urlFor` to be a function',
    );
  });

  it('ends an ask unavailable while no client has connected', async () => {
    const service = createInteractionService();
    service.registerProvider(
      createElicitationProvider(new McpServer({ name: 'x', version: '0' }).server),
    );

    expect(await service.ask({ questions: [deploy] })).toEqual({
      status: 'cancelled',
      reason: 'unavailable',
      message: 'No MCP client has connected to the server yet, so nobody can be asked.',
    });
    await service.close();
  });
});

describe('deadline and abort', () => {
  it('does not cancel a request the client already answered when the ask settles', async () => {
    peers = await linkPeers({
      capabilities: FORM_ONLY,
      person: () => accept({ 'q1.selection': 'option1' }),
    });
    await peers.service.ask({ questions: [deploy] });
    await peers.service.ask({ questions: [deploy] }, { timeoutMs: 60_000 });

    expect(peers.sent.map((message) => message.method)).not.toContain('notifications/cancelled');
  });

  it('cancels the client request when the ask times out', async () => {
    peers = await linkPeers({ capabilities: FORM_ONLY, person: neverAnswers });
    const outcome = await peers.service.ask({ questions: [deploy] }, { timeoutMs: 1_000 });

    expect(outcome).toMatchObject({ status: 'timedOut' });
    const asked = await peers.nth(1);
    await expect.poll(() => asked.signal.aborted).toBe(true);
  });

  it('cancels the client request with the cause when the ask is aborted', async () => {
    peers = await linkPeers({ capabilities: FORM_ONLY, person: neverAnswers });
    const controller = new AbortController();
    const outcome = peers.service.ask({ questions: [deploy] }, { signal: controller.signal });
    const asked = await peers.nth(1);
    controller.abort(new Error('the agent run was stopped'));

    expect(await outcome).toMatchObject({
      status: 'aborted',
      message: 'the agent run was stopped',
    });
    await expect.poll(() => asked.signal.aborted).toBe(true);
    expect(String(asked.signal.reason)).toContain('the agent run was stopped');
  });
});

describe('text from the model', () => {
  it('is escaped as the form codec escapes it, and answers keep the option’s own spelling', async () => {
    const hostile = {
      question: 'Run <script>alert(1)</script> [now](javascript:alert(1))?',
      header: 'Red\u001b[31m',
      context: '# Heading\n\u202eevil',
      options: [{ title: '**Yes**\u0007', description: '<img src=x onerror=alert(1)>' }, 'No'],
      allowComment: true,
    };
    peers = await linkPeers({
      capabilities: FORM_ONLY,
      person: () => accept({ 'q1.selection': 'option1' }),
    });
    const outcome = await peers.service.ask({ questions: [hostile] });

    expect(outcome).toEqual({
      status: 'answered',
      answeredBy: BY_CLIENT,
      answers: [
        { questionId: 'q1', response: { kind: 'selection', selections: ['**Yes**\u0007'] } },
      ],
    });
    const asked = peers.elicitations[0]!;
    expect(asked.params.message).toBe(
      'Run \\<script\\>alert\\(1\\)\\</script\\> \\[now\\]\\(javascript\\:alert\\(1\\)\\)?\n\n\\# Heading\\\n\\\\u202eevil',
    );
    const selection = schemaOf(asked).properties['q1.selection'];
    expect(selection).toMatchObject({
      title: 'Red\\x1b[31m',
      description: '\\*\\*Yes\\*\\*\\\\x07: \\<img src\\=x onerror\\=alert\\(1\\)\\>',
      oneOf: [
        { const: 'option1', title: '**Yes**\\x07' },
        { const: 'option2', title: 'No' },
      ],
    });
    expect(stringsIn(asked.params).filter(hasRawControl)).toEqual([]);
  });
});

function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (typeof value !== 'object' || value === null) return [];
  return Object.values(value).flatMap(stringsIn);
}

/** A control character (other than a line break) or a direction override, shown raw. */
function hasRawControl(text: string): boolean {
  return [...text].some((char) => {
    const code = char.codePointAt(0)!;
    return (code < 0x20 && code !== 0x0a) || (code >= 0x7f && code <= 0x9f) || code === 0x202e;
  });
}
