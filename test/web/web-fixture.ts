/** A real interaction service with the web server and provider, and one headless Chromium. */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AskOptions,
  type AskStore,
  type AskUserRequestInput,
  createInteractionService,
  createMemoryAskStore,
  type InteractionServiceOptions,
} from 'ask-engine';
import {
  type AnswerAppOptions,
  createAnswerApp,
  createWebAnswerServer,
  createWebProvider,
  type WebAnswerServerOptions,
} from 'ask-engine/web';
import { type BrowserContext, chromium } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';

/** A fresh profile per launch; the browser never touches the network beyond loopback. */
export async function launchChromium(options: { javaScriptEnabled?: boolean } = {}) {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing; install the chromium package.`);
  const profile = mkdtempSync(join(tmpdir(), 'ask-engine-web-'));
  const context: BrowserContext = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    javaScriptEnabled: options.javaScriptEnabled ?? true,
    viewport: { width: 1280, height: 900 },
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export const OPERATOR_TOKEN = 'operator-token-for-tests';

/**
 * A service whose provider keeps each ask pending and hands its link to `links`, served by a
 * web server on loopback. `store` lets two services share one store.
 */
export async function startWebService(
  options: {
    store?: AskStore;
    mode?: 'defer' | 'pending';
    /** Default true: serve /asks with OPERATOR_TOKEN. */
    operatorView?: boolean;
    server?: Partial<Omit<WebAnswerServerOptions, 'service'>>;
    /** Options of the interaction service, e.g. `{ redact: true }`. */
    service?: Omit<InteractionServiceOptions, 'store'>;
  } = {},
) {
  const store = options.store ?? createMemoryAskStore();
  const service = createInteractionService({ ...options.service, store });
  const server = await createWebAnswerServer({
    service,
    secret: randomBytes(32),
    ...(options.operatorView === false ? {} : { operatorToken: OPERATOR_TOKEN }),
    ...options.server,
  });
  const links: string[] = [];
  const waiting: ((link: string) => void)[] = [];
  service.registerProvider(
    createWebProvider(server, {
      mode: options.mode ?? 'pending',
      notify: (link) => {
        links.push(link);
        waiting.shift()?.(link);
      },
    }),
  );
  return {
    store,
    service,
    server,
    links,
    /** Starts an ask and resolves with its handle once its link was handed out. */
    async ask(request: AskUserRequestInput, askOptions: AskOptions = {}) {
      const link = new Promise<string>((resolve) => waiting.push(resolve));
      const handle = service.start(request, askOptions);
      return { handle, link: await link };
    },
    async close() {
      await server.close();
      await service.close();
    },
  };
}

/** Where the in-memory app says it is reached: links start with this. */
export const APP_BASE_URL = 'https://asks.example.test/team';

/**
 * The same as `startWebService`, with the answer app in memory (no port): `request` sends a
 * link or a path to `app.request`, as a server mounting the app under `/team` would.
 */
export function startAnswerApp(
  options: {
    store?: AskStore;
    mode?: 'defer' | 'pending';
    app?: Partial<Omit<AnswerAppOptions, 'service'>>;
    service?: Omit<InteractionServiceOptions, 'store'>;
    /** Default true: serve asks/ with OPERATOR_TOKEN. */
    operatorView?: boolean;
  } = {},
) {
  const store = options.store ?? createMemoryAskStore();
  const service = createInteractionService({ ...options.service, store });
  const app = createAnswerApp({
    service,
    secret: randomBytes(32),
    baseUrl: APP_BASE_URL,
    ...(options.operatorView === false ? {} : { operatorToken: OPERATOR_TOKEN }),
    ...options.app,
  });
  const waiting: ((link: string) => void)[] = [];
  service.registerProvider(
    createWebProvider(app, {
      mode: options.mode ?? 'pending',
      notify: (link) => void waiting.shift()?.(link),
    }),
  );
  /** A link of the app (or a path below its base) as the request the app receives. */
  const local = (link: string) =>
    link.startsWith(APP_BASE_URL) ? link.slice(APP_BASE_URL.length) : link;
  return {
    store,
    service,
    app,
    async ask(request: AskUserRequestInput, askOptions: AskOptions = {}) {
      const link = new Promise<string>((resolve) => waiting.push(resolve));
      const handle = service.start(request, askOptions);
      return { handle, link: await link };
    },
    request(link: string, init?: RequestInit) {
      return app.request(local(link), init);
    },
    /** Posts urlencoded fields to the page of `link` (its path, without the token). */
    post(link: string, fields: [string, string][], init: RequestInit = {}) {
      return app.request(local(link).split('?')[0]!, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields).toString(),
        ...init,
      });
    },
    async close() {
      app.close();
      await service.close();
    },
  };
}

/** The token from a link. */
export function tokenOf(link: string): string {
  return new URL(link).searchParams.get('t')!;
}
