/**
 * Loopback HTTP for the MCP tests: a `fetch` handler served by `node:http`, and a round-robin
 * proxy in front of several upstreams that sends each `tools/call` to the next one.
 */
import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';

type FetchHandler = (request: Request) => Promise<Response>;

/** A `node:http` listener that answers through a web-standard `fetch` handler. */
export function serveFetch(fetch: FetchHandler): RequestListener {
  return async (req, res) => {
    const body = await readBody(req);
    const response = await fetch(
      new Request(`http://${req.headers.host}${req.url}`, {
        method: req.method!,
        headers: headersOf(req),
        ...(body.length === 0 ? {} : { body: new Uint8Array(body) }),
      }),
    );
    writeResponse(res, response);
  };
}

/** The upstream each `tools/call` went to, in order. */
export interface RoundRobin {
  readonly url: URL;
  readonly toolCalls: string[];
  close(): Promise<void>;
}

/**
 * A proxy on loopback: each `tools/call` POST goes to the next upstream in turn (so a retry
 * lands on another process than the call before it); every other request to the first.
 */
export async function startRoundRobin(upstreams: Record<string, URL>): Promise<RoundRobin> {
  const names = Object.keys(upstreams);
  const toolCalls: string[] = [];
  const server: Server = createServer(async (req, res) => {
    const body = await readBody(req);
    let name = names[0]!;
    if (req.method === 'POST' && /"method"\s*:\s*"tools\/call"/.test(body.toString('utf8'))) {
      name = names[toolCalls.length % names.length]!;
      toolCalls.push(name);
    }
    const response = await fetch(new URL(req.url!, upstreams[name]), {
      method: req.method!,
      headers: headersOf(req),
      ...(body.length === 0 ? {} : { body: new Uint8Array(body) }),
    });
    writeResponse(res, response);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    toolCalls,
    close: () => new Promise((done) => server.close(() => done())),
  };
}

function writeResponse(res: ServerResponse, response: Response): void {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body === null) res.end();
  else Readable.fromWeb(response.body as never).pipe(res);
}

function headersOf(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) {
    if (value !== undefined && key !== 'host' && key !== 'connection' && key !== 'content-length') {
      headers.set(key, Array.isArray(value) ? value.join(', ') : value);
    }
  }
  return headers;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
