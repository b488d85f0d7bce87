/** A real HTTP server on loopback that records every request (an ntfy server, a push service). */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface HttpRecorder {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string;
  received: RecordedRequest[];
  /** Answers request number `n` (from 1); the default answers 200 with `{}`. */
  respond: (res: ServerResponse, n: number) => void;
  /** Resolves once `count` requests arrived. */
  arrived(count: number): Promise<void>;
  close(): Promise<void>;
}

export async function startHttpRecorder(): Promise<HttpRecorder> {
  const waiters: { count: number; resolve: () => void }[] = [];
  const recorder: HttpRecorder = {
    url: '',
    received: [],
    respond: (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'),
    arrived: (count) =>
      recorder.received.length >= count
        ? Promise.resolve()
        : new Promise((resolve) => waiters.push({ count, resolve })),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      recorder.received.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
      });
      recorder.respond(res, recorder.received.length);
      for (const waiter of waiters.filter((w) => recorder.received.length >= w.count)) {
        waiter.resolve();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  recorder.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return recorder;
}
