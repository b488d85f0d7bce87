/** The web answer server: a signed link per ask, its form page, and the answer through the service. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AskUserQuestionAnswer } from '../contracts/answer.js';
import type { UiForm, UiFormAnswer } from '../contracts/form.js';
import type { Clock } from '../engine/clock.js';
import type { AskInfo } from '../engine/service-contract.js';
import { buildAskUserForm } from '../form/build-form.js';
import { decodeAskUserFormAnswer } from '../form/decode-answer.js';
import { isUserInteractionError, UserInteractionError } from '../rules/errors.js';
import {
  type PostedValues,
  renderAnswerPage,
  renderNoticePage,
  renderRecordedPage,
} from './answer-page.js';
import { describeState } from './ask-state.js';
import { type Assets, createAssets } from './assets.js';
import { send, sendHtml } from './http-response.js';
import { createLinkTokenSigner, type LinkTokenSigner } from './link-token.js';
import { createOperatorView, type OperatorView } from './operator-view.js';
import { BodyError, readFormBody } from './read-body.js';
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
  /** Lifetime of a link for an ask without a deadline; default 7 days. */
  linkTtlMs?: number;
  /** Largest request body accepted; default 1 MiB (four questions of 32 KiB text and comment). */
  maxBodyBytes?: number;
  /** Time source for link expiry; default the system clock. */
  clock?: Pick<Clock, 'now'>;
}

export interface WebAnswerServer {
  /** The base address, without a trailing slash. */
  readonly url: string;
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
const MAX_ASK_ID_LENGTH = 256;

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
      : createOperatorView({ service, operatorToken: options.operatorToken });

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

class AnswerHandler {
  constructor(
    private readonly service: WebAnswerService,
    private readonly signer: LinkTokenSigner,
    private readonly clock: Pick<Clock, 'now'>,
    private readonly assets: Assets,
    private readonly maxBodyBytes: number,
    private readonly operator: OperatorView | undefined,
  ) {}

  async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://answer.invalid');
    const path = url.pathname;
    const method = request.method ?? 'GET';
    if (path.startsWith('/assets/')) {
      if (!allow(method, ['GET', 'HEAD'], response)) return;
      const asset = await this.assets.get(path.slice('/assets/'.length));
      if (asset === undefined) return notFound(response);
      send(response, 200, asset.type, asset.body, { 'Cache-Control': 'public, max-age=300' });
      return;
    }
    if (path === '/asks' || path.startsWith('/asks/')) {
      if (this.operator === undefined) return notFound(response);
      if (!allow(method, ['GET', 'HEAD'], response)) return;
      await this.operator.handle(path, url, request, response);
      return;
    }
    if (path === '/favicon.ico') {
      response.writeHead(204, { 'Cache-Control': 'public, max-age=86400' }).end();
      return;
    }
    const match = /^\/a\/([^/]+)$/.exec(path);
    if (match === null) return notFound(response);
    let askId: string;
    try {
      askId = decodeURIComponent(match[1]!);
    } catch {
      return notFound(response);
    }
    if (askId.length === 0 || askId.length > MAX_ASK_ID_LENGTH) return notFound(response);
    if (!allow(method, ['GET', 'HEAD', 'POST'], response)) return;
    if (method === 'POST') await this.answer(askId, request, response);
    else await this.show(askId, url.searchParams.get('t') ?? '', response);
  }

  private async show(askId: string, token: string, response: ServerResponse): Promise<void> {
    const ask = await this.openAsk(askId, token, response);
    if (ask === undefined) return;
    const form = buildAskUserForm(ask.questions);
    sendHtml(response, 200, renderAnswerPage({ askId, questions: ask.questions, form, token }));
  }

