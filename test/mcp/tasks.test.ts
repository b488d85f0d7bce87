/**
 * `ask_user` as an MCP task (the Tasks extension, 2026-07-28), driven by hand through a real v2
 * client: the task's status read from the ask in the store, answered on the web page, through
 * `tasks/update` or cancelled through `tasks/cancel`, and refused for ids it never issued.
 */
import { randomBytes } from 'node:crypto';
import { type ClientCapabilities, ProtocolError } from '@modelcontextprotocol/client';
import {
  type AskAuditEvent,
  createInteractionService,
  createMemoryAskStore,
  type InteractionService,
  type InteractionServiceOptions,
} from 'ask-engine';
import { createAskUserMcpServer, TASK_CANCELLED } from 'ask-engine/mcp';
import { type AnswerApp, createAnswerApp } from 'ask-engine/web';
import { afterEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { connectTaskClient, TASKS, type TaskPeers } from './task-peers.js';

const BASE_URL = 'https://asks.example.test';
const deploy = { question: 'Deploy the release now?', options: ['Yes', 'No'] };
const yes = [{ questionId: 'q1', response: { kind: 'selection', selections: ['Yes'] } }];

let open: { peers: TaskPeers[]; service: InteractionService; app: AnswerApp }[] = [];
afterEach(async () => {
  for (const { peers, service, app } of open) {
    for (const each of peers) await each.close();
    app.close();
    await service.close();
  }
  open = [];
});

/**
 * The ask_user server over a service, a web answer app on the same service (the person's other
 * surface), and a client that declares Tasks; `connect` adds another client of the same server.
 */
async function setup(
  options: {
    clientName?: string;
    capabilities?: ClientCapabilities;
    answerPage?: boolean;
    service?: Omit<InteractionServiceOptions, 'store'>;
  } = {},
) {
  const { answerPage, service: serviceOptions, ...client } = options;
  const service = createInteractionService({ ...serviceOptions, store: createMemoryAskStore() });
  const app = createAnswerApp({ service, secret: randomBytes(32), baseUrl: BASE_URL });
  const server = createAskUserMcpServer({
    service,
    ...(answerPage === true ? { urlFor: (askId: string) => app.linkFor(askId) } : {}),
  });
  const opened = { peers: [] as TaskPeers[], service, app };
  open.push(opened);
  const connect = async (more: Parameters<typeof connectTaskClient>[1] = {}) => {
    const peers = await connectTaskClient(server, more);
    opened.peers.push(peers);
    return peers;
  };
  const peers = await connect(client);
  /** Posts "Yes" on the ask's page through `link`, as the person it was sent to does. */
  const answerOnPage = async (link: string) => {
    const url = new URL(link);
    return app.request(url.pathname, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams([
        ['token', url.searchParams.get('t')!],
        ['action', 'submit'],
        ['q1.selection', 'option1'],
      ]).toString(),
    });
  };
  return { service, app, peers, connect, answerOnPage };
}

/** The ask a task stands for: the one ask the service has. */
async function onlyAsk(service: InteractionService) {
  const { items } = await service.list();
  expect(items).toHaveLength(1);
  return items[0]!;
}

/** The MCP error a request was refused with. */
async function refusal(request: Promise<unknown>): Promise<ProtocolError> {
  const error = await request.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ProtocolError);
  return error as ProtocolError;
}

async function history(service: InteractionService, askId: string) {
  const events: AskAuditEvent[] = [];
  for await (const event of service.history(askId)) events.push(event);
  return events;
}

