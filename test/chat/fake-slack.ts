/**
 * A local stand-in for Slack's Web API (the adapter's `apiUrl` points here) that records every
 * call, and requests signed as Slack signs them (v0 HMAC-SHA256 over `v0:<timestamp>:<body>`).
 */
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One Web API call as the adapter made it: the method and its arguments. */
export interface SlackCall {
  method: string;
  args: Record<string, unknown>;
  /** What the fake answered (`ts` of a posted message). */
  result: Record<string, unknown>;
}

export interface FakeSlack {
  /** The adapter's `apiUrl`. */
  apiUrl: string;
  calls: SlackCall[];
  /** Methods to fail, each with the Slack error to answer for the arguments it refuses. */
  failing: Map<string, (args: Record<string, unknown>) => string | undefined>;
  /** The calls of one method, in order. */
  callsOf(method: string): SlackCall[];
  close(): Promise<void>;
}

export async function startFakeSlack(): Promise<FakeSlack> {
  const calls: SlackCall[] = [];
  const failing: FakeSlack['failing'] = new Map();
  let ts = 1_700_000_000;
  const server = createServer(async (request, response) => {
    const method = (request.url ?? '').replace(/^\/api\//, '').split('?')[0] as string;
    const args = await readArgs(request);
    const error = failing.get(method)?.(args);
    const result =
      error === undefined ? reply(method, args, () => `${ts++}.000100`) : { ok: false, error };
    calls.push({ method, args, result });
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify(result));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    apiUrl: `http://127.0.0.1:${port}/api/`,
    calls,
    failing,
    callsOf: (method) => calls.filter((call) => call.method === method),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function reply(
  method: string,
  args: Record<string, unknown>,
  nextTs: () => string,
): Record<string, unknown> {
  switch (method) {
    case 'auth.test':
      return { ok: true, user_id: 'UBOT', bot_id: 'BBOT', user: 'approvals' };
    case 'chat.postMessage': {
      const ts = nextTs();
      return { ok: true, channel: args.channel, ts, message: { ts, text: args.text } };
    }
    case 'chat.update':
      return { ok: true, channel: args.channel, ts: args.ts };
    case 'chat.postEphemeral':
      return { ok: true, message_ts: nextTs() };
    case 'conversations.open':
      return { ok: true, channel: { id: `D${String(args.users)}` } };
    case 'views.open':
      return { ok: true, view: { id: 'V0MODAL' } };
    default:
      return { ok: true };
  }
}

/** The call's arguments: form fields (JSON-valued ones parsed) or a JSON body. */
async function readArgs(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks).toString('utf8');
  if ((request.headers['content-type'] ?? '').includes('json')) {
    return body === '' ? {} : (JSON.parse(body) as Record<string, unknown>);
  }
  const args: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(body)) {
    args[key] = /^[[{]/.test(value) ? JSON.parse(value) : value;
  }
  return args;
}

/** A Slack interactivity request for `payload`, signed with `secret` at `seconds` (default now). */
export function signedSlackRequest(
  url: string,
  payload: unknown,
  secret: string,
  seconds = Math.floor(Date.now() / 1000),
): Request {
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const signature = `v0=${createHmac('sha256', secret).update(`v0:${seconds}:${body}`).digest('hex')}`;
  return new Request(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': String(seconds),
      'x-slack-signature': signature,
    },
    body,
  });
}

/** A `block_actions` payload: `user` clicked the button with `value` on the message `ts`. */
export function blockAction(user: string, channel: string, ts: string, value: string): unknown {
  return {
    type: 'block_actions',
    user: { id: user, username: user.toLowerCase(), name: user.toLowerCase() },
    team: { id: 'T0TEAM' },
    channel: { id: channel },
    container: { type: 'message', message_ts: ts, channel_id: channel },
    message: { ts },
    trigger_id: `trigger-${user}-${value}`,
    response_url: 'https://hooks.slack.invalid/actions/T0TEAM/1/x',
    actions: [
      { type: 'button', action_id: 'ask-engine', block_id: 'b1', value, action_ts: String(ts) },
    ],
  };
}