  private async answer(
    askId: string,
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<void> {
    let body: URLSearchParams;
    try {
      body = await readFormBody(request, this.maxBodyBytes);
    } catch (error) {
      if (!(error instanceof BodyError)) throw error;
      response.setHeader('Connection', 'close');
      sendHtml(response, error.status, renderNoticePage('Not accepted', error.message));
      return;
    }
    const token = body.get('token') ?? '';
    const ask = await this.openAsk(askId, token, response, 409);
    if (ask === undefined) return;
    const form = buildAskUserForm(ask.questions);
    const posted = readPostedAnswer(form, body);
    const refuse = (message: string) =>
      sendHtml(
        response,
        422,
        renderAnswerPage({
          askId,
          questions: ask.questions,
          form,
          token,
          values: posted.values,
          error: message,
        }),
      );
    let answers: AskUserQuestionAnswer[] | null;
    try {
      answers = decodeAskUserFormAnswer(ask.questions, posted);
    } catch (error) {
      if (!isUserInteractionError(error)) throw error;
      return refuse(error.message);
    }
    if (answers === null) {
      return refuse(
        'This page records answers only; to leave a question open, choose "Skip this question" or just close the page.',
      );
    }
    try {
      await this.service.answer(askId, answers);
    } catch (error) {
      if (isUserInteractionError(error, 'ASK_SETTLED')) {
        const now = await this.service.get(askId);
        return sendHtml(response, 409, settledPage(now?.state ?? ask.state));
      }
      if (
        isUserInteractionError(error, 'INVALID_ANSWER') ||
        isUserInteractionError(error, 'LIMIT_EXCEEDED')
      ) {
        return refuse(error.message);
      }
      throw error;
    }
    sendHtml(response, 200, renderRecordedPage(ask.questions, answers));
  }

  /** The ask the token opens, or undefined once a refusal was sent. Checks the token first. */
  private async openAsk(
    askId: string,
    token: string,
    response: ServerResponse,
    settledStatus = 410,
  ): Promise<AskInfo | undefined> {
    const check = this.signer.verify(askId, token, this.clock.now());
    if (!check.ok) {
      if (check.problem === 'expired') {
        sendHtml(
          response,
          410,
          renderNoticePage(
            'This link has expired',
            "The link was valid until the question's deadline or its own time limit. Ask the sender for a new link if the question is still open.",
          ),
        );
      } else {
        sendHtml(
          response,
          403,
          renderNoticePage(
            'This link is not valid',
            'The link is incomplete or was not made for this question. Open the link exactly as you received it.',
          ),
        );
      }
      return undefined;
    }
    const ask = await this.service.get(askId);
    if (ask === undefined) {
      sendHtml(
        response,
        404,
        renderNoticePage('Question not found', 'This question is no longer stored on the server.'),
      );
      return undefined;
    }
    if (ask.final) {
      sendHtml(response, settledStatus, settledPage(ask.state));
      return undefined;
    }
    return ask;
  }
}

/** The form answer as posted: the action and every known field; unknown fields kept for the codec to refuse. */
function readPostedAnswer(
  form: UiForm,
  body: URLSearchParams,
): UiFormAnswer & { values: PostedValues } {
  const multi = new Set(
    form.fields.filter((field) => field.type === 'multi-choice').map((field) => field.id),
  );
  const values: PostedValues = {};
  for (const key of new Set(body.keys())) {
    if (key === 'token' || key === 'action') continue;
    // Browsers send a textarea's line breaks as CRLF; the person typed LF.
    const all = body.getAll(key).map((value) => value.replace(/\r\n?/g, '\n'));
    values[key] = all.length === 1 && !multi.has(key) ? all[0]! : all;
  }
  return { action: body.get('action') ?? 'submit', values };
}

function settledPage(state: AskInfo['state']): string {
  return renderNoticePage(
    'Nothing left to answer',
    `${describeState(state)} Its outcome is fixed, so this page cannot change it; you can close it.`,
  );
}

function allow(method: string, methods: string[], response: ServerResponse): boolean {
  if (methods.includes(method)) return true;
  send(response, 405, 'text/plain; charset=utf-8', `Method ${method} is not allowed here.\n`, {
    Allow: methods.join(', '),
  });
  return false;
}

function notFound(response: ServerResponse): void {
  sendHtml(response, 404, renderNoticePage('Not found', 'There is no page at this address.'));
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