describe('tools/call of ask_user from a client that declares Tasks', () => {
  it('returns a task asking its form, which completes once the person answers on the web page', async () => {
    const { service, app, peers, answerOnPage } = await setup();
    const created = await peers.callAskUser(deploy);
    expect(created).toMatchObject({ resultType: 'task', status: 'input_required' });
    const taskId = created.taskId as string;
    // Unguessable: 256 random bits, and not the ask's id.
    expect(taskId).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const ask = await onlyAsk(service);
    expect(taskId).not.toContain(ask.askId);
    expect(JSON.stringify(ask)).not.toContain(taskId);

    const waiting = await peers.get(taskId);
    expect(waiting).toMatchObject({ taskId, status: 'input_required', ttlMs: null });
    expect(waiting.inputRequests).toEqual({
      ask_user: {
        method: 'elicitation/create',
        params: {
          mode: 'form',
          message: expect.stringContaining('Deploy the release now?'),
          requestedSchema: {
            type: 'object',
            properties: {
              'q1.selection': expect.objectContaining({
                oneOf: [
                  { const: 'option1', title: 'Yes' },
                  { const: 'option2', title: 'No' },
                ],
              }),
            },
            required: ['q1.selection'],
          },
        },
      },
    });

    expect((await answerOnPage(await app.linkFor(ask.askId))).status).toBe(200);
    const done = await peers.get(taskId);
    expect(done).toMatchObject({ taskId, status: 'completed' });
    expect(done.inputRequests).toBeUndefined();
    expect(done.result).toEqual({
      content: [{ type: 'text', text: expect.stringContaining('"Yes"') }],
    });
    expect((await service.get(ask.askId))?.outcome).toMatchObject({
      status: 'answered',
      answers: yes,
    });
  });

  it('settles the ask once through tasks/update: a second update changes nothing and is audited', async () => {
    const { service, app, peers, answerOnPage } = await setup({ clientName: 'claude-code' });
    const { taskId } = (await peers.callAskUser(deploy)) as { taskId: string };
    const link = await app.linkFor((await onlyAsk(service)).askId);
    const accept = { ask_user: { action: 'accept', content: { 'q1.selection': 'option1' } } };
    await peers.update(taskId, accept);
    const done = await peers.get(taskId);
    expect(done.status).toBe('completed');
    const ask = await onlyAsk(service);
    expect(ask.outcome).toEqual({
      status: 'answered',
      answers: yes,
      answeredBy: { recipient: 'claude-code', channel: 'mcp' },
    });

    const no = { ask_user: { action: 'accept', content: { 'q1.selection': 'option2' } } };
    await peers.update(taskId, no);
    expect((await answerOnPage(link)).status).not.toBe(200);
    expect((await peers.get(taskId)).result).toEqual(done.result);
    const events = (await history(service, ask.askId)).map((event) => event.type);
    expect(events.filter((type) => type === 'answer')).toHaveLength(1);
    // Both late tries (the second update, the page) are recorded, and neither answered.
    expect(events.filter((type) => type === 'late-answer')).toHaveLength(2);
  });

  it('refuses an answer that breaks the form with a clear MCP error, and keeps asking', async () => {
    const { peers } = await setup();
    const { taskId } = (await peers.callAskUser(deploy)) as { taskId: string };
    const wrong = { ask_user: { action: 'accept', content: { 'q1.selection': 'option7' } } };
    const error = await refusal(peers.update(taskId, wrong));
    expect(error.code).toBe(-32602);
    expect(error.message).toContain('"option7"');
    expect(error.message).toContain('option1, option2');
    // A form accepted without content is an answer missing, not a link opened.
    const empty = await refusal(peers.update(taskId, { ask_user: { action: 'accept' } }));
    expect(empty.code).toBe(-32602);
    expect(empty.message).toContain('has no answer');
    expect((await peers.get(taskId)).status).toBe('input_required');
  });

  it('reports a decline as the completed tool result, never as an answer', async () => {
    const { service, peers } = await setup();
    const { taskId } = (await peers.callAskUser(deploy)) as { taskId: string };
    await peers.update(taskId, { ask_user: { action: 'decline' } });
    const done = await peers.get(taskId);
    expect(done.status).toBe('completed');
    expect(done.result).toEqual({ content: [{ type: 'text', text: expect.any(String) }] });
    expect(JSON.stringify(done.result)).toContain('declined');
    expect((await onlyAsk(service)).outcome).toEqual({
      status: 'cancelled',
      reason: 'user',
      message: 'declined',
    });
  });

  it('cancels the ask through tasks/cancel, and the task reports cancelled', async () => {
    const { service, peers } = await setup();
    const { taskId } = (await peers.callAskUser(deploy)) as { taskId: string };
    expect(await peers.cancel(taskId)).not.toHaveProperty('status');
    expect(await peers.get(taskId)).toMatchObject({ taskId, status: 'cancelled' });
    expect((await onlyAsk(service)).outcome).toEqual({
      status: 'cancelled',
      reason: 'user',
      message: TASK_CANCELLED,
    });
    // A late answer through the task changes nothing.
    await peers.update(taskId, {
      ask_user: { action: 'accept', content: { 'q1.selection': 'option1' } },
    });
    expect((await peers.get(taskId)).status).toBe('cancelled');
  });

  it('works for a polling client that shows no elicitation, and completes on the page’s answer', async () => {
    const { service, app, peers, connect, answerOnPage } = await setup();
    const { taskId } = (await peers.callAskUser(deploy)) as { taskId: string };
    // Another client of the user's (a phone app) that takes tasks but shows no forms.
    const watcher = await connect({ capabilities: { extensions: { [TASKS]: {} } } });
    const working = await watcher.get(taskId);
    expect(working).toMatchObject({ status: 'working', statusMessage: expect.any(String) });
    expect(working.inputRequests).toBeUndefined();
    expect((await peers.get(taskId)).status).toBe('input_required');
    await answerOnPage(await app.linkFor((await onlyAsk(service)).askId));
    expect((await watcher.get(taskId)).status).toBe('completed');
  });

  it('is no task for a client that cannot be asked: the call ends unavailable at once', async () => {
    const { service, connect } = await setup();
    const none = await connect({ capabilities: { extensions: { [TASKS]: {} } } });
    const result = await none.callAskUser(deploy);
    expect(result).not.toHaveProperty('taskId');
    expect(result).toMatchObject({ isError: true });
    expect(JSON.stringify(result.content)).toContain('did not declare the elicitation capability');
    expect((await onlyAsk(service)).outcome).toMatchObject({
      status: 'cancelled',
      reason: 'unavailable',
    });
  });

  it('asks a client that takes only links through the signed answer page', async () => {
    const { service, app, peers, answerOnPage } = await setup({
      capabilities: { elicitation: { url: {} }, extensions: { [TASKS]: {} } },
      answerPage: true,
    });
    const { taskId } = (await peers.callAskUser(deploy)) as { taskId: string };
    const ask = await onlyAsk(service);
    const waiting = await peers.get(taskId);
    expect(waiting.inputRequests).toEqual({
      ask_user: {
        method: 'elicitation/create',
        params: {
          mode: 'url',
          url: expect.stringMatching(/^https:\/\/asks\.example\.test\/.*\?t=/),
          message: expect.stringContaining('Deploy the release now?'),
        },
      },
    });
    // Accepting a link only opens the page: nothing is recorded until the page is answered.
    await peers.update(taskId, { ask_user: { action: 'accept' } });
    expect((await peers.get(taskId)).status).toBe('input_required');
    await answerOnPage(await app.linkFor(ask.askId));
    expect((await peers.get(taskId)).status).toBe('completed');
  });

  it('completes with the tool’s timed-out result once the deadline passes, never an answer', async () => {
    const clock = new SimulatedClock();
    const { peers } = await setup({ service: { clock, sweepIntervalMs: 5 } });
    const { taskId } = (await peers.callAskUser({ ...deploy, timeout: 60_000 })) as {
      taskId: string;
    };
    clock.increment(59_000);
    expect((await peers.get(taskId)).status).toBe('input_required');
    clock.increment(2_000);
    // Deferred to its page, the ask is timed out by a sweep of the store (on the same clock).
    let task = await peers.get(taskId);
    for (let poll = 0; task.status !== 'completed' && poll < 500; poll++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      task = await peers.get(taskId);
    }
    expect(task.status).toBe('completed');
    expect(task.result).toEqual({
      content: [
        {
          type: 'text',
          text: expect.stringContaining('timed out after 60 s and nothing was chosen'),
        },
      ],
    });
  });

  it('returns the tool’s own error for arguments it refuses, and no task', async () => {
    const { service, peers } = await setup();
    const result = await peers.callAskUser({ question: 'Which?', options: ['A', 'A'] });
    expect(result).not.toHaveProperty('taskId');
    expect(result).toMatchObject({ isError: true });
    expect((await service.list()).items).toHaveLength(0);
  });
});

