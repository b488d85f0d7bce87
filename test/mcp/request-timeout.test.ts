/** The elicitation request lives exactly as long as the ask: the deadline is its timeout, not the SDK's 60 s. */
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport, McpServer } from '@modelcontextprotocol/server';
import { normalizeAskUserRequest } from 'ask-engine';
import { createElicitationProvider } from 'ask-engine/mcp';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});

async function connect() {
  const mcp = new McpServer({ name: 'deadline-test', version: '0.0.0' });
  const client = new Client(
    { name: 'person', version: '0.0.0' },
    { capabilities: { elicitation: { form: {} } } },
  );
  const asked: AbortSignal[] = [];
  client.setRequestHandler('elicitation/create', (_request, ctx) => {
    asked.push(ctx.mcpReq.signal);
    return new Promise(() => {}); // the person never answers
  });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await Promise.all([mcp.connect(serverTransport), client.connect(clientTransport)]);
  await mcp.server.ping(); // request id 0: see mcp-peers.ts
  return { mcp, client, asked };
}

function request() {
  const normalized = normalizeAskUserRequest({ question: 'Deploy?', options: ['Yes', 'No'] });
  if (!normalized.ok) throw normalized.error;
  return { questions: normalized.value.questions };
}

it('keeps the request open past 60 s and times it out at the ask deadline', async () => {
  const { mcp, client, asked } = await connect();
  const provider = createElicitationProvider(mcp.server);
  const ask = new AbortController();
  const deadlineAt = Date.now() + 10 * 60_000;
  const outcome = provider.ask(request(), {
    askId: 'ask-1',
    signal: ask.signal,
    deadlineAt,
    reportProgress() {},
  });
  const settled = vi.fn();
  outcome.then(settled, settled);
  await vi.advanceTimersByTimeAsync(0);
  expect(asked).toHaveLength(1);

  await vi.advanceTimersByTimeAsync(61_000);
  expect(asked[0]!.aborted).toBe(false);

  await vi.advanceTimersByTimeAsync(deadlineAt - Date.now());
  expect(asked[0]!.aborted).toBe(true);
  expect(String(asked[0]!.reason)).toContain('Request timed out');
  // The provider leaves the outcome to the service's deadline, which aborts the signal.
  expect(settled).not.toHaveBeenCalled();
  const cause = new Error('deadline reached');
  ask.abort(cause);
  await expect(outcome).rejects.toBe(cause);
  await client.close();
});

it('does not time out an ask without a deadline after the SDK default of 60 s', async () => {
  const { mcp, client, asked } = await connect();
  const provider = createElicitationProvider(mcp.server);
  const ask = new AbortController();
  const outcome = provider.ask(request(), {
    askId: 'ask-2',
    signal: ask.signal,
    reportProgress() {},
  });
  outcome.catch(() => {});
  await vi.advanceTimersByTimeAsync(24 * 60 * 60_000);
  expect(asked).toHaveLength(1);
  expect(asked[0]!.aborted).toBe(false);
  ask.abort(new Error('stop'));
  await expect(outcome).rejects.toThrow('stop');
  expect(asked[0]!.aborted).toBe(true);
  await client.close();
});

it('measures the time left on the clock it is given', async () => {
  const { mcp, client, asked } = await connect();
  // A service clock two minutes behind the wall clock: the deadline is in its time.
  const clock = { now: () => Date.now() - 120_000 };
  const provider = createElicitationProvider(mcp.server, { clock });
  const ask = new AbortController();
  const outcome = provider.ask(request(), {
    askId: 'ask-3',
    signal: ask.signal,
    deadlineAt: clock.now() + 90_000,
    reportProgress() {},
  });
  outcome.catch(() => {});
  await vi.advanceTimersByTimeAsync(89_000);
  expect(asked[0]!.aborted).toBe(false);
  await vi.advanceTimersByTimeAsync(1_000);
  expect(asked[0]!.aborted).toBe(true);
  ask.abort(new Error('deadline'));
  await client.close();
});

it('ends an ask without a deadline unavailable when the client has not replied within the longest timer', async () => {
  const { mcp, client, asked } = await connect();
  const provider = createElicitationProvider(mcp.server);
  const outcome = provider.ask(request(), {
    askId: 'ask-4',
    signal: new AbortController().signal,
    reportProgress() {},
  });
  await vi.advanceTimersByTimeAsync(2 ** 31 - 1);

  expect(await outcome).toEqual({
    status: 'cancelled',
    reason: 'unavailable',
    message:
      'The MCP client did not reply within 2147483647 ms, the longest timeout a timer allows; give the ask a deadline.',
  });
  expect(asked[0]!.aborted).toBe(true);
  await client.close();
});
