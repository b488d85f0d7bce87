/**
 * The answer app: a Hono app (`fetch(Request): Promise<Response>`) with each ask's page at a
 * signed link, the form POST, push buttons' one-tap POSTs, each recipient's inbox at a signed
 * link, the pages' assets and the operator view. It mounts under any path prefix of a Node server (Hono through
 * `@hono/node-server`, Express, Fastify, a bare `node:http` server). It is Node only: its link
 * tokens are HMACs from `node:crypto` and its page scripts are read from disk (`node:fs`), so it
 * does not run in edge workers. Where a Node host parsed the body first
 * (`express.urlencoded()`), the answer is read from `req.body`.
 */
import { Hono } from 'hono';
import type { AnsweredBy } from '../contracts/outcome.js';
import type { Clock } from '../engine/clock.js';
import type { AskInfo } from '../engine/service-contract.js';
import { readAnsweredBy } from '../rules/answered-by.js';
import type { AskStore } from '../stores/ask-store.js';
import { renderNoticePage } from './answer-page.js';
import { AnswerRoutes, MAX_ASK_ID_LENGTH } from './answer-routes.js';
import { openAskFor } from './ask-state.js';
import { createAssets } from './assets.js';
import { htmlResponse, methodNotAllowed, respond } from './http-response.js';
import { createLinkTokenSigner } from './link-token.js';
import { createOperatorView } from './operator-view.js';
import { type PushAction, PushAnswerRoute } from './push-answer-route.js';
import { bodyReadByHost, lostBodyWarning } from './read-body.js';
import { createRecipientInbox } from './recipient-inbox.js';
import { storeAuditEvents } from './store-events.js';
import type { WebAnswerService } from './web-service.js';

