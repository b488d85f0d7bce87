/** The web answer server: a signed link per ask, its form page, and the answer through the service. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../engine/clock.js';
import { UserInteractionError } from '../rules/errors.js';
import type { AskStore } from '../stores/ask-store.js';
import { renderNoticePage } from './answer-page.js';
import { createAssets } from './assets.js';
import { sendHtml } from './http-response.js';
import { createLinkTokenSigner } from './link-token.js';
import { createOperatorView } from './operator-view.js';
import { AnswerHandler } from './request-handler.js';
import { storeAuditEvents } from './store-events.js';
import type { WebAnswerService } from './web-service.js';

export interface WebAnswerServerOptions {
  /** The interaction service whose asks the pages answer (any service sharing the store). */
  service: WebAnswerService;
  /** HMAC key of the links, at least 32 bytes; keep it stable to keep links valid across restarts. */
  secret: string | Uint8Array;
  /** The public address of the server (behind a proxy); default `http://<host>:<port>`. */
  baseUrl?: string;
  /** Default 0: any free port. */
  port?: number;
  /** Default `127.0.0.1`. */
  host?: string;
  /** Enables the read-only view of live asks at `/asks?token=<operatorToken>`. */
  operatorToken?: string;
  /**
   * The service's store: the live view then follows every ask written to it, by any service
   * or process, instead of only the asks `service` has open.
   */
  store?: Pick<AskStore, 'subscribe' | 'history'>;
  /** Lifetime of a link for an ask without a deadline; default 7 days. */
  linkTtlMs?: number;
  /** Largest request body accepted; default 1 MiB (four questions of 32 KiB text and comment). */
  maxBodyBytes?: number;
  /** Time source for link expiry; default the system clock. */
  clock?: Pick<Clock, 'now'>;
}

export interface WebAnswerServer {
  /** The base address of links (`baseUrl`, else where it listens), without a trailing slash. */
  readonly url: string;
  /** The port it listens on (the one picked when `port` was 0). */
  readonly port: number;
  readonly service: WebAnswerService;
  /**
   * A signed link to the ask's page, valid until the ask's deadline (or `linkTtlMs`) and only
   * while the ask is open. Rejects with `UNKNOWN_INTERACTION` for an ask the store does not
   * have and `ASK_SETTLED` for one that already has its outcome.
   */
  linkFor(askId: string): Promise<string>;
  /** Stops listening and ends open connections (live views included). */
  close(): Promise<void>;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Starts the server and resolves once it listens.
 *
 * @example
 * const server = await createWebAnswerServer({ service, secret: randomBytes(32) });
 * service.registerProvider(createWebProvider(server, { notify: (link) => console.log(link) }));
 */
export async function createWebAnswerServer(
  options: WebAnswerServerOptions,
): Promise<WebAnswerServer> {
  const {
    service,
    host = '127.0.0.1',
    port = 0,
    linkTtlMs = 7 * DAY_MS,
    maxBodyBytes = 1024 * 1024,
    clock = { now: () => Date.now() },
  } = options;
  checkOptions(options, linkTtlMs, maxBodyBytes, port);
  const signer = createLinkTokenSigner(options.secret);
  const assets = createAssets();
  const operator =
    options.operatorToken === undefined
      ? undefined
      : createOperatorView({
          service,
          operatorToken: options.operatorToken,
          ...(options.store === undefined ? {} : { events$: storeAuditEvents(options.store) }),
        });

  const handler = new AnswerHandler(service, signer, clock, assets, maxBodyBytes, operator);
  const server = createServer((request, response) => {
    handler.handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) {
        sendHtml(
          response,
          500,
          renderNoticePage(
            'Something went wrong',
            'The server could not handle this request; nothing was recorded. Try again later.',
          ),
        );
      } else response.destroy();
      process.emitWarning(`ask-engine/web: ${(error as Error)?.stack ?? String(error)}`);
    });
  });
  // A slow client cannot hold a connection open forever.
  server.requestTimeout = 30_000;
  server.headersTimeout = 15_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const url = (
    options.baseUrl ??
    `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`
  ).replace(/\/+$/, '');

  return {
    url,
    port: address.port,
    service,
    async linkFor(askId) {
      const ask = await service.get(askId);
      if (ask === undefined) {
        throw new UserInteractionError(
          'UNKNOWN_INTERACTION',
          `No ask with id ${JSON.stringify(askId)} in the store; start it first.`,
          { askId },
        );
      }
      if (ask.final) {
        throw new UserInteractionError(
          'ASK_SETTLED',
          `Ask ${JSON.stringify(askId)} is ${ask.state}; a link to it would be useless.`,
          { askId, state: ask.state },
        );
      }
      const now = clock.now();
      const expiresAt = Math.floor(
        Math.min(ask.deadlineAt ?? Number.POSITIVE_INFINITY, now + linkTtlMs),
      );
      return `${url}/a/${encodeURIComponent(askId)}?t=${signer.sign(askId, Math.max(expiresAt, 1))}`;
    },
    async close() {
      operator?.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

function checkOptions(
  options: WebAnswerServerOptions,
  linkTtlMs: number,
  maxBodyBytes: number,
  port: number,
): void {
  if (typeof options.service?.get !== 'function' || typeof options.service.answer !== 'function') {
    throw new TypeError(
      'Expected `service` to be an interaction service (createInteractionService), got ' +
        typeof options.service +
        '.',
    );
  }
  if (!(linkTtlMs > 0))
    throw new TypeError(`Expected \`linkTtlMs\` to be a number above 0, got ${String(linkTtlMs)}.`);
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 1024) {
    throw new TypeError(
      `Expected \`maxBodyBytes\` to be an integer from 1024 up, got ${String(maxBodyBytes)}.`,
    );
  }
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new TypeError(`Expected \`port\` to be an integer from 0 to 65535, got ${String(port)}.`);
  }
  if (options.operatorToken !== undefined && options.operatorToken.length < 16) {
    throw new TypeError(
      `Expected \`operatorToken\` to have at least 16 characters, got ${options.operatorToken.length}.`,
    );
  }
  if (options.baseUrl !== undefined && !/^https?:\/\/[^\s]+$/.test(options.baseUrl)) {
    throw new TypeError(
      `Expected \`baseUrl\` to be an http(s) URL, got ${JSON.stringify(options.baseUrl)}.`,
    );
  }
}
