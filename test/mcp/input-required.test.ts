/**
 * `ask_user` on the 2026-07-28 era (multi round-trip requests), in memory with the SDK's own
 * v2 clients: the form comes back as `input_required`, the retry settles the ask through the
 * service, and a `requestState` that is not this call's own changes nothing.
 */
import { randomBytes } from 'node:crypto';
import { ProtocolError } from '@modelcontextprotocol/client';
import { createInteractionService, createMemoryAskStore } from 'ask-engine';
import { createAskUserMcpServer } from 'ask-engine/mcp';
import { createAnswerApp } from 'ask-engine/web';
import { describe, expect, it } from 'vitest';
import { connectClient, historyOf, onlyAsk, textOf } from './mrtr-peers.js';

const deploy = { question: 'Deploy the release now?', header: 'Deploy', options: ['Yes', 'No'] };
const pickYes = { action: 'accept', content: { 'q1.selection': 'option1' } } as const;
const pickNo = { action: 'accept', content: { 'q1.selection': 'option2' } } as const;

describe('one ask_user server for both eras', () => {
  it('asks a 2025 client, a client in auto negotiation and one pinned to 2026-07-28, on one endpoint', async () => {
    const server = createAskUserMcpServer();
    const eras = [];
    try {
      for (const mode of ['legacy', 'auto', { pin: '2026-07-28' }] as const) {
        const peer = await connectClient(server, { mode, person: () => pickNo });
        const result = await peer.call(deploy);
        eras.push({
          version: peer.client.getNegotiatedProtocolVersion(),
          text: textOf(result),
          shown: peer.shown.map((params) => params.mode),
        });
        await peer.close();
      }
    } finally {
      await server.service.close();
    }
    const answered = 'The user answered.\n\nDeploy: Deploy the release now?\nSelected: "No"';
    expect(eras).toEqual([
      { version: '2025-11-25', text: answered, shown: ['form'] },
      { version: '2026-07-28', text: answered, shown: ['form'] },
      { version: '2026-07-28', text: answered, shown: ['form'] },
    ]);
  });

  it('returns the form as input_required and records the client as who answered', async () => {
    const server = createAskUserMcpServer();
    const peer = await connectClient(server, { mode: 'auto', manual: true, name: 'my-ide' });
    try {
      const first = await peer.ask(deploy);
      expect(first.resultType).toBe('input_required');
      expect(first.inputRequests.ask_user).toMatchObject({
        method: 'elicitation/create',
        params: { mode: 'form', message: 'Deploy the release now?' },
      });
      const pending = await onlyAsk(server.service);
      expect(pending.state).toBe('deferred');

      const result = await peer.retry(deploy, pickYes, first.requestState);

      expect(textOf(result)).toContain('Selected: "Yes"');
      expect(await server.service.outcome(pending.askId)).toMatchObject({
        status: 'answered',
        answeredBy: { recipient: 'my-ide', channel: 'mcp' },
      });
    } finally {
      await peer.close();
      await server.service.close();
    }
  });
});

