/**
 * A loopback HTTP server standing in for a chat platform's Web API: it records every call a
 * Chat SDK adapter makes and answers each from the first route that matches, so a test reads
 * what a person would see (the card posted, the card edited, the private notice) from the
 * requests themselves. The per-platform fakes (fake-discord-api.ts, fake-teams-api.ts,
 * fake-gchat-api.ts) are route tables over this one server.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the adapter sent, as the platform would have received it. */
export interface RecordedCall {
  method: string;
  /** Path and query, without the origin. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The body parsed as JSON, the raw text when it is not JSON, `undefined` when empty. */
  body: unknown;
  /** What the fake answered (a message's id, say), once it has. */
  answer?: FakeAnswer;
}

/** What a route answers: a status (default 200) and a JSON body. */
export interface FakeAnswer {
  status?: number;
  body?: unknown;
}

/** A route: method, a path pattern, and the answer built from the call and the pattern's groups. */
export interface FakeRoute {
  method: string;
  path: RegExp;
  answer: (call: RecordedCall, groups: Record<string, string>) => FakeAnswer;
}

/** A running fake: its origin, every call so far, and a way to wait for the next ones. */
export interface FakeChatApi {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  origin: string;
  calls: RecordedCall[];
  /** The calls of one method whose path (without its query) matches `path`, in order. */
  callsTo(method: string, path: RegExp): RecordedCall[];
  /** Resolves once `count` calls of `method` matching `path` arrived; rejects after `ms`. */
  waitForCalls(method: string, path: RegExp, count: number, ms?: number): Promise<RecordedCall[]>;
  close(): Promise<void>;
}

/**
 * Starts the fake on an ephemeral loopback port. A call no route matches is recorded and
 * answered 404 with a body naming the method and path, so a test that forgot a route fails
 * with the platform call it did not expect rather than hanging.
 */
export async function startFakeChatApi(routes: readonly FakeRoute[]): Promise<FakeChatApi> {
  const waiters = new Set<() => void>();
  const calls: RecordedCall[] = [];
  const callsTo = (method: string, path: RegExp) =>
    calls.filter((call) => call.method === method && path.test(pathnameOf(call)));
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const call: RecordedCall = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers: req.headers,
        body: parseBody(text),
      };
      calls.push(call);
      const pathname = pathnameOf(call);
      let answer: FakeAnswer = {
        status: 404,
        body: { error: `the fake has no route for ${call.method} ${call.path}` },
      };
      for (const route of routes) {
        const match = route.method === call.method ? route.path.exec(pathname) : null;
        if (match === null) continue;
        answer = route.answer(call, { ...match.groups });
        break;
      }
      call.answer = answer;
      res.writeHead(answer.status ?? 200, { 'content-type': 'application/json' });
      res.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
      for (const wake of [...waiters]) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    calls,
    callsTo,
    waitForCalls: (method, path, count, ms = 5_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const found = callsTo(method, path);
          if (found.length < count) return false;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `expected ${count} ${method} calls to ${path}, got ${callsTo(method, path).length}; ` +
                `all calls: ${calls.map((c) => `${c.method} ${c.path}`).join(', ') || 'none'}`,
            ),
          );
        }, ms);
        if (!check()) waiters.add(check);
      }),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function pathnameOf(call: RecordedCall): string {
  return call.path.split('?')[0] ?? '';
}

function parseBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
