/** A real HTTP receiver on loopback that verifies every Standard Webhooks signature it gets. */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedHook {
  headers: IncomingHttpHeaders;
  body: string;
  /** What `Webhook.verify` returned, or the error it threw. */
  verified: { ok: true; payload: unknown } | { ok: false; error: string };
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedHook[];
  /** Answers request number `n` (from 1); the default answers 204. Leave `res` open to hang. */
  respond: (res: ServerResponse, n: number) => void;
  /** Resolves once `count` requests arrived. */
  arrived(count: number): Promise<void>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(secret: string): Promise<WebhookReceiver> {
  const verifier = new Webhook(secret);
  const waiters: { count: number; resolve: () => void }[] = [];
  const receiver: WebhookReceiver = {
    url: '',
    received: [],
    respond: (res) => res.writeHead(204).end(),
    arrived: (count) =>
      receiver.received.length >= count
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
      const body = Buffer.concat(chunks).toString('utf8');
      let verified: ReceivedHook['verified'];
      try {
        verified = {
          ok: true,
          payload: verifier.verify(body, req.headers as Record<string, string>),
        };
      } catch (error) {
        verified = { ok: false, error: String(error) };
      }
      receiver.received.push({ headers: req.headers, body, verified });
      receiver.respond(res, receiver.received.length);
      for (const waiter of waiters.filter((w) => receiver.received.length >= w.count)) {
        waiter.resolve();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/ask`;
  return receiver;
}