describe('a task id the server never issued', () => {
  it('is refused with a clear MCP error by tasks/get, tasks/update and tasks/cancel', async () => {
    const { service, peers } = await setup();
    const { taskId } = (await peers.callAskUser(deploy)) as { taskId: string };
    const ask = await onlyAsk(service);
    const other = await setup();
    const { taskId: foreign } = (await other.peers.callAskUser(deploy)) as { taskId: string };
    const tampered = `${taskId.slice(0, 10)}${taskId[10] === 'A' ? 'B' : 'A'}${taskId.slice(11)}`;
    const unknown = randomBytes(32).toString('base64url');
    for (const id of [foreign, tampered, unknown, ask.askId, 'not a task id']) {
      for (const request of [
        peers.get(id),
        peers.update(id, { ask_user: { action: 'decline' } }),
        peers.cancel(id),
      ]) {
        const error = await refusal(request);
        expect(error.code).toBe(-32602);
        expect(error.message).toContain(`Unknown task ${JSON.stringify(id)}`);
      }
    }
    // Nothing changed: the task still asks, the other server's task too.
    expect((await peers.get(taskId)).status).toBe('input_required');
    expect((await other.peers.get(foreign)).status).toBe('input_required');
  });

  it('is refused to a client that does not declare Tasks on the request', async () => {
    const { peers, connect } = await setup();
    const { taskId } = (await peers.callAskUser(deploy)) as { taskId: string };
    const plain = await connect({ capabilities: { elicitation: { form: {} } } });
    for (const request of [
      plain.get(taskId),
      plain.update(taskId, { ask_user: { action: 'decline' } }),
      plain.cancel(taskId),
    ]) {
      const error = await refusal(request);
      expect(error.code).toBe(-32021);
      expect(error.data).toEqual({
        requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } },
      });
    }
    expect((await peers.get(taskId)).status).toBe('input_required');
  });
});