describe('a requestState that is not this call’s own', () => {
  async function refusedRetry(
    make: (state: string) => { state: string; args?: unknown },
    serverOptions: Parameters<typeof createAskUserMcpServer>[0] = {},
  ) {
    const server = createAskUserMcpServer(serverOptions);
    const peer = await connectClient(server, { mode: 'auto', manual: true });
    try {
      const first = await peer.ask(deploy);
      const { state, args = deploy } = make(first.requestState);
      const error = await peer.retry(args, pickYes, state).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      const ask = await onlyAsk(server.service);
      const events = (await historyOf(server.service, ask.askId)).map((event) => event.type);
      return { error, ask, events };
    } finally {
      await peer.close();
      await server.service.close();
    }
  }

  it('refuses a tampered one with an MCP error, and the ask stays as it was', async () => {
    const { error, ask, events } = await refusedRetry((state) => ({
      // One character of the MAC changed.
      state: state.slice(0, -2) + (state.at(-2) === 'A' ? 'B' : 'A') + state.at(-1),
    }));

    expect(error).toBeInstanceOf(ProtocolError);
    expect(error).toMatchObject({
      code: -32602,
      data: { reason: 'invalid_request_state', problem: 'signature' },
    });
    expect((error as Error).message).toContain('nothing was answered');
    expect(ask.state).toBe('deferred');
    expect(events).toEqual(['start', 'provider.deferred']);
  });

  it('refuses one sealed for another call (other arguments)', async () => {
    const { error, ask } = await refusedRetry((state) => ({
      state,
      args: { ...deploy, options: ['Yes', 'No', 'Later'] },
    }));

    expect(error).toMatchObject({ code: -32602, data: { problem: 'signature' } });
    expect(ask.state).toBe('deferred');
  });

  it('refuses one sealed by a server with another secret', async () => {
    const store = createMemoryAskStore();
    const other = createAskUserMcpServer({
      service: createInteractionService({ store }),
      secret: randomBytes(32),
    });
    const otherPeer = await connectClient(other, { mode: 'auto', manual: true });
    const foreign = (await otherPeer.ask(deploy)).requestState;
    await otherPeer.close();
    try {
      const { error } = await refusedRetry(() => ({ state: foreign }), {
        service: createInteractionService({ store: createMemoryAskStore() }),
        secret: randomBytes(32),
      });
      expect(error).toMatchObject({ code: -32602, data: { problem: 'signature' } });
    } finally {
      await other.service.close();
    }
  });

  it('refuses an expired one', async () => {
    let now = Date.now();
    const { error, ask } = await refusedRetry(
      (state) => {
        now += 2_000;
        return { state };
      },
      { clock: { now: () => now }, requestStateTtlMs: 1_000 },
    );

    expect(error).toMatchObject({ code: -32602, data: { problem: 'expired' } });
    expect((error as Error).message).toContain('has expired');
    expect(ask.state).toBe('deferred');
  });
});

describe('the retry settles the ask once', () => {
  it('settles once when the same inputResponses come twice; the second is refused as late', async () => {
    const server = createAskUserMcpServer();
    const peer = await connectClient(server, { mode: 'auto', manual: true });
    try {
      const first = await peer.ask(deploy);
      const once = await peer.retry(deploy, pickYes, first.requestState);
      const twice = await peer.retry(deploy, pickNo, first.requestState);

      expect(textOf(twice)).toBe(textOf(once));
      expect(textOf(twice)).toContain('Selected: "Yes"');
      const { askId } = await onlyAsk(server.service);
      const events = await historyOf(server.service, askId);
      expect(events.map((event) => event.type)).toEqual([
        'start',
        'provider.deferred',
        'answer',
        'late-answer',
      ]);
      expect(events[3]).toMatchObject({ data: { source: 'answer' } });
    } finally {
      await peer.close();
      await server.service.close();
    }
  });

  it('returns the answer given meanwhile on the web page, and refuses the retry’s as late', async () => {
    const server = createAskUserMcpServer();
    const page = createAnswerApp({
      service: server.service,
      secret: randomBytes(32),
      baseUrl: 'https://asks.example.test',
    });
    const peer = await connectClient(server, { mode: 'auto', manual: true });
    try {
      const first = await peer.ask(deploy);
      const { askId } = await onlyAsk(server.service);
      const link = await page.linkFor(askId, { recipient: 'ana' });
      const url = new URL(link);
      const posted = await page.request(url.pathname, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams([
          ['token', url.searchParams.get('t')!],
          ['action', 'submit'],
          ['q1.selection', 'option2'],
        ]).toString(),
      });
      expect(posted.status).toBe(200);

      const result = await peer.retry(deploy, pickYes, first.requestState);

      expect(textOf(result)).toContain('Selected: "No"');
      expect(await server.service.outcome(askId)).toMatchObject({
        answeredBy: { recipient: 'ana', channel: 'web' },
      });
      const types = (await historyOf(server.service, askId)).map((event) => event.type);
      expect(types).toEqual(['start', 'provider.deferred', 'answer', 'late-answer']);
    } finally {
      page.close();
      await peer.close();
      await server.service.close();
    }
  });
  it('returns the outcome given elsewhere to a reply it would have refused, instead of the form again', async () => {
    const server = createAskUserMcpServer();
    const peer = await connectClient(server, { mode: 'auto', manual: true });
    try {
      const first = await peer.ask(deploy);
      const { askId } = await onlyAsk(server.service);
      await server.service.answer(askId, [
        { questionId: 'q1', response: { kind: 'selection', selections: ['No'] } },
      ]);

      const result = await peer.retry(
        deploy,
        { action: 'accept', content: { 'q1.selection': 'option9' } },
        first.requestState,
      );

      expect('resultType' in result).toBe(false);
      expect(textOf(result)).toContain('Selected: "No"');
    } finally {
      await peer.close();
      await server.service.close();
    }
  });

  it('tells a retry that comes after the deadline that the ask timed out', async () => {
    const server = createAskUserMcpServer();
    const peer = await connectClient(server, { mode: 'auto', manual: true });
    try {
      const soon = { ...deploy, timeout: 1_000 };
      const first = await peer.ask(soon);
      const { askId } = await onlyAsk(server.service);
      expect(await server.service.outcome(askId)).toMatchObject({ status: 'timedOut' });

      const result = await peer
        .retry(soon, pickYes, first.requestState)
        .catch((error: unknown) => ({ content: [{ type: 'text', text: String(error) }] }));

      expect(textOf(result)).toMatch(/^No answer was given: the question timed out/);
    } finally {
      await peer.close();
      await server.service.close();
    }
  });
});

