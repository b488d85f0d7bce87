/** The answer app on a port of its own: a thin Node wrapper over `createAnswerApp`. */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import {
  type AnswerAppLinks,
  type AnswerAppOptions,
  buildAnswerApp,
  checkBaseUrl,
} from './answer-app.js';
import type { WebAnswerService } from './web-service.js';

/** Options of `createWebAnswerServer`: the answer app's options plus where to listen. */
export interface WebAnswerServerOptions extends Omit<AnswerAppOptions, 'baseUrl'> {
  /** The public address of the server (behind a proxy); default `http://<host>:<port>`. */
  baseUrl?: string;
  /** Default 0: any free port. */
  port?: number;
  /** Default `127.0.0.1`. */
  host?: string;
}

/** The answer app listening on its own port: its address, signed links and `close`. */
export interface WebAnswerServer {
  /** The base address of links (`baseUrl`, else where it listens), without a trailing slash. */
  readonly url: string;
  /** The port it listens on (the one picked when `port` was 0). */
  readonly port: number;
  /** The service whose asks the pages answer (the `service` option). */
  readonly service: WebAnswerService;
  /** See `AnswerAppLinks.linkFor`: the ask's signed link, or one recipient's own. */
  linkFor: AnswerAppLinks['linkFor'];
  /** See `AnswerAppLinks.inboxLinkFor`: a signed link to one recipient's inbox of open asks. */
  inboxLinkFor: AnswerAppLinks['inboxLinkFor'];
  /** See `AnswerAppLinks.pushActionsFor`: one signed one-tap answer URL per option, for push buttons. */
  pushActionsFor: AnswerAppLinks['pushActionsFor'];
  /** Stops listening and ends open connections (live views included). */
  close(): Promise<void>;
}

/**
 * Starts the answer app on its own port and resolves once it listens. To serve the pages from
 * your own server instead, mount `createAnswerApp` there.
 *
 * @example
 * const server = await createWebAnswerServer({ service, secret: randomBytes(32) });
 * service.registerProvider(createWebProvider(server, { notify: (link) => console.log(link) }));
 */
export async function createWebAnswerServer(
  options: WebAnswerServerOptions,
): Promise<WebAnswerServer> {
  const { service, host = '127.0.0.1', port = 0 } = options;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new TypeError(`Expected \`port\` to be an integer from 0 to 65535, got ${String(port)}.`);
  }
  const configured = options.baseUrl === undefined ? undefined : checkBaseUrl(options.baseUrl);
  let url = configured ?? '';
  const app = buildAnswerApp(options, () => url);
  const server = createAdaptorServer({
    fetch: (request) => app.fetch(request),
    // The process keeps Node's own Request and Response.
    overrideGlobalObjects: false,
    // A slow client cannot hold a connection open forever.
    serverOptions: { requestTimeout: 30_000, headersTimeout: 15_000 },
  }) as Server;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    app.close();
    throw error;
  }
  const address = server.address() as AddressInfo;
  url ||= `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;

  return {
    url,
    port: address.port,
    service,
    linkFor: (askId, recipient) => app.linkFor(askId, recipient),
    inboxLinkFor: (recipient, inboxOptions) => app.inboxLinkFor(recipient, inboxOptions),
    pushActionsFor: (askId, recipient, actionOptions) =>
      app.pushActionsFor(askId, recipient, actionOptions),
    async close() {
      app.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