/** Options of `createAnswerApp`: the service, the link secret, the public address and limits. */
export interface AnswerAppOptions {
  /** The interaction service whose asks the pages answer (any service sharing the store). */
  service: WebAnswerService;
  /** HMAC key of the links, at least 32 bytes; keep it stable to keep links valid across restarts. */
  secret: string | Uint8Array;
  /**
   * Where people reach the app's root: scheme, host and the path prefix it is mounted under,
   * as seen from outside any proxy (e.g. `https://example.com/answers`). Links are this address
   * followed by `/a/<askId>?t=<token>`; the pages link to each other by relative paths.
   */
  baseUrl: string;
  /** Enables the read-only view of live asks at `asks?token=<operatorToken>` (16 characters or more). */
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

/** What the answer app adds to its Hono app. */
export interface AnswerAppLinks {
  /** `baseUrl` without a trailing slash. */
  readonly baseUrl: string;
  /**
   * A signed link to the ask's page, valid until the ask's deadline (or `linkTtlMs`) and only
   * while the ask is open. With `{ recipient, channel? }` the link is that recipient's own: an
   * answer through it is recorded as `answeredBy: { recipient, channel }` (channel `'web'`
   * unless given), and the recipient cannot be changed without breaking the signature.
   * Rejects with `INVALID_REQUEST` for a recipient `service.answer` would refuse,
   * `UNKNOWN_INTERACTION` for an ask the store does not have and `ASK_SETTLED` for one that
   * already has its outcome.
   *
   * @example
   * const link = await app.linkFor(askId, { recipient: 'alice@example.com', channel: 'email' });
   */
  linkFor(askId: string, recipient?: AnsweredBy): Promise<string>;
  /**
   * A signed link to one recipient's inbox (`inbox?t=<token>`): a page listing the open asks
   * (pending, deferred) that a notification reached `recipient.recipient` about, newest first,
   * each with that recipient's own answer link (recorded as `answeredBy: recipient`, channel
   * `'web'` unless given). It lists no one else's asks, shows no answers, and changes nothing
   * when opened. The link works for `ttlMs` (default `linkTtlMs`); a changed or expired one is
   * refused. Throws `INVALID_REQUEST` for a recipient `service.answer` would refuse.
   *
   * @example
   * const inbox = app.inboxLinkFor({ recipient: 'alice@example.com', channel: 'email' });
   */
  inboxLinkFor(recipient: AnsweredBy, options?: { ttlMs?: number }): string;
  /**
   * The buttons of a push notification for one recipient: for an ask of one single-choice
   * question with 1 to `max` options (default 3), one signed URL per option that answers with
   * that option as `recipient` when POSTed (`a/<askId>/pick/<n>?t=<token>`), valid as long as
   * `linkFor`'s link; `[]` for any other ask (the page link answers those). The ask settles
   * once: a repeated POST changes nothing and is told so (200 to the same person repeating the
   * same pick, 409 naming who decided to anyone else), and a GET never answers. Rejects like
   * `linkFor`.
   *
   * @example
   * const buttons = await app.pushActionsFor(askId, { recipient: 'alice', channel: 'ntfy' });
   */
  pushActionsFor(
    askId: string,
    recipient: AnsweredBy,
    options?: { max?: number },
  ): Promise<readonly PushAction[]>;
  /** Stops following audit events and ends the live streams; call it when the server stops. */
  close(): void;
}

/** A Hono app: `app.fetch(request)`, `app.request(path)`, mountable with `route` or `mount`. */
export type AnswerApp = Hono & AnswerAppLinks;

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Builds the answer app. Links carry `baseUrl`; mount the app where that address points.
 *
 * @example
 * const answers = createAnswerApp({ service, secret, baseUrl: 'https://example.com/answers' });
 * app.route('/answers', answers); // a Hono app; see the docs for Express and node:http
 * service.registerProvider(createWebProvider(answers, { notify: (link) => console.log(link) }));
 */
export function createAnswerApp(options: AnswerAppOptions): AnswerApp {
  if (typeof options?.baseUrl !== 'string') {
    throw new TypeError(
      `Expected \`baseUrl\` to be the http(s) address the app is reached at, got ${typeof options?.baseUrl}.`,
    );
  }
  const baseUrl = checkBaseUrl(options.baseUrl);
  return buildAnswerApp(options, () => baseUrl);
}

/** The app with links on a base known later (a Node server's address once it listens). */
export function buildAnswerApp(
  options: Omit<AnswerAppOptions, 'baseUrl'>,
  baseUrl: () => string,
): AnswerApp {
  const {
    service,
    linkTtlMs = 7 * DAY_MS,
    maxBodyBytes = 1024 * 1024,
    clock = { now: () => Date.now() },
  } = options;
  checkOptions(options, linkTtlMs, maxBodyBytes);
  const signer = createLinkTokenSigner(options.secret);
  const assets = createAssets();
  const routes = new AnswerRoutes(service, signer, clock, maxBodyBytes);
  /**
   * The path (below the app's root) of the ask's page with a token valid until its deadline or
   * `linkTtlMs` from now, whichever is first; a recipient's own with `by`.
   */
  const answerPath = (ask: Pick<AskInfo, 'askId' | 'deadlineAt'>, by?: AnsweredBy) =>
    `a/${encodeURIComponent(ask.askId)}?t=${signer.sign(ask.askId, linkExpiry(ask), by)}`;
  /** Until the ask's deadline or `linkTtlMs` from now, whichever is first. */
  const linkExpiry = (ask: Pick<AskInfo, 'deadlineAt'>) =>
    Math.max(
      Math.floor(Math.min(ask.deadlineAt ?? Number.POSITIVE_INFINITY, clock.now() + linkTtlMs)),
      1,
    );
  const pushAnswers = new PushAnswerRoute(service, signer, clock);
  const recipientInbox = createRecipientInbox({ service, signer, clock, answerPath });
  const operator =
    options.operatorToken === undefined
      ? undefined
      : createOperatorView({
          service,
          operatorToken: options.operatorToken,
          ...(options.store === undefined ? {} : { events$: storeAuditEvents(options.store) }),
        });

  const app = new Hono();
  const readOnly = ['GET', 'HEAD'];
  const isRead = (method: string) => method === 'GET' || method === 'HEAD';
  app.all('/a/:askId', (c) => {
    const method = c.req.method;
    if (!isRead(method) && method !== 'POST') {
      return methodNotAllowed(method, ['GET', 'HEAD', 'POST']);
    }
    const askId = c.req.param('askId');
    if (askId.length === 0 || askId.length > MAX_ASK_ID_LENGTH) return notFound();
    if (method === 'POST') {
      const host = bodyReadByHost(c.env);
      if (host !== 'lost') return routes.answer(askId, c.req.raw, host);
      process.emitWarning(lostBodyWarning(new URL(c.req.url).pathname));
      return htmlResponse(
        500,
        renderNoticePage(
          'This answer could not be read',
          "The server read the form before this page could, so nothing was recorded. Its operator's log says how to fix this; try again once it is fixed.",
        ),
      );
    }
    // A link has one token: a second `t` makes it no link of this app.
    const tokens = new URL(c.req.url).searchParams.getAll('t');
    return routes.show(askId, tokens.length === 1 ? tokens[0]! : '');
  });
  app.all('/a/:askId/pick/:position', (c) => {
    const askId = c.req.param('askId');
    if (askId.length === 0 || askId.length > MAX_ASK_ID_LENGTH) return notFound();
    const tokens = new URL(c.req.url).searchParams.getAll('t');
    const token = tokens.length === 1 ? tokens[0]! : '';
    return pushAnswers.answer(askId, c.req.param('position'), token, c.req.method);
  });
  app.all('/inbox', (c) => {
    if (!isRead(c.req.method)) return methodNotAllowed(c.req.method, readOnly);
    return recipientInbox(new URL(c.req.url));
  });
  app.all('/assets/:name', async (c) => {
    if (!isRead(c.req.method)) return methodNotAllowed(c.req.method, readOnly);
    const asset = await assets.get(c.req.param('name'));
    if (asset === undefined) return notFound();
    return respond(200, asset.type, asset.body, { 'Cache-Control': 'public, max-age=300' });
  });
  app.all('/favicon.ico', (c) => {
    if (!isRead(c.req.method)) return methodNotAllowed(c.req.method, readOnly);
    return respond(204, '', null, { 'Cache-Control': 'public, max-age=86400' });
  });
  if (operator !== undefined) {
    // Registered before `asks/:askId`, which would match it too.
    app.all('/asks/events', (c) => {
      if (!isRead(c.req.method)) return methodNotAllowed(c.req.method, readOnly);
      return operator.stream(new URL(c.req.url), c.req.raw.signal);
    });
    app.all('/asks', (c) => {
      if (!isRead(c.req.method)) return methodNotAllowed(c.req.method, readOnly);
      return operator.list(new URL(c.req.url));
    });
    app.all('/asks/:askId', (c) => {
      if (!isRead(c.req.method)) return methodNotAllowed(c.req.method, readOnly);
      const askId = c.req.param('askId');
      if (askId.length > MAX_ASK_ID_LENGTH) return notFound();
      return operator.ask(askId, new URL(c.req.url));
    });
  }
  app.notFound(() => notFound());
  app.onError((error) => {
    process.emitWarning(`ask-engine/web: ${(error as Error)?.stack ?? String(error)}`);
    return htmlResponse(
      500,
      renderNoticePage(
        'Something went wrong',
        'The server could not handle this request; nothing was recorded. Try again later.',
      ),
    );
  });

  const links: AnswerAppLinks = {
    get baseUrl() {
      return baseUrl();
    },
    async linkFor(askId, recipient) {
      // Checked before the store is read: a bad recipient is the caller's mistake, whatever the ask.
      const by = recipient === undefined ? undefined : readAnsweredBy(recipient, '');
      const ask = await openAskFor(service, askId);
      return `${baseUrl()}/${answerPath(ask, by)}`;
    },
    async pushActionsFor(askId, recipient, actionOptions = {}) {
      const { max = 3 } = actionOptions;
      if (!Number.isSafeInteger(max) || max < 1) {
        throw new TypeError(`Expected \`max\` to be an integer from 1 up, got ${String(max)}.`);
      }
      const by = readAnsweredBy(recipient, '');
      const ask = await openAskFor(service, askId);
      return pushAnswers.actions(ask, by, linkExpiry(ask), baseUrl(), max);
    },
    inboxLinkFor(recipient, inboxOptions = {}) {
      const { ttlMs = linkTtlMs } = inboxOptions;
      if (typeof ttlMs !== 'number' || !(ttlMs > 0) || !Number.isFinite(ttlMs)) {
        throw new TypeError(
          `Expected \`ttlMs\` to be a number of milliseconds above 0, got ${String(ttlMs)}.`,
        );
      }
      // The signer checks the recipient as `service.answer` would (INVALID_REQUEST).
      const token = signer.signInbox(recipient, Math.floor(clock.now() + ttlMs));
      return `${baseUrl()}/inbox?t=${token}`;
    },
    close() {
      operator?.close();
    },
  };
  return Object.defineProperties(app, Object.getOwnPropertyDescriptors(links)) as AnswerApp;
}

function notFound(): Response {
  return htmlResponse(404, renderNoticePage('Not found', 'There is no page at this address.'));
}

/**
 * `baseUrl` without a trailing slash. Only an http(s) address with no credentials, query or
 * fragment: a link is this address with a path and the token appended.
 */
export function checkBaseUrl(baseUrl: string): string {
  let url: URL | undefined;
  try {
    url = /^https?:\/\/[^\s]+$/i.test(baseUrl) ? new URL(baseUrl) : undefined;
  } catch {
    url = undefined;
  }
  if (
    url === undefined ||
    url.username !== '' ||
    url.password !== '' ||
    url.search !== '' ||
    url.hash !== '' ||
    baseUrl.includes('?') ||
    baseUrl.includes('#')
  ) {
    throw new TypeError(
      `Expected \`baseUrl\` to be an http(s) URL without credentials, query or fragment, got ${JSON.stringify(baseUrl)}.`,
    );
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

function checkOptions(
  options: Omit<AnswerAppOptions, 'baseUrl'>,
  linkTtlMs: number,
  maxBodyBytes: number,
): void {
  if (typeof options.service?.get !== 'function' || typeof options.service.respond !== 'function') {
    throw new TypeError(
      `Expected \`service\` to be an interaction service (createInteractionService), got ${typeof options.service}.`,
    );
  }
  if (!(linkTtlMs > 0))
    throw new TypeError(`Expected \`linkTtlMs\` to be a number above 0, got ${String(linkTtlMs)}.`);
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 1024) {
    throw new TypeError(
      `Expected \`maxBodyBytes\` to be an integer from 1024 up, got ${String(maxBodyBytes)}.`,
    );
  }
  if (options.operatorToken !== undefined && options.operatorToken.length < 16) {
    throw new TypeError(
      `Expected \`operatorToken\` to have at least 16 characters, got ${options.operatorToken.length}.`,
    );
  }
}