describe('what the person does with the form', () => {
  it.each([
    ['decline', 'declined'],
    ['cancel', 'dismissed'],
  ] as const)('%s ends the ask cancelled by the user, never an answer', async (action, message) => {
    const server = createAskUserMcpServer();
    const peer = await connectClient(server, {
      mode: { pin: '2026-07-28' },
      // A decline that carries content is still no answer.
      person: () => ({ action, content: { 'q1.selection': 'option1' } }),
    });
    try {
      const result = await peer.call({
        question: 'Approve the plan?',
        context: '1. migrate\n2. deploy',
        options: ['Approve', 'Reject'],
        intent: { kind: 'plan-review', approve: 'Approve' },
      });

      expect(result.isError).toBeUndefined();
      expect(textOf(result)).toContain(`Message: "${message}"`);
      const { askId } = await onlyAsk(server.service);
      expect(await server.service.outcome(askId)).toEqual({
        status: 'cancelled',
        reason: 'user',
        message,
      });
    } finally {
      await peer.close();
      await server.service.close();
    }
  });

  it('sends the form back with the reason, and ends the ask cancelled once maxRounds forms were refused', async () => {
    const server = createAskUserMcpServer({ maxRounds: 2 });
    const peer = await connectClient(server, {
      mode: 'auto',
      // Both an option and typed text on a pick-or-type question: refused every time.
      person: () => ({ action: 'accept', content: { 'q1.selection': 'option1', 'q1.text': 'x' } }),
    });
    try {
      const result = await peer.call({ ...deploy, allowFreeform: true });

      expect(peer.shown).toHaveLength(2);
      expect(peer.shown[1]!.message).toMatch(
        /^Your answer was not recorded: .*both a picked option/,
      );
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('No valid answer after 2 forms (maxRounds 2)');
      const { askId } = await onlyAsk(server.service);
      expect(await server.service.outcome(askId)).toMatchObject({ status: 'cancelled' });
    } finally {
      await peer.close();
      await server.service.close();
    }
  });
});

describe('a client that declares URL elicitation', () => {
  it('gets the answer page’s link, and its retry returns the answer given there', async () => {
    let page!: ReturnType<typeof createAnswerApp>;
    const server = createAskUserMcpServer({ urlFor: (askId) => page.linkFor(askId) });
    page = createAnswerApp({
      service: server.service,
      secret: randomBytes(32),
      baseUrl: 'https://asks.example.test',
    });
    const peer = await connectClient(server, {
      mode: 'auto',
      capabilities: { elicitation: { url: {} } },
      manual: true,
    });
    try {
      const first = await peer.ask(deploy);
      const { params } = first.inputRequests.ask_user!;
      expect(params).toMatchObject({ mode: 'url' });
      const url = new URL((params as { url: string }).url);
      const retried = peer.retry(deploy, { action: 'accept' }, first.requestState);
      const posted = await page.request(url.pathname, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams([
          ['token', url.searchParams.get('t')!],
          ['action', 'submit'],
          ['q1.selection', 'option1'],
        ]).toString(),
      });
      expect(posted.status).toBe(200);

      expect(textOf(await retried)).toContain('Selected: "Yes"');
    } finally {
      page.close();
      await peer.close();
      await server.service.close();
    }
  });
});
